// Entry points: one helper per plugin kind, so a plugin is one function:
//
//   export function verify(): i32 { return serveVerify(check); }
//   export function verify_batch(): i32 { return serveVerifyBatch(check); }
//
// A function fails the call (a plugin fault, "reported failure") by
// returning fail("why"); a deliberate verdict goes in the output's error.
//
// The batch helpers answer many calls in one (docs/plugin-abi.md,
// "Batches"): the batch input is parsed once, and each call is decoded
// from its part of it, as a single call's input would be, and given to
// the same function; every result is written into one buffer, its output
// the bytes the single call would give and its error the single call's
// failure message. A batch input that does not parse as a whole (one of
// its calls is not JSON, say) is scanned for each call's bytes instead,
// which are then parsed one by one, so each such call fails with the
// message it gets alone.

import { commitOutput, input, outputWriter, setError } from "./host";
import { ByteWriter, Kind, encodeError, literal, parse, parseInputDoc, parseError } from "./json";
import { Doc } from "./tape";
import { SetupFunction, dispatchSetup, useSetupFunctions } from "./setup";
import {
  Describe, VerifyInput, VerifyOutput, LoadInput, LoadOutput, EvaluateInput, EvaluateOutput,
  TestInput, TestOutput, SetupInput, SetupOutput, decodeVerifyInput, decodeLoadInput, decodeEvaluateInput, decodeTestInput,
  decodeSetupInput, MockInput, MockOutput, decodeMockInput, decodeError,
  typeName, verifyInputAt, evaluateInputAt, testInputAt,
} from "./models";

let failure: string = "";

/** Fails the call with msg; return its result from the plugin function. */
export function fail<T>(msg: string): T | null {
  failure = msg;
  return null;
}

/** Why the last call run failed. */
let callError: string = "";

/** Runs f on a decoded input (null when decoding refused it), writing the
 * output envelope to w; false, with callError set and w as it was, when
 * the call fails. */
function run<I, O>(inp: I | null, f: (input: I) => O | null, w: ByteWriter): bool {
  if (inp === null) { callError = decodeError; return false; }
  failure = "";
  const out = f(inp);
  if (out === null) {
    callError = failure.length > 0 ? failure : "the plugin function returned no output";
    failure = "";
    return false;
  }
  const mark = w.len;
  if (!out.writeTo(w)) { w.truncate(mark); callError = encodeError; return false; }
  return true;
}

function serve<I, O>(inp: I | null, f: (input: I) => O | null): i32 {
  const w = outputWriter();
  w.reset();
  if (!run<I, O>(inp, f, w)) { setError(callError); return 1; }
  commitOutput(false);
  return 0;
}

/** Where each call of a batch input is: start and end byte offsets, in
 * pairs. The scan only delimits the calls: a call that is not valid JSON,
 * or not an envelope, fails when it is decoded, with the message the same
 * input gets alone. An input that is not a batch fails the call (null),
 * with the message the parser and the envelope decoders give. */
function batchCalls(data: Uint8Array): Array<i32> | null {
  const s = new SpanScanner(data);
  if (s.batch()) return s.spans;
  const v = parse(data);
  let why: string;
  if (v === null) why = parseError;
  else if (v.kind != Kind.Object) why = "$ is " + typeName(v) + ", expected an object";
  else if (!v.obj.has("calls")) why = "$.calls is missing, expected an array";
  else why = "$.calls is " + typeName(v.get("calls")) + ", expected an array";
  setError("invalid input: " + why);
  return null;
}

/** Walks a batch input's top-level object without decoding it. */
class SpanScanner {
  p: usize;
  n: i32;
  pos: i32 = 0;
  spans: Array<i32> = new Array<i32>();
  constructor(data: Uint8Array) { this.p = data.dataStart; this.n = data.length; }

