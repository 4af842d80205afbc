// Typed models of every ABI envelope, decoded from and encoded to the
// shared JSON model with the ABI's rules: absent or null fields take the
// zero value; a field of the wrong type is an error naming its path (the
// same message as in the Go and Rust SDKs).

import { ByteWriter, Value, Kind, parse, parseError, numberValue } from "./json";
import { childPath } from "./compare";

export const ABI_VERSION = 1;

/** The transport this build speaks: native, or extism when compiled with
 * `--use WASMEVAL_EXTISM=1`. */
export const TRANSPORT: string = isDefined(WASMEVAL_EXTISM) ? "extism" : "native";

export type Obj = Map<string, Value>;

function newObj(): Obj { return new Map<string, Value>(); }

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
    if (x === null) { x = newObj(); this._expected = x; }
    return x;
  }
  set expected(x: Obj) { this._expected = x; }
  private _expected: Obj | null = null;
  timeoutS: f64 = 0;
  reset: bool = false;
  get extra(): Obj {
    let x = this._extra;
    if (x === null) { x = newObj(); this._extra = x; }
    return x;
  }
  set extra(x: Obj) { this._extra = x; }
  private _extra: Obj | null = null;

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

/** What a case produced. */
export class Actual {
  statusCode: i64 = 0;
  output: string = "";
  stderr: string = "";
  get files(): Obj {
    let x = this._files;
    if (x === null) { x = newObj(); this._files = x; }
    return x;
  }
  set files(x: Obj) { this._files = x; }
  private _files: Obj | null = null;
  timedOut: bool = false;
}

export class VerifyInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = newObj(); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  case: Case = new Case();
  actual: Actual = new Actual();
  get expected(): Obj {
    let x = this._expected;
    if (x === null) { x = newObj(); this._expected = x; }
    return x;
  }
  set expected(x: Obj) { this._expected = x; }
  private _expected: Obj | null = null;
}

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
      w.ascii("{\"entries\":[");
      for (let i = 0; i < n; i++) {
        const e = unchecked(this.entries[i]);
        w.ascii(i > 0 ? ",{" : "{");
        let sep = false;
        if (!e.actual.isNull()) {
          w.ascii("\"actual\":");
          if (!w.value(e.actual)) return false;
          sep = true;
        }
        if (!e.expected.isNull()) {
          w.ascii(sep ? ",\"expected\":" : "\"expected\":");
          if (!w.value(e.expected)) return false;
          sep = true;
        }
        w.ascii(sep ? ",\"op\":" : "\"op\":");
        w.quote(e.op);
        w.ascii(",\"path\":");
        w.quote(e.path);
        w.byte(0x7d);
      }
      w.ascii("],\"summary\":");
    } else {
      w.ascii("{\"summary\":");
    }
    w.quote(this.summary);
    if (this.truncated) w.ascii(",\"truncated\":true");
    if (this.unified.length > 0) {
      w.ascii(",\"unified\":");
      w.quote(this.unified);
    }
    w.byte(0x7d);
    return true;
  }
}

/** One attribute verdict, the shape built-in checks give. */
export class Attribute {
  attribute: string = "";
  actual: Value = Value.null();
  expected: Value = Value.null();
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
    w.ascii("{\"actual\":");
    if (!w.value(this.actual)) return false;
    w.ascii(",\"attribute\":");
    w.quote(this.attribute);
    const d = this.diff;
    if (d !== null) {
      w.ascii(",\"diff\":");
      if (!d.writeTo(w)) return false;
    }
    w.ascii(",\"expected\":");
    if (!w.value(this.expected)) return false;
    w.ascii(this.isCorrect ? ",\"is_correct\":true,\"weight\":" : ",\"is_correct\":false,\"weight\":");
    if (!w.float(this.weight)) return false;
    w.byte(0x7d);
    return true;
  }
}

export class VerifyOutput {
  attributes: Array<Attribute> = [];
  /** A deliberate verdict: the case cannot be verified. */
  error: string = "";

