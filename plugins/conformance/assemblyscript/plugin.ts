// The AssemblyScript reference plugin of the SDK conformance suite
// (docs/conformance.md): the same behaviour as the Go and Rust reference
// plugins, which must answer every vector with the same bytes.

import {
  Value, Kind, Obj, Describe, VerifyInput, VerifyOutput, Attribute, Diff, DiffEntry, LoadInput, LoadOutput,
  Case, EvaluateInput, EvaluateOutput, TestInput, TestOutput, Actual, JSONOptions, compareJSON, normalizeText,
  parseJSONL, jsonlError, parse, parseString, parseError, parseNumber, findAnswer, answerText, brief, clip, quote, typeName,
  num, str, flag, get, numberValue, fail, serveDescribe, serveVerify, serveLoad, serveEvaluate, serveTest,
  serveVerifyBatch, serveEvaluateBatch, serveTestBatch, SetupInput, SetupOutput, SetupFunction, serveSetup, addSetupFunctions,
  writeFile, writeBytes, runCommand, MockInput, MockOutput, serveMock, jsonResponse, bytesResponse, stringLists, requestBody,
} from "../../../sdk/assemblyscript/assembly/index";

// The native transport's exports (the SDK chooses the transport at build
// time; built for Extism they answer nothing).
export { wasmeval_input, wasmeval_output } from "../../../sdk/assemblyscript/assembly/index";

export function describe(): i32 {
  const d = new Describe("conformance", "1.0.0", ["verifier", "loader", "evaluator", "test", "setup", "mock"]);
  d.functions = ["echo", "json_equal", "sum", "text_equal"];
  d.configSchema = Value.newObject().set("type", Value.str("object"));
  d.description = "Reference plugin of the SDK conformance suite — ünïcödé ✓";
  addSetupFunctions(d, SETUP);
  return serveDescribe(d);
}

export function verify(): i32 { return serveVerify(verifyCase); }
export function load_cases(): i32 { return serveLoad(load); }
export function evaluate(): i32 { return serveEvaluate(evalFn); }
export function test(): i32 { return serveTest(judge); }
// The batch forms describe announces: the same functions, many calls at once.
export function verify_batch(): i32 { return serveVerifyBatch(verifyCase); }
export function evaluate_batch(): i32 { return serveEvaluateBatch(evalFn); }
export function test_batch(): i32 { return serveTestBatch(judge); }
export function setup(): i32 { return serveSetup(SETUP); }
export function mock(): i32 { return serveMock(answerMock); }

// Mock "echo" answers with what it received and counts its calls in the
// state, "bytes" answers with the request's body and two bytes that are
// not UTF-8, "refuse" cannot answer; any other name is unknown.
function answerMock(input: MockInput): MockOutput | null {
  const f = str(input.config, "fail");
  if (f.length > 0) return fail<MockOutput>(f);
  const r = input.request;
  const out = new MockOutput();
  if (input.mock == "echo") {
    let calls: i64 = 0;
    if (input.state.kind == Kind.Object) calls = <i64>num(input.state.obj, "calls");
    const body = Value.newObject()
      .set("method", Value.str(r.method))
      .set("path", Value.str(r.path))
      .set("query", stringLists(r.query))
      .set("headers", stringLists(r.headers))
      .set("body", Value.str(r.body))
      .set("body_base64", Value.str(r.bodyBase64))
      .set("call", Value.int(input.call))
      .set("state", input.state);
    const resp = jsonResponse(200, body);
    if (resp === null) return fail<MockOutput>("the echo is not JSON");
    resp.headers.set("x-call", input.call.toString());
    resp.delayMs = <i32>num(input.config, "delay_ms");
    out.response = resp;
    out.state = Value.newObject().set("calls", Value.int(calls + 1));
  } else if (input.mock == "bytes") {
    const got = requestBody(r);
    if (got === null) return fail<MockOutput>("request.body_base64 is not base64");
    const body = new Uint8Array(got.length + 2);
    body.set(got!);
    body[got.length] = 0xff;
    out.response = bytesResponse(201, "application/octet-stream", body);
  } else if (input.mock == "refuse") {
    out.error = "cannot answer " + quote(r.method + " " + r.path);
  } else {
    out.error = "unknown mock " + quote(input.mock);
  }
  return out;
}

const SETUP = new Map<string, SetupFunction>();
SETUP.set("write_and_run", writeAndRun);
SETUP.set("refuse", refuseSetup);