  @inline at(c: i32): bool { return this.pos < this.n && <i32>load<u8>(this.p + <usize>this.pos) == c; }
  skip(): void {
    while (this.pos < this.n) {
      const c = load<u8>(this.p + <usize>this.pos);
      if (c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d) this.pos++;
      else return;
    }
  }
  /** Reads {"calls":[…], …}; false for anything else, including an input
   * without a calls array. A repeated key counts the last time. */
  batch(): bool {
    this.skip();
    if (!this.at(0x7b)) return false;
    this.pos++;
    this.skip();
    let found = false;
    if (this.at(0x7d)) {
      this.pos++;
    } else {
      while (true) {
        this.skip();
        if (!this.at(0x22)) return false;
        const keyStart = this.pos;
        if (!this.str()) return false;
        const isCalls = this.isCallsKey(keyStart, this.pos);
        this.skip();
        if (!this.at(0x3a)) return false;
        this.pos++;
        this.skip();
        if (isCalls) {
          this.spans.length = 0;
          if (!this.calls()) return false;
          found = true;
        } else if (!this.value()) {
          return false;
        }
        this.skip();
        if (this.at(0x2c)) { this.pos++; continue; }
        if (this.at(0x7d)) { this.pos++; break; }
        return false;
      }
    }
    this.skip();
    return found && this.pos == this.n;
  }
  /** Whether a key's JSON text (quotes included) is "calls", however it is
   * escaped. */
  isCallsKey(from: i32, to: i32): bool {
    const text = String.UTF8.decodeUnsafe(this.p + <usize>from, <usize>(to - from));
    if (text == "\"calls\"") return true;
    if (!text.includes("\\")) return false;
    const k = parse(Uint8Array.wrap(String.UTF8.encode(text)));
    return k !== null && k.kind == Kind.String && k.s == "calls";
  }
  calls(): bool {
    if (!this.at(0x5b)) return false;
    this.pos++;
    this.skip();
    if (this.at(0x5d)) { this.pos++; return true; }
    while (true) {
      this.skip();
      const start = this.pos;
      if (!this.value()) return false;
      this.spans.push(start);
      this.spans.push(this.pos);
      this.skip();
      if (this.at(0x2c)) { this.pos++; continue; }
      if (this.at(0x5d)) { this.pos++; return true; }
      return false;
    }
    return false;
  }
  /** Moves past one value: a string, an object or array (brackets matched,
   * strings skipped) or a scalar (up to the next delimiter). */
  value(): bool {
    if (this.pos >= this.n) return false;
    const c = <i32>load<u8>(this.p + <usize>this.pos);
    if (c == 0x22) return this.str();
    if (c == 0x27) return this.raw();
    if (c == 0x7b || c == 0x5b) {
      let depth = 0;
      while (this.pos < this.n) {
        const d = <i32>load<u8>(this.p + <usize>this.pos);
        if (d == 0x22) {
          if (!this.str()) return false;
          continue;
        }
        if (d == 0x27) {
          if (!this.raw()) return false;
          continue;
        }
        if (d == 0x7b || d == 0x5b) depth++;
        else if (d == 0x7d || d == 0x5d) {
          depth--;
          if (depth == 0) { this.pos++; return true; }
        }
        this.pos++;
      }
      return false;
    }
    const start = this.pos;
    while (this.pos < this.n) {
      const d = <i32>load<u8>(this.p + <usize>this.pos);
      if (d == 0x2c || d == 0x5d || d == 0x7d || d == 0x20 || d == 0x09 || d == 0x0a || d == 0x0d ||
        d == 0x7b || d == 0x5b || d == 0x22 || d == 0x3a) break;
      this.pos++;
    }
    return this.pos > start;
  }
  /** Moves past a raw string (parseRaw), whose bytes may hold anything. */
  raw(): bool {
    let i = this.pos + 1, n = 0;
    while (i < this.n) {
      const c = <i32>load<u8>(this.p + <usize>i);
      if (c < 0x30 || c > 0x39) break;
      if ((i > this.pos + 1 && n == 0) || i - this.pos > 9) return false;
      n = n * 10 + (c - 0x30);
      i++;
    }
    if (i == this.pos + 1 || i >= this.n || <i32>load<u8>(this.p + <usize>i) != 0x3a || n > this.n - i - 1) return false;
    this.pos = i + 1 + n;
    return true;
  }
  /** Moves past a string, from its opening quote to its closing one. */
  str(): bool {
    let i = this.pos + 1;
    while (i < this.n) {
      const c = <i32>load<u8>(this.p + <usize>i);
      if (c == 0x22) { this.pos = i + 1; return true; }
      i += c == 0x5c ? 2 : 1;
    }
    return false;
  }
}

/** The calls array node of a batch input parsed as a whole, -1 when it
 * has none (the input then fails as not a batch), or -2 when the input
 * did not parse (each call is then parsed alone). */
function batchArray(d: Doc | null): i32 {
  if (d === null) return -2;
  if (d.kind(0) != Kind.Object) return -1;
  const calls = d.field(0, "calls");
  return calls >= 0 && d.kind(calls) == Kind.Array ? calls : -1;
}