  toValue(): Value {
    const m = newObj();
    const as = new Array<Value>();
    for (let i = 0; i < this.attributes.length; i++) as.push(this.attributes[i].toValue());
    m.set("attributes", Value.array(as));
    putStr(m, "error", this.error);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue() (members in key order): the
   * verify output, the busiest envelope, is written without building it
   * as a value first. */
  writeTo(w: ByteWriter): bool {
    w.ascii("{\"attributes\":[");
    for (let i = 0, n = this.attributes.length; i < n; i++) {
      if (i > 0) w.byte(0x2c);
      if (!unchecked(this.attributes[i]).writeTo(w)) return false;
    }
    w.byte(0x5d);
    if (this.error.length > 0) {
      w.ascii(",\"error\":");
      w.quote(this.error);
    }
    w.byte(0x7d);
    return true;
  }
}

export class GroupInfo {
  checkpoint: string = "";
  group: string = "";
  groupType: string = "";
  caseGroup: string = "";
  caseOrder: Array<string> = [];
  timeoutS: f64 = 0;
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
    if (x === null) { x = newObj(); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  group: GroupInfo = new GroupInfo();
  history: Array<Outcome> = [];
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
    if (x === null) { x = newObj(); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  function: string = "";
  get arguments(): Obj {
    let x = this._arguments;
    if (x === null) { x = newObj(); this._arguments = x; }
    return x;
  }
  set arguments(x: Obj) { this._arguments = x; }
  private _arguments: Obj | null = null;
  case: Case | null = null;
  actual: Actual | null = null;
  get expected(): Obj {
    let x = this._expected;
    if (x === null) { x = newObj(); this._expected = x; }
    return x;
  }
  set expected(x: Obj) { this._expected = x; }
  private _expected: Obj | null = null;
}

export class EvaluateOutput {
  score: f64 = 0;
  /** Null for no details. */
  details: Value = Value.null();
  error: string = "";

  toValue(): Value {
    const m = newObj();
    m.set("score", Value.float(this.score));
    if (!this.details.isNull()) m.set("details", this.details);
    putStr(m, "error", this.error);
    return Value.object(m);
  }

  /** Writes the canonical JSON of toValue(). */
  writeTo(w: ByteWriter): bool { return w.value(this.toValue()); }
}

export class ToolCall {
  name: string = "";
  arguments: Value = Value.null();
}

/** One turn of an agent's conversation. */
export class Message {
  role: string = "";
  content: string = "";
  toolCalls: Array<ToolCall> = [];
  name: string = "";
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
}

export class TestInput {
  abiVersion: i64 = 0;
  get config(): Obj {
    let x = this._config;
    if (x === null) { x = newObj(); this._config = x; }
    return x;
  }
  set config(x: Obj) { this._config = x; }
  private _config: Obj | null = null;
  result: AgentRun = new AgentRun();
}

export class TestOutput {
  passed: bool = false;
  feedback: string = "";
  /** Null for no details. */
  details: Value = Value.null();

  toValue(): Value {
    const m = newObj();
    m.set("passed", Value.bool(this.passed));
    m.set("feedback", Value.str(this.feedback));
    if (!this.details.isNull()) m.set("details", this.details);
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

/** Decodes with the first shape error remembered, visiting fields in the
 * same order as the other SDKs so the message is the same. A value's path
 * is given in parts, the enclosing path, the field's suffix (".id") and an
 * index (-1 for none), and is put together only for the message. */
class Decoder {
  err: string = "";
  bad(path: string, key: string, at: i32, v: Value, want: string): void {
    if (this.err.length == 0) this.err = joinPath(path, key, at) + " is " + typeName(v) + ", expected " + want;
  }
  obj(path: string, key: string, v: Value, at: i32 = -1): Obj | null {
    if (v.kind == Kind.Null) return null;
    if (v.kind == Kind.Object) return v.obj;
    this.bad(path, key, at, v, "an object");
    return null;
  }
  map(path: string, key: string, v: Value): Obj {
    const m = this.obj(path, key, v);
    return m !== null ? m : newObj();
  }
  str(path: string, key: string, v: Value, at: i32 = -1): string {
    if (v.kind == Kind.Null) return "";
    if (v.kind == Kind.String) return v.s;
    this.bad(path, key, at, v, "a string");
    return "";
  }
  bool(path: string, key: string, v: Value): bool {
    if (v.kind == Kind.Null) return false;
    if (v.kind == Kind.Bool) return v.b;
    this.bad(path, key, -1, v, "a boolean");
    return false;
  }
  float(path: string, key: string, v: Value): f64 {
    if (v.kind == Kind.Null) return 0;
    if (v.kind == Kind.Number || v.kind == Kind.Float) return v.asF64();
    this.bad(path, key, -1, v, "a number");
    return 0;
  }
  integer(path: string, key: string, v: Value): i64 {
    const f = this.float(path, key, v);
    if (f != Math.trunc(f) || Math.abs(f) > 9007199254740992) {
      if (this.err.length == 0) this.err = joinPath(path, key, -1) + " is a number, expected an integer";
      return 0;
    }
    return <i64>f;
  }
  arr(path: string, key: string, v: Value): Array<Value> {
    if (v.kind == Kind.Null) return [];
    if (v.kind == Kind.Array) return v.arr;
    this.bad(path, key, -1, v, "an array");
    return [];
  }
  strs(path: string, key: string, v: Value): Array<string> {
    const a = this.arr(path, key, v);
    const out = new Array<string>(a.length);
    for (let i = 0; i < a.length; i++) unchecked(out[i] = this.str(path, key, unchecked(a[i]), i));
    return out;
  }
  /** Decodes a case into c. */
  caseInto(c: Case, path: string, v: Value): void {
    const m = this.obj(path, "", v);
    if (m === null) return;
    c.id = this.str(path, ".id", field(m, "id"));
    c.checkpoint = this.str(path, ".checkpoint", field(m, "checkpoint"));
    c.group = this.str(path, ".group", field(m, "group"));
    c.groupType = this.str(path, ".group_type", field(m, "group_type"));
    c.arguments = this.strs(path, ".arguments", field(m, "arguments"));
    if (!field(m, "stdin").isNull()) c.stdin = this.str(path, ".stdin", field(m, "stdin"));
    const env = this.obj(path, ".env", field(m, "env"));
    if (env !== null) {
      const keys = sortedKeysOf(env);
      for (let i = 0; i < keys.length; i++) {
        const v = env.get(keys[i]);
        if (v.kind == Kind.String) c.env.set(keys[i], v.s);
        else c.env.set(keys[i], this.str(childPath(path + ".env", keys[i]), "", v));
      }
    }
    const files = this.arr(path, ".input_files", field(m, "input_files"));
    for (let i = 0; i < files.length; i++) {
      const fm = this.obj(path, ".input_files", files[i], i);
      const f = new InputFile();
      if (fm !== null) {
        const fp = joinPath(path, ".input_files", i);
        f.path = this.str(fp, ".path", field(fm, "path"));
        f.content = this.str(fp, ".content", field(fm, "content"));
        f.encoding = this.str(fp, ".encoding", field(fm, "encoding"));
      }
      c.inputFiles.push(f);
    }
    c.trackedFiles = this.strs(path, ".tracked_files", field(m, "tracked_files"));
    c.expected = this.map(path, ".expected", field(m, "expected"));
    c.timeoutS = this.float(path, ".timeout_s", field(m, "timeout_s"));
    c.reset = this.bool(path, ".reset", field(m, "reset"));
    c.extra = this.map(path, ".extra", field(m, "extra"));
  }
  case(path: string, v: Value): Case {
    const c = new Case();
    this.caseInto(c, path, v);
    return c;
  }
  /** Decodes an actual result into a. */
  actualInto(a: Actual, path: string, v: Value): void {
    const m = this.obj(path, "", v);
    if (m === null) return;
    a.statusCode = this.integer(path, ".status_code", field(m, "status_code"));
    a.output = this.str(path, ".output", field(m, "output"));
    a.stderr = this.str(path, ".stderr", field(m, "stderr"));
    a.files = this.map(path, ".files", field(m, "files"));
    a.timedOut = this.bool(path, ".timed_out", field(m, "timed_out"));
  }
  actual(path: string, v: Value): Actual {
    const a = new Actual();
    this.actualInto(a, path, v);
    return a;
  }
  top(v: Value): Obj | null {
    if (v.kind == Kind.Object) return v.obj;
    this.bad("$", "", -1, v, "an object");
    return null;
  }
}

/** path + key, then [at] when at >= 0. */
function joinPath(path: string, key: string, at: i32): string {
  const p = key.length > 0 ? path + key : path;
  return at >= 0 ? p + "[" + at.toString() + "]" : p;
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

function fieldOf(m: Obj | null, k: string): Value {
  if (m === null) return Value.null();
  return field(m, k);
}

function parsed(data: Uint8Array): Value | null {
  const v = parse(data);
  if (v === null) decodeError = "invalid input: " + parseError;
  return v;
}

function finish(d: Decoder): bool {
  if (d.err.length > 0) { decodeError = "invalid input: " + d.err; return false; }
  return true;
}

/** Decodes a verify input envelope; null (with decodeError) when refused. */
export function decodeVerifyInput(data: Uint8Array): VerifyInput | null {
  const v = parsed(data);
  if (v === null) return null;
  const d = new Decoder();
  const m = d.top(v);
  const r = new VerifyInput();
  r.abiVersion = d.integer("$", ".abi_version", fieldOf(m, "abi_version"));
  r.config = d.map("$", ".config", fieldOf(m, "config"));
  d.caseInto(r.case, "$.case", fieldOf(m, "case"));
  d.actualInto(r.actual, "$.actual", fieldOf(m, "actual"));
  r.expected = d.map("$", ".expected", fieldOf(m, "expected"));
  return finish(d) ? r : null;
}

/** Decodes a load_cases input envelope. */
export function decodeLoadInput(data: Uint8Array): LoadInput | null {
  const v = parsed(data);
  if (v === null) return null;
  const d = new Decoder();
  const m = d.top(v);
  const r = new LoadInput();
  r.abiVersion = d.integer("$", ".abi_version", fieldOf(m, "abi_version"));
  r.config = d.map("$", ".config", fieldOf(m, "config"));
  const g = d.obj("$", ".group", fieldOf(m, "group"));
  if (g !== null) {
    r.group.checkpoint = d.str("$.group", ".checkpoint", field(g, "checkpoint"));
    r.group.group = d.str("$.group", ".group", field(g, "group"));
    r.group.groupType = d.str("$.group", ".group_type", field(g, "group_type"));
    r.group.caseGroup = d.str("$.group", ".case_group", field(g, "case_group"));
    r.group.caseOrder = d.strs("$.group", ".case_order", field(g, "case_order"));
    r.group.timeoutS = d.float("$.group", ".timeout_s", field(g, "timeout_s"));
  }
  const hist = d.arr("$", ".history", fieldOf(m, "history"));
  for (let i = 0; i < hist.length; i++) {
    const hm = d.obj("$", ".history", hist[i], i);
    const o = new Outcome();
    if (hm !== null) {
      const p = joinPath("$", ".history", i);
      o.case = d.case(p + ".case", field(hm, "case"));
      o.actual = d.actual(p + ".actual", field(hm, "actual"));
    }
    r.history.push(o);
  }
  return finish(d) ? r : null;
}

/** Decodes an evaluate input envelope. */
export function decodeEvaluateInput(data: Uint8Array): EvaluateInput | null {
  const v = parsed(data);
  if (v === null) return null;
  const d = new Decoder();
  const m = d.top(v);
  const r = new EvaluateInput();
  r.abiVersion = d.integer("$", ".abi_version", fieldOf(m, "abi_version"));
  r.config = d.map("$", ".config", fieldOf(m, "config"));
  r.function = d.str("$", ".function", fieldOf(m, "function"));
  r.arguments = d.map("$", ".arguments", fieldOf(m, "arguments"));
  r.expected = d.map("$", ".expected", fieldOf(m, "expected"));
  if (!fieldOf(m, "case").isNull()) r.case = d.case("$.case", fieldOf(m, "case"));
  if (!fieldOf(m, "actual").isNull()) r.actual = d.actual("$.actual", fieldOf(m, "actual"));
  return finish(d) ? r : null;
}

/** Decodes a test input envelope. */
export function decodeTestInput(data: Uint8Array): TestInput | null {
  const v = parsed(data);
  if (v === null) return null;
  const d = new Decoder();
  const m = d.top(v);
  const r = new TestInput();
  r.abiVersion = d.integer("$", ".abi_version", fieldOf(m, "abi_version"));
  r.config = d.map("$", ".config", fieldOf(m, "config"));
  const res = d.obj("$", ".result", fieldOf(m, "result"));
  if (res !== null) {
    const run = r.result;
    run.taskResult = field(res, "task_result");
    run.status = d.str("$.result", ".status", field(res, "status"));
    run.instruction = d.str("$.result", ".instruction", field(res, "instruction"));
    run.iterations = d.integer("$.result", ".iterations", field(res, "iterations"));
    run.sandbox = field(res, "sandbox");
    run.executionTrace = d.arr("$.result", ".execution_trace", field(res, "execution_trace"));
    const conv = d.arr("$.result", ".conversation", field(res, "conversation"));
    for (let i = 0; i < conv.length; i++) {
      const mm = d.obj("$.result", ".conversation", conv[i], i);
      const msg = new Message();
      if (mm !== null) {
        const p = joinPath("$.result", ".conversation", i);
        msg.role = d.str(p, ".role", field(mm, "role"));
        msg.content = d.str(p, ".content", field(mm, "content"));
        msg.name = d.str(p, ".name", field(mm, "name"));
        const tcs = d.arr(p, ".tool_calls", field(mm, "tool_calls"));
        for (let j = 0; j < tcs.length; j++) {
          const tm = d.obj(p, ".tool_calls", tcs[j], j);
          const tc = new ToolCall();
          if (tm !== null) {
            tc.name = d.str(joinPath(p, ".tool_calls", j), ".name", field(tm, "name"));
            tc.arguments = field(tm, "arguments");
          }
          msg.toolCalls.push(tc);
        }
      }
      run.conversation.push(msg);
    }
  }
  return finish(d) ? r : null;
}

/** A number argument as f64 (0 when absent or not a number). */
export function num(m: Obj, k: string): f64 {
  const v = field(m, k);
  return v.kind == Kind.Number ? numberValue(v.s) : (v.kind == Kind.Float ? v.f : 0);
}

/** A string argument ("" when absent or not a string). */
export function str(m: Obj, k: string): string {
  return field(m, k).asString();
}

/** A bool argument (false when absent or not a bool). */
export function flag(m: Obj, k: string): bool {
  return field(m, k).asBool();
}

/** Field k of an object, Null when absent. */
export function get(m: Obj, k: string): Value {
  return field(m, k);
}