// Writes arguments.content at arguments.path, the same bytes followed by
// two that are not UTF-8 at path + ".bin", a summary of the task at
// task.txt, then runs arguments.command.
function writeAndRun(input: SetupInput): SetupOutput | null {
  const f = str(input.config, "fail");
  if (f.length > 0) return fail<SetupOutput>(f);
  const path = str(input.arguments, "path"), content = str(input.arguments, "content");
  const command = new Array<string>();
  const words = get(input.arguments, "command");
  if (words.kind == Kind.Array) {
    for (let i = 0; i < words.arr.length; i++) command.push(words.arr[i].asString());
  }
  const text = Uint8Array.wrap(String.UTF8.encode(content));
  const bin = new Uint8Array(text.length + 2);
  bin.set(text);
  bin[text.length] = 0xff;
  const t = input.task;
  const out = new SetupOutput();
  out.actions = [
    writeFile(path, content),
    writeBytes(path + ".bin", bin),
    writeFile("task.txt", t.id + "\n" + t.instruction + "\n" + t.files.join("\n")),
    runCommand(command),
  ];
  return out;
}

// Cannot prepare any task, and says so.
function refuseSetup(input: SetupInput): SetupOutput | null {
  const out = new SetupOutput();
  out.error = "cannot prepare task " + quote(input.task.id);
  return out;
}

function weight(cfg: Obj, attr: string): f64 {
  if (!cfg.has("weights")) return 1;
  const w = cfg.get("weights");
  if (w.kind == Kind.Object && w.obj.has(attr)) return num(w.obj, attr);
  return 1;
}

function verifyCase(input: VerifyInput): VerifyOutput | null {
  const f = str(input.config, "fail");
  if (f.length > 0) return fail<VerifyOutput>(f);
  const out = new VerifyOutput();
  const refuse = str(input.config, "refuse");
  const unscored = str(input.config, "unscored");
  if (refuse.length > 0 || unscored.length > 0) { out.error = refuse; out.unscored = unscored; return out; }
  if (!input.expected.has("output") && flag(input.config, "unscored_without_output")) {
    out.unscored = "no expected output for case " + quote(input.case.id);
  }
  if (input.expected.has("status_code")) {
    const want = input.expected.get("status_code");
    const a = new Attribute();
    a.attribute = "status_code";
    a.actual = Value.int(input.actual.statusCode);
    a.expected = want;
    a.weight = weight(input.config, "status_code");
    a.isCorrect = want.kind == Kind.Number && want.asF64() == <f64>input.actual.statusCode;
    if (!a.isCorrect) {
      const d = new Diff();
      d.summary = "expected exit status " + brief(want) + ", got " + input.actual.statusCode.toString();
      a.diff = d;
    }
    out.attributes.push(a);
  }
  if (input.expected.has("output")) out.attributes.push(compareOutput(input.config, input.expected.get("output"), input.actual));
  const mock = str(input.config, "count_mock_calls");
  if (mock.length > 0) out.attributes.push(countMockCalls(input, mock));
  return out;
}

// countMockCalls judges how many calls the mock received against
// expected.mock_calls; a wrong count lists every call the mock received
// ("POST /v1/charges 201", with "unmatched" for a request no route took).
function countMockCalls(input: VerifyInput, mock: string): Attribute {
  const want = get(input.expected, "mock_calls");
  const calls = new Array<string>();
  for (let i = 0; i < input.actual.mockCalls.length; i++) {
    const c = input.actual.mockCalls[i];
    if (c.mock != mock) continue;
    let s = c.method + " " + c.path + " " + c.status.toString();
    if (c.unmatched) s += " unmatched";
    calls.push(s);
  }
  const n = <i64>calls.length;
  const a = new Attribute();
  a.attribute = "mock_calls";
  a.actual = Value.int(n);
  a.expected = want;
  a.weight = weight(input.config, "mock_calls");
  a.isCorrect = want.kind == Kind.Number && want.asF64() == <f64>n;
  if (!a.isCorrect) {
    const d = new Diff();
    d.summary = mock + ": " + n.toString() + " calls, expected " + brief(want);
    if (n > 0) d.summary += " (" + calls.join(", ") + ")";
    d.entries.push(new DiffEntry("count", "changed", want, Value.int(n)));
    a.diff = d;
  }
  return a;
}

function options(cfg: Obj): JSONOptions {
  const o = new JSONOptions();
  o.tolerance = num(cfg, "tolerance");
  o.relTolerance = num(cfg, "rel_tolerance");
  o.unorderedLists = flag(cfg, "unordered_lists");
  return o;
}

/** Parses text (UTF-8 bytes) as JSON, or JSON Lines when jsonl; null with
 * parseFailure set. The input's text is handed over as bytes (a string
 * value's utf8(), the actual output's outputUTF8()): JSON is parsed
 * without making a string of it. */