const L_RESULTS = literal("{\"results\":[");
const L_CALL = literal("{\"call\":");
const L_NEXT_CALL = literal(",{\"call\":");
const L_OUTPUT = literal(",\"output\":");
const L_ERROR = literal(",\"error\":");
const L_END = literal("]}");

function serveBatch<I, O>(decode: (data: Uint8Array) => I | null, decodeAt: (d: Doc, i: i32) => I | null,
  f: (input: I) => O | null): i32 {
  const data = input();
  const doc = parseInputDoc(data);
  const calls = batchArray(doc);
  let spans: Array<i32> | null = null;
  let n = 0;
  if (calls >= 0) {
    n = doc!.a(calls);
  } else {
    spans = batchCalls(data);
    if (spans === null) return 1;
    n = spans.length >> 1;
  }
  const w = outputWriter();
  w.reset();
  w.lit(L_RESULTS);
  let call = calls + 1;
  for (let i = 0; i < n; i++) {
    w.lit(i > 0 ? L_NEXT_CALL : L_CALL);
    w.int(i);
    const mark = w.len;
    w.lit(L_OUTPUT);
    let inp: I | null;
    if (spans === null) {
      inp = decodeAt(doc!, call);
      call = doc!.next(call);
    } else {
      inp = decode(data.subarray(unchecked(spans[i << 1]), unchecked(spans[(i << 1) + 1])));
    }
    if (!run<I, O>(inp, f, w)) {
      w.truncate(mark);
      w.lit(L_ERROR);
      w.quote(callError);
    }
    w.byte(0x7d);
  }
  w.lit(L_END);
  commitOutput(false);
  return 0;
}

/** Serves describe. Unless d.batch says otherwise, it announces the batch
 * form of every kind's export that has one (verify, evaluate, test), which
 * the plugin must then export (verify_batch, ...). */
export function serveDescribe(d: Describe): i32 {
  const w = outputWriter();
  w.reset();
  if (!w.value(d.toValue())) { setError(encodeError); return 1; }
  commitOutput(false);
  return 0;
}

/** Serves verify with f. */
export function serveVerify(f: (input: VerifyInput) => VerifyOutput | null): i32 {
  return serve<VerifyInput, VerifyOutput>(decodeVerifyInput(input()), f);
}

/** Serves verify_batch with f, the function serveVerify serves. */
export function serveVerifyBatch(f: (input: VerifyInput) => VerifyOutput | null): i32 {
  return serveBatch<VerifyInput, VerifyOutput>(decodeVerifyInput, verifyInputAt, f);
}

/** Serves load_cases with f. */
export function serveLoad(f: (input: LoadInput) => LoadOutput | null): i32 {
  return serve<LoadInput, LoadOutput>(decodeLoadInput(input()), f);
}

/** Serves evaluate with f. */
export function serveEvaluate(f: (input: EvaluateInput) => EvaluateOutput | null): i32 {
  return serve<EvaluateInput, EvaluateOutput>(decodeEvaluateInput(input()), f);
}

/** Serves evaluate_batch with f, the function serveEvaluate serves. */
export function serveEvaluateBatch(f: (input: EvaluateInput) => EvaluateOutput | null): i32 {
  return serveBatch<EvaluateInput, EvaluateOutput>(decodeEvaluateInput, evaluateInputAt, f);
}

/** Serves test with f. */
export function serveTest(f: (input: TestInput) => TestOutput | null): i32 {
  return serve<TestInput, TestOutput>(decodeTestInput(input()), f);
}

/** Serves test_batch with f, the function serveTest serves. */
export function serveTestBatch(f: (input: TestInput) => TestOutput | null): i32 {
  return serveBatch<TestInput, TestOutput>(decodeTestInput, testInputAt, f);
}

/** Serves setup with fns, by the function the input names (a name fns
 * does not have is answered with an error naming those it has). List the
 * same names in describe with addSetupFunctions. */
export function serveSetup(fns: Map<string, SetupFunction>): i32 {
  useSetupFunctions(fns);
  return serve<SetupInput, SetupOutput>(decodeSetupInput(input()), dispatchSetup);
}

/** Serves mock with f: the response of a mock service to one request
 * (mock has no batch form: each call gets the state the one before it
 * left). */
export function serveMock(f: (input: MockInput) => MockOutput | null): i32 {
  return serve<MockInput, MockOutput>(decodeMockInput(input()), f);
}
