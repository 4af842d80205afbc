// Typed models of every ABI envelope, decoded from and encoded to the
// shared JSON model with the ABI's rules: absent or null fields take the
// zero value; a field of the wrong type is an error naming its path (the
// same message as in the Go and Rust SDKs).

import { ByteWriter, Value, Kind, literal, parseInputDoc, parseError } from "./json";
import { Doc, KeySet } from "./tape";
import { parseNumberAt } from "./decimal";
import { childPath } from "./compare";

export const ABI_VERSION = 1;

/** The transport this build speaks: native, or extism when compiled with
 * `--use WASMEVAL_EXTISM=1`. */
export const TRANSPORT: string = isDefined(WASMEVAL_EXTISM) ? "extism" : "native";

export type Obj = Map<string, Value>;

function newObj(): Obj { return new Map<string, Value>(); }

/** The members of an object value read from the input, or a new map. */
function objOf(v: Value | null): Obj {
  return v !== null ? v.obj : newObj();
}

export class Describe {
  abiVersion: i32 = ABI_VERSION;
  name: string = "";
  version: string = "";
  kinds: Array<string> = [];
  functions: Array<string> = [];
  stateful: bool = false;
  /** Null for none. */
  configSchema: Value = Value.null();
  description: string = "";
  /** The transport the module speaks: the one this build of the SDK
   * speaks (native, or extism when built with --use WASMEVAL_EXTISM=1). */
  transport: string = TRANSPORT;
  /** The exports that also answer batches (verify, evaluate, test); null
   * for those of the plugin's kinds, which the plugin then exports
   * (verify_batch, ...). An empty list announces none. */
  batch: Array<string> | null = null;

  constructor(name: string, version: string, kinds: Array<string>) {
    this.name = name; this.version = version; this.kinds = kinds;
  }

  toValue(): Value {
    const m = newObj();
    m.set("abi_version", Value.int(this.abiVersion));
    m.set("name", Value.str(this.name));
    m.set("version", Value.str(this.version));
    m.set("kinds", strings(this.kinds));
    if (this.functions.length > 0) m.set("functions", strings(this.functions));
    if (this.stateful) m.set("stateful", Value.bool(true));
    if (!this.configSchema.isNull()) m.set("config_schema", this.configSchema);
    putStr(m, "description", this.description);
    putStr(m, "transport", this.transport);
    const batch = this.batchExports();
    if (batch.length > 0) m.set("batch", strings(batch));
    // The SDK's input decoding takes raw strings (parseInputDoc), which
    // only the native transport carries.
    if (this.transport == "native") m.set("raw_strings", Value.bool(true));
    return Value.object(m);
  }

  /** The exports describe announces in batch. */
  batchExports(): Array<string> {
    const b = this.batch;
    if (b !== null) return b;
    const out = new Array<string>();
    if (this.kinds.includes("verifier")) out.push("verify");
    if (this.kinds.includes("evaluator")) out.push("evaluate");
    if (this.kinds.includes("test")) out.push("test");
    return out;
  }
}

export class InputFile {
  path: string = "";
  content: string = "";
  encoding: string = "";
}

/** A test case as plugins see it. Its lists and maps, here and in the
 * other inputs, are made when first asked for. */
export class Case {
  id: string = "";
  checkpoint: string = "";
  group: string = "";
  groupType: string = "";
  get arguments(): Array<string> {
    let x = this._arguments;
    if (x === null) { x = new Array<string>(); this._arguments = x; }
    return x;
  }
  set arguments(x: Array<string>) { this._arguments = x; }
  private _arguments: Array<string> | null = null;
  /** Null when the case has no stdin. */
  stdin: string | null = null;
  get env(): Map<string, string> {
    let x = this._env;
    if (x === null) { x = new Map<string, string>(); this._env = x; }
    return x;
  }
  set env(x: Map<string, string>) { this._env = x; }
  private _env: Map<string, string> | null = null;
  get inputFiles(): Array<InputFile> {
    let x = this._inputFiles;
    if (x === null) { x = new Array<InputFile>(); this._inputFiles = x; }
    return x;
  }
  set inputFiles(x: Array<InputFile>) { this._inputFiles = x; }
  private _inputFiles: Array<InputFile> | null = null;
  get trackedFiles(): Array<string> {
    let x = this._trackedFiles;
    if (x === null) { x = new Array<string>(); this._trackedFiles = x; }
    return x;
  }
  set trackedFiles(x: Array<string>) { this._trackedFiles = x; }
  private _trackedFiles: Array<string> | null = null;
  get expected(): Obj {
    let x = this._expected;
    if (x === null) { x = objOf(this._expectedV); this._expected = x; }
    return x;
  }
  set expected(x: Obj) { this._expected = x; }
  private _expected: Obj | null = null;
  _expectedV: Value | null = null;
  timeoutS: f64 = 0;
  reset: bool = false;
  get extra(): Obj {
    let x = this._extra;
    if (x === null) { x = objOf(this._extraV); this._extra = x; }
    return x;
  }
  set extra(x: Obj) { this._extra = x; }
  private _extra: Obj | null = null;
  _extraV: Value | null = null;

  toValue(): Value {
    const m = newObj();
    m.set("id", Value.str(this.id));
    m.set("arguments", strings(this.arguments));
    putStr(m, "checkpoint", this.checkpoint);
    putStr(m, "group", this.group);
    putStr(m, "group_type", this.groupType);
    const stdin = this.stdin;
    if (stdin !== null) m.set("stdin", Value.str(stdin));
    if (this.env.size > 0) {
      const env = newObj();
      const keys = this.env.keys();
      for (let i = 0; i < keys.length; i++) env.set(keys[i], Value.str(this.env.get(keys[i])));
      m.set("env", Value.object(env));
    }
    if (this.inputFiles.length > 0) {
      const fs = new Array<Value>();
      for (let i = 0; i < this.inputFiles.length; i++) {
        const f = this.inputFiles[i];
        const fm = newObj();
        fm.set("path", Value.str(f.path));
        fm.set("content", Value.str(f.content));
        putStr(fm, "encoding", f.encoding);
        fs.push(Value.object(fm));
      }
      m.set("input_files", Value.array(fs));
    }
    if (this.trackedFiles.length > 0) m.set("tracked_files", strings(this.trackedFiles));
    if (this.expected.size > 0) m.set("expected", Value.object(this.expected));
    if (this.timeoutS != 0) m.set("timeout_s", Value.float(this.timeoutS));
    if (this.reset) m.set("reset", Value.bool(true));
    if (this.extra.size > 0) m.set("extra", Value.object(this.extra));
    return Value.object(m);
  }
}

/** What a case produced. Its output and stderr are read from the input
 * when first asked for (outputUTF8 gives the output's bytes without
 * making a string of them). */