let parseFailure = "";
function parseAs(text: Uint8Array, jsonl: bool): Value | null {
  if (jsonl) {
    const r = parseJSONL(String.UTF8.decodeUnsafe(text.dataStart, text.length));
    if (r === null) { parseFailure = jsonlError; return null; }
    return Value.array(r);
  }
  const v = parse(text);
  if (v === null) parseFailure = parseError;
  return v;
}

function compareOutput(cfg: Obj, want: Value, actual: Actual): Attribute {
  const a = new Attribute();
  a.attribute = "output";
  a.weight = weight(cfg, "output");
  const mode = str(cfg, "output");
  if (mode == "text") {
    const ws = flag(cfg, "ignore_whitespace"), ic = flag(cfg, "ignore_case");
    const nw = normalizeText(want.asString(), ws, ic), ng = normalizeText(actual.output, ws, ic);
    a.expected = Value.str(nw);
    a.actual = Value.str(ng);
    a.isCorrect = nw == ng;
    if (!a.isCorrect) a.diff = lineDiff(nw, ng);
    return a;
  }
  const jsonl = mode == "jsonl";
  const got = actual.outputUTF8();
  // An expected text that is the output's own (a passing case) is parsed
  // once: the same text is the same value.
  let same = false;
  if (want.kind == Kind.String) {
    const text = want.utf8();
    const v = parseAs(text, jsonl);
    if (v !== null) {
      // The SDK hands out one buffer for a long text with escapes that
      // comes twice (a JSON output always has some): then no bytes need
      // comparing.
      same = text.length == got.length
        && (text.dataStart == got.dataStart || memory.compare(text.dataStart, got.dataStart, <usize>got.length) == 0);
      want = v;
    }
  }
  a.expected = want;
  const v = same ? want : parseAs(got, jsonl);
  if (v === null) {
    const got = actual.output;
    a.actual = Value.str(got);
    const d = new Diff();
    d.summary = "output is not valid JSON: " + parseFailure;
    d.entries.push(new DiffEntry("$", "mismatch", want, Value.str(clip(got, 200))));
    a.diff = d;
    return a;
  }
  a.actual = v;
  a.diff = compareJSON(want, v, options(cfg));
  a.isCorrect = a.diff === null;
  return a;
}

function lineDiff(want: string, got: string): Diff | null {
  const w = want.split("\n"), g = got.split("\n");
  const n = max(w.length, g.length);
  for (let i = 0; i < n; i++) {
    const wl = i < w.length ? w[i] : "";
    const gl = i < g.length ? g[i] : "";
    if (wl != gl || i >= w.length || i >= g.length) {
      const path = "line " + (i + 1).toString();
      const wv = Value.str(wl), gv = Value.str(gl);
      const d = new Diff();
      d.summary = path + ": expected " + brief(wv) + ", got " + brief(gv);
      d.entries.push(new DiffEntry(path, "changed", wv, gv));
      return d;
    }
  }
  return null;
}

function load(input: LoadInput): LoadOutput | null {
  const f = str(input.config, "fail");
  if (f.length > 0) return fail<LoadOutput>(f);
  const out = new LoadOutput();
  if (flag(input.config, "echo_seed")) {
    // One case telling the run's seed ("none" without one).
    const c = new Case();
    c.id = "seed";
    c.arguments = [input.hasSeed ? input.seed.toString() : "none"];
    out.cases.push(c);
    out.done = true;
    return out;
  }
  if (flag(input.config, "echo_group")) {
    // One case telling where the group's cases come from.
    const g = input.group;
    const c = new Case();
    c.id = g.group + "_origin";
    c.arguments = [g.originCheckpoint, g.originGroup, g.dir];
    c.extra.set("checkpoint", Value.str(g.checkpoint));
    c.extra.set("group", Value.str(g.group));
    c.extra.set("case_group", Value.str(g.caseGroup));
    out.cases.push(c);
    out.done = true;
    return out;
  }
  const records = parseJSONL(str(input.config, "jsonl"));
  if (records === null) { out.error = "jsonl: " + jsonlError; return out; }
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r.kind != Kind.Object) {
      const bad = new LoadOutput();
      bad.error = "jsonl: record " + (i + 1).toString() + " is " + typeName(r) + ", expected an object";
      return bad;
    }
    const c = new Case();
    c.id = input.group.group + "_" + (input.history.length + i + 1).toString();
    const args = r.get("arguments");
    if (args.kind == Kind.Array) {
      for (let j = 0; j < args.arr.length; j++) c.arguments.push(args.arr[j].asString());
    }
    const e = r.get("expected");
    if (e.kind == Kind.Object) c.expected = e.obj;
    const stdin = r.get("stdin");
    if (stdin.kind == Kind.String) c.stdin = stdin.s;
    c.extra.set("history", Value.int(input.history.length));
    c.extra.set("checkpoint", Value.str(input.group.checkpoint));
    out.cases.push(c);
  }
  out.done = true;
  return out;
}

