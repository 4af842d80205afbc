// wasmeval — the AssemblyScript SDK for wasmeval plugins. See
// docs/sdk-assemblyscript.md.
export {
  Kind, Value, MAX_DEPTH, NON_FINITE, parseError, invalidUTF8, parse, parseString, compareKeys, sortedKeys, encodeError,
  ByteWriter, quote, formatFloat, numberValue,
} from "./json";
export {
  ABI_VERSION, TRANSPORT, Obj, Describe, InputFile, Case, Actual, VerifyInput, DiffEntry, Diff, Attribute, VerifyOutput,
  GroupInfo, Outcome, LoadInput, LoadOutput, EvaluateInput, EvaluateOutput, ToolCall, ToolResult, Message, Answer, Usage, AgentRun, TestInput,
  TestOutput, SetupTask, SetupInput, SetupWrite, SetupRun, SetupAction, SetupOutput, MockCall, MockRequest, MockInput, MockResponse, MockOutput, typeName, decodeError, decodeVerifyInput,
  decodeLoadInput, decodeEvaluateInput, decodeTestInput, decodeSetupInput, decodeMockInput, num, str,
  flag, get,
} from "./models";
export * from "./compare";
export * from "./text";
export * from "./answer";
export * from "./entry";
export * from "./setup";
export * from "./mock";
export { log, readAsset, wasmeval_input, wasmeval_output } from "./host";
import "./abort/abort";
