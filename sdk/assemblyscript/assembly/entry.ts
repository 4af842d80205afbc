// Entry points: one helper per plugin kind, so a plugin is one function:
//
//   export function verify(): i32 { return serveVerify(check); }
//
// A function fails the call (a plugin fault, "reported failure") by
// returning fail("why"); a deliberate verdict goes in the output's error.

import { input, outputString, setError } from "./host";
import { Value, encodeError } from "./json";
import {
  Describe, VerifyInput, VerifyOutput, LoadInput, LoadOutput, EvaluateInput, EvaluateOutput,
  TestInput, TestOutput, decodeVerifyInput, decodeLoadInput, decodeEvaluateInput, decodeTestInput, decodeError,
} from "./models";

let failure: string = "";

/** Fails the call with msg; return its result from the plugin function. */
export function fail<T>(msg: string): T | null {
  failure = msg;
  return null;
}

function emit(v: Value): i32 {
  const s = v.toJSON();
  if (s === null) { setError(encodeError); return 1; }
  outputString(s);
  return 0;
}

function failed(): i32 {
  setError(failure.length > 0 ? failure : "the plugin function returned no output");
  failure = "";
  return 1;
}

/** Serves describe. */
export function serveDescribe(d: Describe): i32 {
  return emit(d.toValue());
}

/** Serves verify with f. */
export function serveVerify(f: (input: VerifyInput) => VerifyOutput | null): i32 {
  const inp = decodeVerifyInput(input());
  if (inp === null) { setError(decodeError); return 1; }
  failure = "";
  const out = f(inp);
  if (out === null) return failed();
  return emit(out.toValue());
}

/** Serves load_cases with f. */
export function serveLoad(f: (input: LoadInput) => LoadOutput | null): i32 {
  const inp = decodeLoadInput(input());
  if (inp === null) { setError(decodeError); return 1; }
  failure = "";
  const out = f(inp);
  if (out === null) return failed();
  return emit(out.toValue());
}

/** Serves evaluate with f. */
export function serveEvaluate(f: (input: EvaluateInput) => EvaluateOutput | null): i32 {
  const inp = decodeEvaluateInput(input());
  if (inp === null) { setError(decodeError); return 1; }
  failure = "";
  const out = f(inp);
  if (out === null) return failed();
  return emit(out.toValue());
}

/** Serves test with f. */
export function serveTest(f: (input: TestInput) => TestOutput | null): i32 {
  const inp = decodeTestInput(input());
  if (inp === null) { setError(decodeError); return 1; }
  failure = "";
  const out = f(inp);
  if (out === null) return failed();
  return emit(out.toValue());
}