export class Actual {
  statusCode: i64 = 0;
  get output(): string {
    const x = this._output;
    if (x !== null) return x;
    const v = this._outputV;
    const t = v !== null ? v.s : "";
    this._output = t;
    return t;
  }
  set output(x: string) { this._output = x; this._outputV = null; }
  private _output: string | null = null;
  _outputV: Value | null = null;
  get stderr(): string {
    const x = this._stderr;
    if (x !== null) return x;
    const v = this._stderrV;
    const t = v !== null ? v.s : "";
    this._stderr = t;
    return t;
  }
  set stderr(x: string) { this._stderr = x; this._stderrV = null; }
  private _stderr: string | null = null;
  _stderrV: Value | null = null;
  get files(): Obj {
    let x = this._files;
    if (x === null) { x = objOf(this._filesV); this._files = x; }
    return x;
  }
  set files(x: Obj) { this._files = x; }
  private _files: Obj | null = null;
  _filesV: Value | null = null;
  timedOut: bool = false;
  /** The requests the problem's mock services received during the case,
   * in order (see MockCall). */
  mockCalls: Array<MockCall> = [];

  /** The output as UTF-8 bytes: parse(actual.outputUTF8()) reads it as
   * JSON without making a string of it first. */
  outputUTF8(): Uint8Array {
    const v = this._outputV;
    if (v !== null) return v.utf8();
    return Uint8Array.wrap(String.UTF8.encode(this.output));
  }
}

/** One request a mock service received in a case, kept as evidence of
 * what the submission sent and what it got back. Header names are
 * lowercase; the body is body when it is UTF-8 text, else bodyBase64. */
export class MockCall {
  mock: string = "";
  method: string = "";
  path: string = "";
  query: Map<string, Array<string>> = new Map<string, Array<string>>();
  headers: Map<string, Array<string>> = new Map<string, Array<string>>();
  body: string = "";
  bodyBase64: string = "";
  /** What the submission got back. */
  status: i64 = 0;
  /** The index of the declarative route that answered (-1: none matched,
   * or a plugin answered). */
  route: i64 = 0;
  /** No route matched, and the request was answered 501. */
  unmatched: bool = false;
  /** Why the mock could not answer (its plugin faulted). */
  fault: string = "";
}

export class VerifyInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = objOf(this._configV); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  _configV: Value | null = null;
  case: Case = new Case();
  actual: Actual = new Actual();
  get expected(): Obj {
    let x = this._expected;
    if (x === null) { x = objOf(this._expectedV); this._expected = x; }
    return x;
  }
  set expected(x: Obj) { this._expected = x; }
  private _expected: Obj | null = null;
  _expectedV: Value | null = null;
}

// The envelopes' fixed text, written with one copy each.
const L_ENTRIES = literal("{\"entries\":[");
const L_ENTRY = literal("{");
const L_NEXT_ENTRY = literal(",{");
const L_ENTRY_ACTUAL = literal("\"actual\":");
const L_ENTRY_EXPECTED = literal("\"expected\":");
const L_NEXT_EXPECTED = literal(",\"expected\":");
const L_OP = literal("\"op\":");
const L_NEXT_OP = literal(",\"op\":");
const L_PATH = literal(",\"path\":");
const L_ENTRIES_SUMMARY = literal("],\"summary\":");
const L_SUMMARY = literal("{\"summary\":");
const L_TRUNCATED = literal(",\"truncated\":true");
const L_UNIFIED = literal(",\"unified\":");
const L_ACTUAL = literal("{\"actual\":");
const L_ATTRIBUTE = literal(",\"attribute\":");
const L_DIFF = literal(",\"diff\":");
const L_EXPECTED = literal(",\"expected\":");
const L_CORRECT = literal(",\"is_correct\":true,\"weight\":");
const L_INCORRECT = literal(",\"is_correct\":false,\"weight\":");
const L_ATTRIBUTES = literal("{\"attributes\":[");
const L_ERROR = literal(",\"error\":");
const L_UNSCORED = literal(",\"unscored\":");

/** One difference at one location; Null values are left out. */
export class DiffEntry {
  path: string;
  op: string;
  expected: Value;
  actual: Value;
  constructor(path: string, op: string, expected: Value, actual: Value) {
    this.path = path; this.op = op; this.expected = expected; this.actual = actual;
  }
}

/** A structured difference: summary plus entries. */
export class Diff {
  summary: string = "";
  entries: Array<DiffEntry> = [];
  unified: string = "";
  truncated: bool = false;

  toValue(): Value {
    const m = newObj();
    m.set("summary", Value.str(this.summary));
    if (this.entries.length > 0) {
      const es = new Array<Value>();
      for (let i = 0; i < this.entries.length; i++) {
        const e = this.entries[i];
        const em = newObj();
        em.set("path", Value.str(e.path));
        em.set("op", Value.str(e.op));
        if (!e.expected.isNull()) em.set("expected", e.expected);
        if (!e.actual.isNull()) em.set("actual", e.actual);
        es.push(Value.object(em));
      }
      m.set("entries", Value.array(es));
    }
    putStr(m, "unified", this.unified);
    if (this.truncated) m.set("truncated", Value.bool(true));
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue() (members in key order). */
  writeTo(w: ByteWriter): bool {
    const n = this.entries.length;
    if (n > 0) {
      w.lit(L_ENTRIES);
      for (let i = 0; i < n; i++) {
        const e = unchecked(this.entries[i]);
        w.lit(i > 0 ? L_NEXT_ENTRY : L_ENTRY);
        let sep = false;
        if (!e.actual.isNull()) {
          w.lit(L_ENTRY_ACTUAL);
          if (!w.value(e.actual)) return false;
          sep = true;
        }
        if (!e.expected.isNull()) {
          w.lit(sep ? L_NEXT_EXPECTED : L_ENTRY_EXPECTED);
          if (!w.value(e.expected)) return false;
          sep = true;
        }
        w.lit(sep ? L_NEXT_OP : L_OP);
        w.quote(e.op);
        w.lit(L_PATH);
        w.quote(e.path);
        w.byte(0x7d);
      }
      w.lit(L_ENTRIES_SUMMARY);
    } else {
      w.lit(L_SUMMARY);
    }
    w.quote(this.summary);
    if (this.truncated) w.lit(L_TRUNCATED);
    if (this.unified.length > 0) {
      w.lit(L_UNIFIED);
      w.quote(this.unified);
    }
    w.byte(0x7d);
    return true;
  }
}

/** One attribute verdict, the shape built-in checks give. */
export class Attribute {
  attribute: string = "";
  /** Null until set. */
  get actual(): Value {
    let v = this._actual;
    if (v === null) { v = Value.null(); this._actual = v; }
    return v;
  }
  set actual(v: Value) { this._actual = v; }
  private _actual: Value | null = null;
  /** Null until set. */
  get expected(): Value {
    let v = this._expected;
    if (v === null) { v = Value.null(); this._expected = v; }
    return v;
  }
  set expected(v: Value) { this._expected = v; }
  private _expected: Value | null = null;
  diff: Diff | null = null;
  isCorrect: bool = false;
  weight: f64 = 1;