function evalFn(input: EvaluateInput): EvaluateOutput | null {
  const f = str(input.config, "fail");
  if (f.length > 0) return fail<EvaluateOutput>(f);
  const args = input.arguments;
  const out = new EvaluateOutput();
  const unscored = str(input.config, "unscored");
  if (unscored.length > 0) {
    out.details = Value.newObject().set("function", Value.str(input.function));
    out.unscored = unscored;
    return out;
  }
  if (input.function == "echo") {
    const d = Value.newObject();
    d.set("arguments", Value.object(args));
    d.set("config", Value.object(input.config));
    d.set("function", Value.str(input.function));
    const c = input.case;
    if (c !== null) d.set("case_id", Value.str(c.id));
    out.score = 1;
    out.details = d;
    return out;
  }
  if (input.function == "json_equal") {
    const diff = compareJSON(get(args, "expected"), get(args, "actual"), options(args));
    if (diff === null) { out.score = 1; return out; }
    out.details = Value.newObject().set("diff", diff.toValue());
    return out;
  }
  if (input.function == "text_equal") {
    const ws = flag(args, "ignore_whitespace"), ic = flag(args, "ignore_case");
    const w = normalizeText(str(args, "expected"), ws, ic), g = normalizeText(str(args, "actual"), ws, ic);
    out.score = w == g ? 1 : 0;
    out.details = Value.newObject().set("expected", Value.str(w)).set("actual", Value.str(g));
    return out;
  }
  if (input.function == "sum") {
    let total: f64 = 0;
    const terms = get(args, "terms");
    let n = 0;
    if (terms.kind == Kind.Array) {
      n = terms.arr.length;
      for (let i = 0; i < terms.arr.length; i++) {
        if (terms.arr[i].kind == Kind.Number) total += numberValue(terms.arr[i].s);
      }
    }
    if (flag(args, "as_text")) {
      // The sum as the SDK's brief writes it, non-finite ones too.
      out.details = Value.newObject().set("text", Value.str(brief(Value.float(total)))).set("terms", Value.int(n));
      return out;
    }
    out.score = Math.min(Math.max(total, 0), 1);
    out.details = Value.newObject().set("sum", Value.float(total)).set("terms", Value.int(n));
    return out;
  }
  out.error = "unknown function " + quote(input.function);
  return out;
}

function judge(input: TestInput): TestOutput | null {
  const f = str(input.config, "fail");
  if (f.length > 0) return fail<TestOutput>(f);
  const expected = str(input.config, "expected");
  const run = input.result;
  const ans = findAnswer(run);
  const text = answerText(ans.value);
  let results = 0;
  for (let i = 0; i < run.conversation.length; i++) results += run.conversation[i].toolResults.length;
  const usage = run.usage;
  const tokens: i64 = usage !== null ? usage.totalTokens : 0;
  const details = Value.newObject()
    .set("answer", Value.str(text))
    .set("rule", Value.str(ans.rule))
    .set("value", ans.value)
    .set("expected", Value.str(expected))
    .set("iterations", Value.int(run.iterations))
    .set("messages", Value.int(run.conversation.length))
    .set("steps", Value.int(run.executionTrace.length))
    .set("task_name", Value.str(run.taskName))
    .set("tool_results", Value.int(results))
    .set("tokens", Value.int(tokens))
    .set("elapsed_seconds", Value.float(run.elapsedSeconds));
  const out = new TestOutput();
  out.details = details;
  const unscored = str(input.config, "unscored");
  if (unscored.length > 0) { out.feedback = "not judged"; out.unscored = unscored; return out; }
  if (!ans.found) { out.feedback = "no answer found"; return out; }
  const match = str(input.config, "match");
  let passed = false;
  if (match == "number") {
    const a = parseNumber(text), e = parseNumber(expected);
    passed = !isNaN(a) && !isNaN(e) && Math.abs(a - e) <= num(input.config, "tolerance");
  } else if (match == "json") {
    const a = parseString(text), e = parseString(expected);
    passed = a !== null && e !== null && compareJSON(e, a, options(input.config)) === null;
  } else {
    passed = normalizeText(text, true, true) == normalizeText(expected, true, true);
  }
  out.passed = passed;
  out.feedback = "answer " + quote(text) + " (from " + ans.rule + ")" + (passed ? " matches " : " does not match ") + quote(expected);
  return out;
}