  toValue(): Value {
    const m = newObj();
    m.set("attribute", Value.str(this.attribute));
    m.set("actual", this.actual);
    m.set("expected", this.expected);
    const d = this.diff;
    if (d !== null) m.set("diff", d.toValue());
    m.set("is_correct", Value.bool(this.isCorrect));
    m.set("weight", Value.float(this.weight));
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue() (members in key order). */
  writeTo(w: ByteWriter): bool {
    w.lit(L_ACTUAL);
    if (!w.value(this.actual)) return false;
    w.lit(L_ATTRIBUTE);
    w.quote(this.attribute);
    const d = this.diff;
    if (d !== null) {
      w.lit(L_DIFF);
      if (!d.writeTo(w)) return false;
    }
    w.lit(L_EXPECTED);
    if (!w.value(this.expected)) return false;
    w.lit(this.isCorrect ? L_CORRECT : L_INCORRECT);
    if (!w.float(this.weight)) return false;
    w.byte(0x7d);
    return true;
  }
}

export class VerifyOutput {
  attributes: Array<Attribute> = [];
  /** A deliberate verdict: the case cannot be verified. */
  error: string = "";
  /** Why the plugin cannot judge this case at all (no reference answer, a
   * case outside what it checks); empty when it judged it. When set, the
   * case is unscored: neither passed nor failed, and left out of every
   * denominator. Written as `unscored`, after `error`. */
  unscored: string = "";

  toValue(): Value {
    const m = newObj();
    const as = new Array<Value>();
    for (let i = 0; i < this.attributes.length; i++) as.push(this.attributes[i].toValue());
    m.set("attributes", Value.array(as));
    putStr(m, "error", this.error);
    putStr(m, "unscored", this.unscored);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue() (members in key order): the
   * verify output, the busiest envelope, is written without building it
   * as a value first. */
  writeTo(w: ByteWriter): bool {
    w.lit(L_ATTRIBUTES);
    for (let i = 0, n = this.attributes.length; i < n; i++) {
      if (i > 0) w.byte(0x2c);
      if (!unchecked(this.attributes[i]).writeTo(w)) return false;
    }
    w.byte(0x5d);
    if (this.error.length > 0) {
      w.lit(L_ERROR);
      w.quote(this.error);
    }
    if (this.unscored.length > 0) {
      w.lit(L_UNSCORED);
      w.quote(this.unscored);
    }
    w.byte(0x7d);
    return true;
  }
}

/** The group a loader is asked for: `checkpoint` and `group` are the group
 * being run, the `origin*` fields and `dir` where its cases come from. */
export class GroupInfo {
  checkpoint: string = "";
  group: string = "";
  groupType: string = "";
  caseGroup: string = "";
  caseOrder: Array<string> = [];
  timeoutS: f64 = 0;
  /** The checkpoint whose cases the group runs (`origin_checkpoint`): the
   * earlier checkpoint for a regression group, `checkpoint` otherwise. */
  originCheckpoint: string = "";
  /** The group of `originCheckpoint` whose cases the group runs
   * (`origin_group`): the earlier group for a regression group,
   * `caseGroup` (the group's own name) otherwise. */
  originGroup: string = "";
  /** The origin group's case directory relative to the problem directory,
   * with `/` separators (`c1/core`; a group file is `dir` plus `.yaml`,
   * `.yml` or `.json`), the path `readAsset` takes; empty when it is
   * outside the problem directory. */
  dir: string = "";
}

/** An earlier case with its actual result. */
export class Outcome {
  case: Case = new Case();
  actual: Actual = new Actual();
}

export class LoadInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = objOf(this._configV); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  _configV: Value | null = null;
  group: GroupInfo = new GroupInfo();
  history: Array<Outcome> = [];
  /** The run's --seed, for loaders that generate cases; hasSeed is false
   * without one. */
  seed: i64 = 0;
  hasSeed: bool = false;
}

export class LoadOutput {
  cases: Array<Case> = [];
  done: bool = false;
  error: string = "";

  toValue(): Value {
    const m = newObj();
    const cs = new Array<Value>();
    for (let i = 0; i < this.cases.length; i++) cs.push(this.cases[i].toValue());
    m.set("cases", Value.array(cs));
    m.set("done", Value.bool(this.done));
    putStr(m, "error", this.error);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue(). */
  writeTo(w: ByteWriter): bool { return w.value(this.toValue()); }
}

export class EvaluateInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = objOf(this._configV); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  _configV: Value | null = null;
  function: string = "";
  get arguments(): Obj {
    let x = this._arguments;
    if (x === null) { x = objOf(this._argumentsV); this._arguments = x; }
    return x;
  }
  set arguments(x: Obj) { this._arguments = x; }
  private _arguments: Obj | null = null;
  _argumentsV: Value | null = null;
  case: Case | null = null;
  actual: Actual | null = null;
  get expected(): Obj {
    let x = this._expected;
    if (x === null) { x = objOf(this._expectedV); this._expected = x; }
    return x;
  }
  set expected(x: Obj) { this._expected = x; }
  private _expected: Obj | null = null;
  _expectedV: Value | null = null;
}

export class EvaluateOutput {
  score: f64 = 0;
  /** Null for no details. */
  details: Value = Value.null();
  error: string = "";
  /** Why the function cannot judge this case, as VerifyOutput's
   * `unscored`; empty when it judged it. The score is then not counted. */
  unscored: string = "";

  toValue(): Value {
    const m = newObj();
    m.set("score", Value.float(this.score));
    if (!this.details.isNull()) m.set("details", this.details);
    putStr(m, "error", this.error);
    putStr(m, "unscored", this.unscored);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue(). */
  writeTo(w: ByteWriter): bool { return w.value(this.toValue()); }
}

/** A tool invocation inside a message. */
export class ToolCall {
  name: string = "";
  /** The parsed arguments; their text when they are not JSON. */
  arguments: Value = Value.null();
  /** The call's id; "" when the agent gave none. */
  id: string = "";
  /** The arguments' text as the agent wrote it. */
  rawArguments: string = "";
  /** Why rawArguments is not JSON; "" when it is. */
  argumentsError: string = "";
}

/** What a tool returned for one call. */
export class ToolResult {
  /** The id of the call answered. */
  toolCallId: string = "";
  /** The tool's name. */
  name: string = "";
  /** The result's text. */
  content: string = "";
  /** content parsed, when it is one JSON value; null otherwise. */
  json: Value = Value.null();
  isError: bool = false;
}

/** One turn of an agent's conversation. */
export class Message {
  role: string = "";
  content: string = "";
  toolCalls: Array<ToolCall> = [];
  name: string = "";
  /** On a role "tool" message, the id of the call it answers. */
  toolCallId: string = "";
  /** The tool results the message carries. */
  toolResults: Array<ToolResult> = [];
}

/** An agent's answer and the rule that found it (see findAnswer). */
export class Answer {
  value: Value = Value.null();
  /** One of the RULE_… names. */
  rule: string = "";
  /** Whether a rule found an answer. */
  get found(): bool { return this.rule.length > 0 && this.rule != "none"; }
}

/** The tokens and money an agent spent, as it reported them. */
export class Usage {
  inputTokens: i64 = 0;
  outputTokens: i64 = 0;
  totalTokens: i64 = 0;
  /** In US dollars; 0 when not reported. */
  cost: f64 = 0;
}

/** An agent run, judged by a test function. */
export class AgentRun {
  taskResult: Value = Value.null();
  conversation: Array<Message> = [];
  executionTrace: Array<Value> = [];
  status: string = "";
  instruction: string = "";
  iterations: i64 = 0;
  sandbox: Value = Value.null();
  taskName: string = "";
  /** The answer the engine found; null from hosts that do not send it
   * (findAnswer then finds it by the same rule). */
  answer: Answer | null = null;
  usage: Usage | null = null;
  /** The agent's wall time; 0 when not reported. */
  elapsedSeconds: f64 = 0;
}

export class TestInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = objOf(this._configV); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  _configV: Value | null = null;
  result: AgentRun = new AgentRun();
}

export class TestOutput {
  passed: bool = false;
  feedback: string = "";
  /** Null for no details. */
  details: Value = Value.null();
  /** Why the function cannot judge this run, as VerifyOutput's
   * `unscored`; empty when it judged it. `passed` is then not counted. */
  unscored: string = "";

  toValue(): Value {
    const m = newObj();
    m.set("passed", Value.bool(this.passed));
    m.set("feedback", Value.str(this.feedback));
    if (!this.details.isNull()) m.set("details", this.details);
    putStr(m, "unscored", this.unscored);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue(). */
  writeTo(w: ByteWriter): bool { return w.value(this.toValue()); }
}

/** The task a setup function prepares the sandbox for. `files` are the
 * task directory's files, relative to it with `/` separators, as
 * readAsset takes them. */
export class SetupTask {
  id: string = "";
  instruction: string = "";
  files: Array<string> = [];
}

/** The input of `setup`: a named setup function of a task spec with its
 * arguments, and the task it prepares the sandbox for. */
export class SetupInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = objOf(this._configV); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  _configV: Value | null = null;
  function: string = "";
  get arguments(): Obj {
    let x = this._arguments;
    if (x === null) { x = objOf(this._argumentsV); this._arguments = x; }
    return x;
  }
  set arguments(x: Obj) { this._arguments = x; }
  private _arguments: Obj | null = null;
  _argumentsV: Value | null = null;
  task: SetupTask = new SetupTask();
}

/** Writes a file into the sandbox: `path` relative to its working
 * directory, `/`-separated, inside it; the bytes are `content` (text) or,
 * when set, `contentBase64` (any bytes, base64). */
export class SetupWrite {
  path: string = "";
  content: string = "";
  contentBase64: string = "";
}

/** Runs a program with its arguments in the sandbox's working directory
 * (no shell: ["sh", "-c", line] for one); it must exit 0. */
export class SetupRun {
  command: Array<string> = [];
}

/** One action of a setup output: exactly one of write and run. */
export class SetupAction {
  write: SetupWrite | null = null;
  run: SetupRun | null = null;

  toValue(): Value {
    const m = newObj();
    const w = this.write;
    if (w !== null) {
      const wm = newObj();
      wm.set("path", Value.str(w.path));
      if (w.contentBase64.length > 0) wm.set("content_base64", Value.str(w.contentBase64));
      else wm.set("content", Value.str(w.content));
      m.set("write", Value.object(wm));
    }
    const r = this.run;
    if (r !== null) {
      const rm = newObj();
      rm.set("command", strings(r.command));
      m.set("run", Value.object(rm));
    }
    return Value.object(m);
  }
}

/** The output of `setup`: the actions that prepare the sandbox, which
 * wasmeval performs in order (a setup plugin never touches the sandbox
 * itself). `error`, when set, says the function cannot prepare this task:
 * the task cannot run, and the message says why; it is not a fault of the
 * plugin. */
export class SetupOutput {
  actions: Array<SetupAction> = [];
  error: string = "";

  toValue(): Value {
    const m = newObj();
    const a = new Array<Value>();
    for (let i = 0; i < this.actions.length; i++) a.push(this.actions[i].toValue());
    m.set("actions", Value.array(a));
    putStr(m, "error", this.error);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue(). */
  writeTo(w: ByteWriter): bool { return w.value(this.toValue()); }
}

/** An HTTP request as a mock received it. Header names are lowercase; a
 * header or query parameter given more than once has each value, in
 * order. The body is `body` when it is UTF-8 text, else `bodyBase64`. */
export class MockRequest {
  method: string = "";
  path: string = "";
  query: Map<string, Array<string>> = new Map<string, Array<string>>();
  headers: Map<string, Array<string>> = new Map<string, Array<string>>();
  body: string = "";
  bodyBase64: string = "";
}

/** The input of `mock`: one HTTP request a submission sent to a mock
 * service, with the state the mock's previous answer in the same group
 * left. A mock keeps no state of its own between calls: what it must
 * remember goes out in MockOutput.state and comes back in the next call's
 * state. */
export class MockInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = objOf(this._configV); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  _configV: Value | null = null;
  /** The mock service's name in the problem. */
  mock: string = "";
  request: MockRequest = new MockRequest();
  /** How many requests this mock answered before in the group. */
  call: i64 = 0;
  /** What the mock's previous answer in the group left (null at first). */
  state: Value = Value.null();
}

/** The HTTP response a mock sends: its body is `body` (text) or, when set,
 * `bodyBase64` (any bytes); `delayMs` holds it back that long. */
export class MockResponse {
  status: i32 = 0;
  headers: Map<string, string> = new Map<string, string>();
  body: string = "";
  bodyBase64: string = "";
  delayMs: i32 = 0;
}

/** The output of `mock`: the response, and the state the next call of
 * this mock in the group gets (null for none). `error`, when set, says the
 * mock cannot answer this request: the case is an error, and the output
 * holds nothing else. */
export class MockOutput {
  response: MockResponse = new MockResponse();
  state: Value = Value.null();
  error: string = "";

  toValue(): Value {
    const m = newObj();
    if (this.error.length > 0) {
      m.set("error", Value.str(this.error));
      return Value.object(m);
    }
    const r = this.response;
    const rm = newObj();
    rm.set("status", Value.int(r.status));
    const hm = newObj();
    const keys = r.headers.keys();
    for (let i = 0; i < keys.length; i++) hm.set(keys[i], Value.str(r.headers.get(keys[i])));
    rm.set("headers", Value.object(hm));
    if (r.bodyBase64.length > 0) rm.set("body_base64", Value.str(r.bodyBase64));
    else rm.set("body", Value.str(r.body));
    if (r.delayMs != 0) rm.set("delay_ms", Value.int(r.delayMs));
    m.set("response", Value.object(rm));
    if (!this.state.isNull()) m.set("state", this.state);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue(). */
  writeTo(w: ByteWriter): bool { return w.value(this.toValue()); }
}

function putStr(m: Obj, k: string, v: string): void {
  if (v.length > 0) m.set(k, Value.str(v));
}

function strings(a: Array<string>): Value {
  const out = new Array<Value>();
  for (let i = 0; i < a.length; i++) out.push(Value.str(a[i]));
  return Value.array(out);
}

/** The JSON type of a value with its article, as messages name it. */
export function typeName(v: Value): string {
  switch (v.kind) {
    case Kind.Null: return "null";
    case Kind.Bool: return "a boolean";
    case Kind.String: return "a string";
    case Kind.Number: case Kind.Float: return "a number";
    case Kind.Array: return "an array";
  }
  return "an object";
}

/** Set when a decode function returns null: why the input was refused. */
export let decodeError: string = "";

// The envelopes' keys, each object's found in one pass over its members.
const VERIFY_KEYS = new KeySet(["abi_version", "config", "case", "actual", "expected"]);
const CASE_KEYS = new KeySet(["id", "checkpoint", "group", "group_type", "arguments", "stdin", "env", "input_files",
  "tracked_files", "expected", "timeout_s", "reset", "extra"]);
const FILE_KEYS = new KeySet(["path", "content", "encoding"]);
const ACTUAL_KEYS = new KeySet(["status_code", "output", "stderr", "files", "timed_out", "mock_calls"]);
const MOCK_CALL_KEYS = new KeySet(["mock", "method", "path", "query", "headers", "body", "body_base64", "status",
  "route", "unmatched", "fault"]);
const LOAD_KEYS = new KeySet(["abi_version", "config", "group", "history", "seed"]);
const GROUP_KEYS = new KeySet(["checkpoint", "group", "group_type", "case_group", "case_order", "timeout_s",
  "origin_checkpoint", "origin_group", "dir"]);
const OUTCOME_KEYS = new KeySet(["case", "actual"]);
const EVALUATE_KEYS = new KeySet(["abi_version", "config", "function", "arguments", "expected", "case", "actual"]);
const TEST_KEYS = new KeySet(["abi_version", "config", "result"]);
const MOCK_KEYS = new KeySet(["abi_version", "config", "mock", "request", "call", "state"]);
const REQUEST_KEYS = new KeySet(["method", "path", "query", "headers", "body", "body_base64"]);
const SETUP_KEYS = new KeySet(["abi_version", "config", "function", "arguments", "task"]);
const TASK_KEYS = new KeySet(["id", "instruction", "files"]);
const RESULT_KEYS = new KeySet(["task_result", "status", "instruction", "iterations", "sandbox", "execution_trace",
  "conversation", "task_name", "answer", "usage", "elapsed_seconds"]);
const MESSAGE_KEYS = new KeySet(["role", "content", "name", "tool_calls", "tool_call_id", "tool_results"]);
const TOOL_CALL_KEYS = new KeySet(["name", "arguments", "id", "raw_arguments", "arguments_error"]);
const TOOL_RESULT_KEYS = new KeySet(["tool_call_id", "name", "content", "json", "is_error"]);
const ANSWER_KEYS = new KeySet(["value", "rule"]);
const USAGE_KEYS = new KeySet(["input_tokens", "output_tokens", "total_tokens", "cost"]);

// Decoding is not reentrant: one decoder serves every envelope.
const decoder = new Decoder();

// The members found, for each object being decoded: a stack of slots.
let slots = new StaticArray<i32>(128);
let slotTop = 0;

/** Decodes an input's document (its tape), with the first shape error
 * remembered, visiting fields in the same order as the other SDKs so the
 * message is the same. A field is a node (-1 when absent). A value's path
 * is given in parts, the enclosing path, the field's suffix (".id") and an
 * index (-1 for none), and is put together only for the message. Objects
 * and long strings are kept as values of the document, read when asked
 * for. */
class Decoder {
  d: Doc = changetype<Doc>(0); // set by start
  err: string = "";
  /** Starts decoding document d. */
  start(d: Doc): Decoder {
    this.d = d;
    this.err = "";
    slotTop = 0;
    return this;
  }
  kind(i: i32): Kind { return i < 0 ? Kind.Null : this.d.kind(i); }
  bad(path: string, key: string, at: i32, i: i32, want: string): void {
    if (this.err.length == 0) this.err = joinPath(path, key, at) + " is " + kindTypeName(this.kind(i)) + ", expected " + want;
  }
  /** Finds the keys of set in object node i (-1 for none): slot(at, j) is
   * key j's value node. Release with done(at). */
  fields(i: i32, set: KeySet): i32 {
    const at = slotTop;
    const need = at + set.size;
    if (need > slots.length) {
      const ns = new StaticArray<i32>(max(need, slots.length << 1));
      memory.copy(changetype<usize>(ns), changetype<usize>(slots), <usize>at << 2);
      slots = ns;
    }
    if (i >= 0) this.d.fields(i, set, slots, at);
    else memory.fill(changetype<usize>(slots) + (<usize>at << 2), 0xff, <usize>set.size << 2);
    slotTop = need;
    return at;
  }
  // @ts-ignore: decorator
  @inline slot(at: i32, j: i32): i32 { return unchecked(slots[at + j]); }
  // @ts-ignore: decorator
  @inline done(at: i32): void { slotTop = at; }
  /** An object node, or -1 for null (or a wrong type, noted). */
  obj(path: string, key: string, i: i32, at: i32 = -1): i32 {
    const k = this.kind(i);
    if (k == Kind.Null) return -1;
    if (k == Kind.Object) return i;
    this.bad(path, key, at, i, "an object");
    return -1;
  }
  /** An object as a value of the document, or null. */
  map(path: string, key: string, i: i32): Value | null {
    const o = this.obj(path, key, i);
    return o < 0 ? null : Value.at(this.d, o);
  }
  /** A string as a value of the document, or null (for ""). */
  text(path: string, key: string, i: i32): Value | null {
    const k = this.kind(i);
    if (k == Kind.String) return Value.at(this.d, i);
    if (k != Kind.Null) this.bad(path, key, -1, i, "a string");
    return null;
  }
  str(path: string, key: string, i: i32, at: i32 = -1): string {
    const k = this.kind(i);
    if (k == Kind.Null) return "";
    if (k == Kind.String) return this.d.text(i);
    this.bad(path, key, at, i, "a string");
    return "";
  }
  bool(path: string, key: string, i: i32): bool {
    const k = this.kind(i);
    if (k == Kind.Null) return false;
    if (k == Kind.Bool) return this.d.a(i) != 0;
    this.bad(path, key, -1, i, "a boolean");
    return false;
  }
  float(path: string, key: string, i: i32): f64 {
    const k = this.kind(i);
    if (k == Kind.Null) return 0;
    if (k == Kind.Number) return parseNumberAt<u8>(this.d.ptr(i), this.d.size(i));
    this.bad(path, key, -1, i, "a number");
    return 0;
  }
  integer(path: string, key: string, i: i32): i64 {
    const f = this.float(path, key, i);
    if (f != Math.trunc(f) || Math.abs(f) > 9007199254740992) {
      if (this.err.length == 0) this.err = joinPath(path, key, -1) + " is a number, expected an integer";
      return 0;
    }
    return <i64>f;
  }
  /** An array node's element count, or 0 for null (or a wrong type,
   * noted); its first element is node i + 1. */
  arr(path: string, key: string, i: i32): i32 {
    const k = this.kind(i);
    if (k == Kind.Array) return this.d.a(i);
    if (k != Kind.Null) this.bad(path, key, -1, i, "an array");
    return 0;
  }
  /** An array as values of the document. */
  values(path: string, key: string, i: i32): Array<Value> {
    const n = this.arr(path, key, i);
    const out = new Array<Value>(n);
    for (let j = 0, c = i + 1; j < n; j++) { unchecked(out[j] = Value.at(this.d, c)); c = this.d.next(c); }
    return out;
  }
  strs(path: string, key: string, i: i32): Array<string> {
    const n = this.arr(path, key, i);
    const out = new Array<string>(n);
    for (let j = 0, c = i + 1; j < n; j++) { unchecked(out[j] = this.str(path, key, c, j)); c = this.d.next(c); }
    return out;
  }
  /** Decodes a case into c. */
  caseInto(c: Case, path: string, i: i32): void {
    const m = this.obj(path, "", i);
    if (m < 0) return;
    const f = this.fields(m, CASE_KEYS);
    c.id = this.str(path, ".id", this.slot(f, 0));
    c.checkpoint = this.str(path, ".checkpoint", this.slot(f, 1));
    c.group = this.str(path, ".group", this.slot(f, 2));
    c.groupType = this.str(path, ".group_type", this.slot(f, 3));
    c.arguments = this.strs(path, ".arguments", this.slot(f, 4));
    const stdin = this.slot(f, 5);
    if (this.kind(stdin) != Kind.Null) c.stdin = this.str(path, ".stdin", stdin);
    const env = this.obj(path, ".env", this.slot(f, 6));
    if (env >= 0) {
      const ev = Value.at(this.d, env).obj;
      const keys = sortedKeysOf(ev);
      for (let k = 0; k < keys.length; k++) {
        const v = ev.get(keys[k]);
        if (v.kind == Kind.String) c.env.set(keys[k], v.s);
        else {
          if (this.err.length == 0 && v.kind != Kind.Null) this.err = childPath(path + ".env", keys[k]) + " is " + typeName(v) + ", expected a string";
          c.env.set(keys[k], "");
        }
      }
    }
    const files = this.slot(f, 7);
    const nf = this.arr(path, ".input_files", files);
    for (let k = 0, fi = files + 1; k < nf; k++) {
      const fm = this.obj(path, ".input_files", fi, k);
      const file = new InputFile();
      if (fm >= 0) {
        const fp = joinPath(path, ".input_files", k);
        const g = this.fields(fm, FILE_KEYS);
        file.path = this.str(fp, ".path", this.slot(g, 0));
        file.content = this.str(fp, ".content", this.slot(g, 1));
        file.encoding = this.str(fp, ".encoding", this.slot(g, 2));
        this.done(g);
      }
      c.inputFiles.push(file);
      fi = this.d.next(fi);
    }
    const tracked = this.slot(f, 8);
    if (this.kind(tracked) != Kind.Null) c.trackedFiles = this.strs(path, ".tracked_files", tracked);
    c._expectedV = this.map(path, ".expected", this.slot(f, 9));
    c.timeoutS = this.float(path, ".timeout_s", this.slot(f, 10));
    c.reset = this.bool(path, ".reset", this.slot(f, 11));
    c._extraV = this.map(path, ".extra", this.slot(f, 12));
    this.done(f);
  }
  case(path: string, i: i32): Case {
    const c = new Case();
    this.caseInto(c, path, i);
    return c;
  }
  /** Decodes an actual result into a. */
  actualInto(a: Actual, path: string, i: i32): void {
    const m = this.obj(path, "", i);
    if (m < 0) return;
    const f = this.fields(m, ACTUAL_KEYS);
    a.statusCode = this.integer(path, ".status_code", this.slot(f, 0));
    a._outputV = this.text(path, ".output", this.slot(f, 1));
    a._stderrV = this.text(path, ".stderr", this.slot(f, 2));
    a._filesV = this.map(path, ".files", this.slot(f, 3));
    a.timedOut = this.bool(path, ".timed_out", this.slot(f, 4));
    // The calls, each call's fields in the order every SDK visits them,
    // so the first shape error is the same.
    const calls = this.slot(f, 5);
    const nc = this.arr(path, ".mock_calls", calls);
    a.mockCalls = new Array<MockCall>();
    for (let k = 0, ci = calls + 1; k < nc; k++) {
      const cm = this.obj(path, ".mock_calls", ci, k);
      const call = new MockCall();
      if (cm >= 0) {
        const cp = joinPath(path, ".mock_calls", k);
        const g = this.fields(cm, MOCK_CALL_KEYS);
        call.mock = this.str(cp, ".mock", this.slot(g, 0));
        call.method = this.str(cp, ".method", this.slot(g, 1));
        call.path = this.str(cp, ".path", this.slot(g, 2));
        call.query = strsMapAt(this, cp + ".query", this.slot(g, 3));
        call.headers = strsMapAt(this, cp + ".headers", this.slot(g, 4));
        call.body = this.str(cp, ".body", this.slot(g, 5));
        call.bodyBase64 = this.str(cp, ".body_base64", this.slot(g, 6));
        call.status = this.integer(cp, ".status", this.slot(g, 7));
        call.route = this.integer(cp, ".route", this.slot(g, 8));
        call.unmatched = this.bool(cp, ".unmatched", this.slot(g, 9));
        call.fault = this.str(cp, ".fault", this.slot(g, 10));
        this.done(g);
      }
      a.mockCalls.push(call);
      ci = this.d.next(ci);
    }
    this.done(f);
  }
  actual(path: string, i: i32): Actual {
    const a = new Actual();
    this.actualInto(a, path, i);
    return a;
  }
  /** The envelope's object (node i), or -1 when it is not one (noted). */
  top(i: i32): i32 {
    if (this.d.kind(i) == Kind.Object) return i;
    this.bad("$", "", -1, i, "an object");
    return -1;
  }
}

/** path + key, then [at] when at >= 0. */
function joinPath(path: string, key: string, at: i32): string {
  const p = key.length > 0 ? path + key : path;
  return at >= 0 ? p + "[" + at.toString() + "]" : p;
}

function kindTypeName(k: Kind): string {
  switch (k) {
    case Kind.Null: return "null";
    case Kind.Bool: return "a boolean";
    case Kind.String: return "a string";
    case Kind.Number: case Kind.Float: return "a number";
    case Kind.Array: return "an array";
  }
  return "an object";
}

function sortedKeysOf(m: Obj): Array<string> {
  const keys = m.keys();
  keys.sort((a: string, b: string): i32 => {
    const n = min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      let x = a.charCodeAt(i), y = b.charCodeAt(i);
      if (x == y) continue;
      if (x >= 0xd800 && x <= 0xdfff) x += 0x2000; else if (x >= 0xe000) x -= 0x800;
      if (y >= 0xd800 && y <= 0xdfff) y += 0x2000; else if (y >= 0xe000) y -= 0x800;
      return x - y;
    }
    return a.length - b.length;
  });
  return keys;
}

function field(m: Obj, k: string): Value {
  return m.has(k) ? m.get(k) : Value.null();
}

/** The input's document, or null with decodeError set. */
export function parseInput(data: Uint8Array): Doc | null {
  const d = parseInputDoc(data);
  if (d === null) decodeError = "invalid input: " + parseError;
  return d;
}

function finish(d: Decoder): bool {
  if (d.err.length > 0) { decodeError = "invalid input: " + d.err; return false; }
  return true;
}

/** Decodes a verify input envelope; null (with decodeError) when refused. */
export function decodeVerifyInput(data: Uint8Array): VerifyInput | null {
  const d = parseInput(data);
  return d === null ? null : verifyInputAt(d, 0);
}

/** Decodes the verify input envelope at node i of a document (the root,
 * or a call of a batch). */
export function verifyInputAt(doc: Doc, i: i32): VerifyInput | null {
  const d = decoder.start(doc);
  const f = d.fields(d.top(i), VERIFY_KEYS);
  const r = new VerifyInput();
  r.abiVersion = d.integer("$", ".abi_version", d.slot(f, 0));
  r._configV = d.map("$", ".config", d.slot(f, 1));
  d.caseInto(r.case, "$.case", d.slot(f, 2));
  d.actualInto(r.actual, "$.actual", d.slot(f, 3));
  r._expectedV = d.map("$", ".expected", d.slot(f, 4));
  d.done(f);
  return finish(d) ? r : null;
}

/** Decodes a load_cases input envelope. */
export function decodeLoadInput(data: Uint8Array): LoadInput | null {
  const d = parseInput(data);
  return d === null ? null : loadInputAt(d, 0);
}

export function loadInputAt(doc: Doc, i: i32): LoadInput | null {
  const d = decoder.start(doc);
  const f = d.fields(d.top(i), LOAD_KEYS);
  const r = new LoadInput();
  r.abiVersion = d.integer("$", ".abi_version", d.slot(f, 0));
  r._configV = d.map("$", ".config", d.slot(f, 1));
  const g = d.obj("$", ".group", d.slot(f, 2));
  if (g >= 0) {
    const gf = d.fields(g, GROUP_KEYS);
    r.group.checkpoint = d.str("$.group", ".checkpoint", d.slot(gf, 0));
    r.group.group = d.str("$.group", ".group", d.slot(gf, 1));
    r.group.groupType = d.str("$.group", ".group_type", d.slot(gf, 2));
    r.group.caseGroup = d.str("$.group", ".case_group", d.slot(gf, 3));
    r.group.caseOrder = d.strs("$.group", ".case_order", d.slot(gf, 4));
    r.group.timeoutS = d.float("$.group", ".timeout_s", d.slot(gf, 5));
    r.group.originCheckpoint = d.str("$.group", ".origin_checkpoint", d.slot(gf, 6));
    r.group.originGroup = d.str("$.group", ".origin_group", d.slot(gf, 7));
    r.group.dir = d.str("$.group", ".dir", d.slot(gf, 8));
    d.done(gf);
  }
  const hist = d.slot(f, 3);
  const nh = d.arr("$", ".history", hist);
  for (let k = 0, h = hist + 1; k < nh; k++) {
    const hm = d.obj("$", ".history", h, k);
    const o = new Outcome();
    if (hm >= 0) {
      const p = joinPath("$", ".history", k);
      const hf = d.fields(hm, OUTCOME_KEYS);
      o.case = d.case(p + ".case", d.slot(hf, 0));
      o.actual = d.actual(p + ".actual", d.slot(hf, 1));
      d.done(hf);
    }
    r.history.push(o);
    h = doc.next(h);
  }
  const seed = d.slot(f, 4);
  if (d.kind(seed) != Kind.Null) {
    r.seed = d.integer("$", ".seed", seed);
    r.hasSeed = true;
  }
  d.done(f);
  return finish(d) ? r : null;
}

/** Decodes an evaluate input envelope. */
export function decodeEvaluateInput(data: Uint8Array): EvaluateInput | null {
  const d = parseInput(data);
  return d === null ? null : evaluateInputAt(d, 0);
}

export function evaluateInputAt(doc: Doc, i: i32): EvaluateInput | null {
  const d = decoder.start(doc);
  const f = d.fields(d.top(i), EVALUATE_KEYS);
  const r = new EvaluateInput();
  r.abiVersion = d.integer("$", ".abi_version", d.slot(f, 0));
  r._configV = d.map("$", ".config", d.slot(f, 1));
  r.function = d.str("$", ".function", d.slot(f, 2));
  r._argumentsV = d.map("$", ".arguments", d.slot(f, 3));
  r._expectedV = d.map("$", ".expected", d.slot(f, 4));
  const c = d.slot(f, 5);
  if (d.kind(c) != Kind.Null) r.case = d.case("$.case", c);
  const a = d.slot(f, 6);
  if (d.kind(a) != Kind.Null) r.actual = d.actual("$.actual", a);
  d.done(f);
  return finish(d) ? r : null;
}

/** Decodes a test input envelope. */
export function decodeTestInput(data: Uint8Array): TestInput | null {
  const d = parseInput(data);
  return d === null ? null : testInputAt(d, 0);
}

export function testInputAt(doc: Doc, i: i32): TestInput | null {
  const d = decoder.start(doc);
  const f = d.fields(d.top(i), TEST_KEYS);
  const r = new TestInput();
  r.abiVersion = d.integer("$", ".abi_version", d.slot(f, 0));
  r._configV = d.map("$", ".config", d.slot(f, 1));
  const res = d.obj("$", ".result", d.slot(f, 2));
  if (res >= 0) {
    const run = r.result;
    const rf = d.fields(res, RESULT_KEYS);
    run.taskResult = valueAt(doc, d.slot(rf, 0));
    run.status = d.str("$.result", ".status", d.slot(rf, 1));
    run.instruction = d.str("$.result", ".instruction", d.slot(rf, 2));
    run.iterations = d.integer("$.result", ".iterations", d.slot(rf, 3));
    run.sandbox = valueAt(doc, d.slot(rf, 4));
    run.executionTrace = d.values("$.result", ".execution_trace", d.slot(rf, 5));
    const conv = d.slot(rf, 6);
    const nc = d.arr("$.result", ".conversation", conv);
    for (let k = 0, c = conv + 1; k < nc; k++) {
      run.conversation.push(messageAt(d, doc, c, k));
      c = doc.next(c);
    }
    run.taskName = d.str("$.result", ".task_name", d.slot(rf, 7));
    const ans = d.obj("$.result", ".answer", d.slot(rf, 8));
    if (ans >= 0) {
      const af = d.fields(ans, ANSWER_KEYS);
      const a = new Answer();
      a.value = valueAt(doc, d.slot(af, 0));
      a.rule = d.str("$.result.answer", ".rule", d.slot(af, 1));
      run.answer = a;
      d.done(af);
    }
    const use = d.obj("$.result", ".usage", d.slot(rf, 9));
    if (use >= 0) {
      const uf = d.fields(use, USAGE_KEYS);
      const u = new Usage();
      u.inputTokens = d.integer("$.result.usage", ".input_tokens", d.slot(uf, 0));
      u.outputTokens = d.integer("$.result.usage", ".output_tokens", d.slot(uf, 1));
      u.totalTokens = d.integer("$.result.usage", ".total_tokens", d.slot(uf, 2));
      u.cost = d.float("$.result.usage", ".cost", d.slot(uf, 3));
      run.usage = u;
      d.done(uf);
    }
    run.elapsedSeconds = d.float("$.result", ".elapsed_seconds", d.slot(rf, 10));
    d.done(rf);
  }
  d.done(f);
  return finish(d) ? r : null;
}

/** Decodes a setup input envelope. */
export function decodeSetupInput(data: Uint8Array): SetupInput | null {
  const d = parseInput(data);
  return d === null ? null : setupInputAt(d, 0);
}

export function setupInputAt(doc: Doc, i: i32): SetupInput | null {
  const d = decoder.start(doc);
  const f = d.fields(d.top(i), SETUP_KEYS);
  const r = new SetupInput();
  r.abiVersion = d.integer("$", ".abi_version", d.slot(f, 0));
  r._configV = d.map("$", ".config", d.slot(f, 1));
  r.function = d.str("$", ".function", d.slot(f, 2));
  r._argumentsV = d.map("$", ".arguments", d.slot(f, 3));
  const t = d.obj("$", ".task", d.slot(f, 4));
  if (t >= 0) {
    const tf = d.fields(t, TASK_KEYS);
    r.task.id = d.str("$.task", ".id", d.slot(tf, 0));
    r.task.instruction = d.str("$.task", ".instruction", d.slot(tf, 1));
    r.task.files = d.strs("$.task", ".files", d.slot(tf, 2));
    d.done(tf);
  }
  d.done(f);
  return finish(d) ? r : null;
}

/** Decodes a mock input envelope. */
export function decodeMockInput(data: Uint8Array): MockInput | null {
  const d = parseInput(data);
  return d === null ? null : mockInputAt(d, 0);
}

/** Decodes the mock input envelope at node i, its fields in the order
 * every SDK visits them, so the first shape error is the same. */
export function mockInputAt(doc: Doc, i: i32): MockInput | null {
  const d = decoder.start(doc);
  const f = d.fields(d.top(i), MOCK_KEYS);
  const r = new MockInput();
  r.abiVersion = d.integer("$", ".abi_version", d.slot(f, 0));
  r._configV = d.map("$", ".config", d.slot(f, 1));
  r.mock = d.str("$", ".mock", d.slot(f, 2));
  const q = d.obj("$", ".request", d.slot(f, 3));
  if (q >= 0) {
    const qf = d.fields(q, REQUEST_KEYS);
    r.request.method = d.str("$.request", ".method", d.slot(qf, 0));
    r.request.path = d.str("$.request", ".path", d.slot(qf, 1));
    r.request.query = strsMapAt(d, "$.request.query", d.slot(qf, 2));
    r.request.headers = strsMapAt(d, "$.request.headers", d.slot(qf, 3));
    r.request.body = d.str("$.request", ".body", d.slot(qf, 4));
    r.request.bodyBase64 = d.str("$.request", ".body_base64", d.slot(qf, 5));
    d.done(qf);
  }
  r.call = d.integer("$", ".call", d.slot(f, 4));
  r.state = valueAt(doc, d.slot(f, 5));
  d.done(f);
  return finish(d) ? r : null;
}

/** An object whose values are lists of strings (node i), its keys in
 * order so the first error is the same every time. */
function strsMapAt(d: Decoder, path: string, i: i32): Map<string, Array<string>> {
  const out = new Map<string, Array<string>>();
  const o = d.obj(path, "", i);
  if (o < 0) return out;
  const m = Value.at(d.d, o).obj;
  const keys = sortedKeysOf(m);
  for (let k = 0; k < keys.length; k++) {
    const v = m.get(keys[k]);
    const list = new Array<string>();
    const p = childPath(path, keys[k]);
    if (v.kind == Kind.Array) {
      const a = v.arr;
      for (let j = 0; j < a.length; j++) {
        if (a[j].kind == Kind.String) list.push(a[j].s);
        else if (a[j].kind == Kind.Null) list.push("");
        else {
          if (d.err.length == 0) d.err = p + "[" + j.toString() + "] is " + typeName(a[j]) + ", expected a string";
          list.push("");
        }
      }
    } else if (v.kind != Kind.Null && d.err.length == 0) {
      d.err = p + " is " + typeName(v) + ", expected an array";
    }
    out.set(keys[k], list);
  }
  return out;
}

/** Decodes message k of a run's conversation (node c), its fields in the
 * same order as every other SDK. */
function messageAt(d: Decoder, doc: Doc, c: i32, k: i32): Message {
  const mm = d.obj("$.result", ".conversation", c, k);
  const msg = new Message();
  if (mm < 0) return msg;
  const p = joinPath("$.result", ".conversation", k);
  const mf = d.fields(mm, MESSAGE_KEYS);
  msg.role = d.str(p, ".role", d.slot(mf, 0));
  msg.content = d.str(p, ".content", d.slot(mf, 1));
  msg.name = d.str(p, ".name", d.slot(mf, 2));
  const tcs = d.slot(mf, 3);
  const nt = d.arr(p, ".tool_calls", tcs);
  for (let j = 0, t = tcs + 1; j < nt; j++) {
    const tm = d.obj(p, ".tool_calls", t, j);
    const tc = new ToolCall();
    if (tm >= 0) {
      const tp = joinPath(p, ".tool_calls", j);
      const tf = d.fields(tm, TOOL_CALL_KEYS);
      tc.name = d.str(tp, ".name", d.slot(tf, 0));
      tc.arguments = valueAt(doc, d.slot(tf, 1));
      tc.id = d.str(tp, ".id", d.slot(tf, 2));
      tc.rawArguments = d.str(tp, ".raw_arguments", d.slot(tf, 3));
      tc.argumentsError = d.str(tp, ".arguments_error", d.slot(tf, 4));
      d.done(tf);
    }
    msg.toolCalls.push(tc);
    t = doc.next(t);
  }
  msg.toolCallId = d.str(p, ".tool_call_id", d.slot(mf, 4));
  const trs = d.slot(mf, 5);
  const nr = d.arr(p, ".tool_results", trs);
  for (let j = 0, t = trs + 1; j < nr; j++) {
    const rm = d.obj(p, ".tool_results", t, j);
    const tr = new ToolResult();
    if (rm >= 0) {
      const rp = joinPath(p, ".tool_results", j);
      const rf = d.fields(rm, TOOL_RESULT_KEYS);
      tr.toolCallId = d.str(rp, ".tool_call_id", d.slot(rf, 0));
      tr.name = d.str(rp, ".name", d.slot(rf, 1));
      tr.content = d.str(rp, ".content", d.slot(rf, 2));
      tr.json = valueAt(doc, d.slot(rf, 3));
      tr.isError = d.bool(rp, ".is_error", d.slot(rf, 4));
      d.done(rf);
    }
    msg.toolResults.push(tr);
    t = doc.next(t);
  }
  d.done(mf);
  return msg;
}

/** Node i as a value (null for -1). */
function valueAt(d: Doc, i: i32): Value {
  return i < 0 ? Value.null() : Value.at(d, i);
}

/** A number argument as f64 (0 when absent or not a number). */
export function num(m: Obj, k: string): f64 {
  return m.has(k) ? m.get(k).asF64() : 0;
}

/** A string argument ("" when absent or not a string). */
export function str(m: Obj, k: string): string {
  return m.has(k) ? m.get(k).asString() : "";
}

/** A bool argument (false when absent or not a bool). */
export function flag(m: Obj, k: string): bool {
  return m.has(k) ? m.get(k).asBool() : false;
}

/** Field k of an object, Null when absent. */
export function get(m: Obj, k: string): Value {
  return field(m, k);
}
