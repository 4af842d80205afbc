// JSON deep compare with numeric tolerance, giving the structured diff the
// engine's json check gives (same paths, ops, summary), as in the Go and
// Rust SDKs.

import { Value, Kind, quote, formatFloat, numberValue, sortedKeys } from "./json";
import { Doc, sameText, compareKeyNodes } from "./tape";
import { Diff, DiffEntry } from "./models";

export const MAX_DIFF_ENTRIES = 50;

export class JSONOptions {
  tolerance: f64 = 0;
  relTolerance: f64 = 0;
  ignoreKeys: Array<string> = [];
  unorderedLists: bool = false;
}

/** Deep-compares two values: null when they match, else every difference
 * with its path, capped at MAX_DIFF_ENTRIES, and a one-line summary. */
export function compareJSON(expected: Value, actual: Value, opts: JSONOptions): Diff | null {
  const c = new Comparer(opts);
  c.compare(expected, actual);
  if (c.diff.entries.length == 0 && !c.diff.truncated) return null;
  c.diff.summary = summarize(c.diff.entries, c.diff.truncated);
  return c.diff;
}

function numText(v: Value): string {
  return v.kind == Kind.Float ? formatFloat(v.f) : v.s;
}

// A step of the path of the value being compared.
const STEP_KEY = 0; // an object key given as a string
const STEP_NODE = 1; // an object key given as a document's key node
const STEP_INDEX = 2; // an array index

class Comparer {
  opts: JSONOptions;
  diff: Diff = new Diff();
  // The path of the value being compared, from "$": steps of three i32
  // (kind, then a document and key node, or an index), and the keys given
  // as strings. It is written out only for a difference.
  steps: StaticArray<i32> = new StaticArray<i32>(96);
  depth: i32 = 0;
  keys: Array<string> = new Array<string>();
  // The keys to ignore as UTF-8, for comparing with a document's keys.
  ignoreBytes: Array<ArrayBuffer> = new Array<ArrayBuffer>();
  // Whether only equality is asked (an unordered list's elements): a
  // difference is then noted, not described.
  quick: bool = false;
  differs: bool = false;
  sub: Comparer | null = null;
  constructor(opts: JSONOptions) {
    this.opts = opts;
    for (let i = 0, n = opts.ignoreKeys.length; i < n; i++) this.ignoreBytes.push(String.UTF8.encode(opts.ignoreKeys[i]));
  }

  ignored(k: string): bool { return this.opts.ignoreKeys.includes(k); }
  ignoredNode(d: Doc, k: i32): bool {
    const n = this.ignoreBytes.length;
    if (n == 0) return false;
    const p = d.ptr(k), len = d.size(k);
    for (let i = 0; i < n; i++) {
      const b = unchecked(this.ignoreBytes[i]);
      if (b.byteLength == len && sameBytesAt(p, changetype<usize>(b), len)) return true;
    }
    return false;
  }

  step(kind: i32, x: i32, y: i32): void {
    let s = this.steps;
    const at = this.depth * 3;
    if (at + 3 > s.length) {
      const ns = new StaticArray<i32>(s.length << 1);
      memory.copy(changetype<usize>(ns), changetype<usize>(s), <usize>at << 2);
      this.steps = ns;
      s = ns;
    }
    unchecked(s[at] = kind);
    unchecked(s[at + 1] = x);
    unchecked(s[at + 2] = y);
    this.depth++;
  }
  key(k: string): void { this.keys.push(k); this.step(STEP_KEY, this.keys.length - 1, 0); }
  keyNode(d: Doc, k: i32): void { this.step(STEP_NODE, <i32>changetype<usize>(d), k); }
  index(i: i32): void { this.step(STEP_INDEX, i, 0); }
  pop(): void {
    this.depth--;
    if (unchecked(this.steps[this.depth * 3]) == STEP_KEY) this.keys.pop();
  }
  path(): string {
    let p = "$";
    const s = this.steps;
    for (let i = 0, n = this.depth; i < n; i++) {
      const kind = unchecked(s[i * 3]), x = unchecked(s[i * 3 + 1]), y = unchecked(s[i * 3 + 2]);
      if (kind == STEP_KEY) p = childPath(p, unchecked(this.keys[x]));
      else if (kind == STEP_NODE) p = childPath(p, changetype<Doc>(<usize>x).text(y));
      else p = p + "[" + x.toString() + "]";
    }
    return p;
  }

  add(op: string, expected: Value, actual: Value): void {
    if (this.quick) { this.differs = true; return; }
    if (this.diff.entries.length >= MAX_DIFF_ENTRIES) { this.diff.truncated = true; return; }
    this.diff.entries.push(new DiffEntry(this.path(), op, expected, actual));
  }

  compare(want: Value, got: Value): void {
    const wd = want.docNode, gd = got.docNode;
    if (wd !== null && gd !== null) { this.nodes(wd, want._node, gd, got._node); return; }
    if (want.kind == Kind.Object) {
      if (got.kind != Kind.Object) { this.add("type", want, got); return; }
      const wk = sortedKeys(want.obj);
      for (let i = 0; i < wk.length; i++) {
        const k = wk[i];
        if (this.ignored(k)) continue;
        this.key(k);
        if (got.obj.has(k)) this.compare(want.obj.get(k), got.obj.get(k));
        else this.add("missing", want.obj.get(k), Value.null());
        this.pop();
      }
      const gk = sortedKeys(got.obj);
      for (let i = 0; i < gk.length; i++) {
        const k = gk[i];
        if (!want.obj.has(k) && !this.ignored(k)) {
          this.key(k);
          this.add("extra", Value.null(), got.obj.get(k));
          this.pop();
        }
      }
      return;
    }
    if (want.kind == Kind.Array) {
      if (got.kind != Kind.Array) { this.add("type", want, got); return; }
      if (this.opts.unorderedLists) { this.compareUnordered(want.arr, got.arr); return; }
      const w = want.arr, g = got.arr;
      const n = max(w.length, g.length);
      for (let i = 0; i < n; i++) {
        this.index(i);
        if (i >= g.length) this.add("missing", w[i], Value.null());
        else if (i >= w.length) this.add("extra", Value.null(), g[i]);
        else this.compare(w[i], g[i]);
        this.pop();
      }
      return;
    }
    if (want.kind == Kind.Number || want.kind == Kind.Float) {
      if (got.kind != Kind.Number && got.kind != Kind.Float) { this.add("type", want, got); return; }
      if (!numbersEqual(numText(want), numText(got), this.opts)) this.add("changed", want, got);
      return;
    }
    if (typeOf(want) != typeOf(got)) { this.add("type", want, got); return; }
    if (!want.equals(got)) this.add("changed", want, got);
  }

  /** compare for two documents' nodes. */
  nodes(wd: Doc, wi: i32, gd: Doc, gi: i32): void {
    if (wd === gd && wi == gi) return; // the same value
    if (this.quick && this.differs) return;
    const wk = wd.kind(wi), gk = gd.kind(gi);
    if (wk == Kind.Object) {
      if (gk != Kind.Object) { this.add("type", Value.at(wd, wi), Value.at(gd, gi)); return; }
      // Both objects' keys in order, walked side by side.
      const wo = wd.order(wi), go = gd.order(gi);
      const wn = wd.ordAt(wo), gn = gd.ordAt(go);
      let j = 0;
      for (let i = 0; i < wn; i++) {
        const k = wd.ordAt(wo + 1 + i);
        if (this.ignoredNode(wd, k)) continue;
        let c = 1;
        while (j < gn) {
          c = compareKeyNodes(gd, gd.ordAt(go + 1 + j), wd, k);
          if (c >= 0) break;
          j++;
        }
        this.keyNode(wd, k);
        if (j < gn && c == 0) this.nodes(wd, k + 1, gd, gd.ordAt(go + 1 + j) + 1);
        else this.add("missing", Value.at(wd, k + 1), Value.null());
        this.pop();
      }
      let i = 0;
      for (j = 0; j < gn; j++) {
        const k = gd.ordAt(go + 1 + j);
        let c = 1;
        while (i < wn) {
          c = compareKeyNodes(wd, wd.ordAt(wo + 1 + i), gd, k);
          if (c >= 0) break;
          i++;
        }
        if ((i < wn && c == 0) || this.ignoredNode(gd, k)) continue;
        this.keyNode(gd, k);
        this.add("extra", Value.null(), Value.at(gd, k + 1));
        this.pop();
      }
      return;
    }
    if (wk == Kind.Array) {
      if (gk != Kind.Array) { this.add("type", Value.at(wd, wi), Value.at(gd, gi)); return; }
      if (this.opts.unorderedLists) { this.unorderedNodes(wd, wi, gd, gi); return; }
      const wn = wd.a(wi), gn = gd.a(gi);
      let wc = wi + 1, gc = gi + 1;
      for (let i = 0, n = max(wn, gn); i < n; i++) {
        this.index(i);
        if (i >= gn) this.add("missing", Value.at(wd, wc), Value.null());
        else if (i >= wn) this.add("extra", Value.null(), Value.at(gd, gc));
        else this.nodes(wd, wc, gd, gc);
        this.pop();
        if (i < wn) wc = wd.next(wc);
        if (i < gn) gc = gd.next(gc);
      }
      return;
    }
    if (wk == Kind.Number) {
      if (gk != Kind.Number) { this.add("type", Value.at(wd, wi), Value.at(gd, gi)); return; }
      if (!sameText(wd, wi, gd, gi) && !numbersEqual(wd.text(wi), gd.text(gi), this.opts)) {
        this.add("changed", Value.at(wd, wi), Value.at(gd, gi));
      }
      return;
    }
    if (kindName(wk) != kindName(gk)) { this.add("type", Value.at(wd, wi), Value.at(gd, gi)); return; }
    let same = true;
    if (wk == Kind.Bool) same = wd.a(wi) == gd.a(gi);
    else if (wk == Kind.String) same = sameText(wd, wi, gd, gi);
    if (!same) this.add("changed", Value.at(wd, wi), Value.at(gd, gi));
  }

  compareUnordered(want: Array<Value>, got: Array<Value>): void {
    const used = new Array<bool>(got.length);
    for (let j = 0; j < got.length; j++) used[j] = false;
    const missing = new Array<i32>();
    for (let i = 0; i < want.length; i++) {
      let found = false;
      for (let j = 0; j < got.length; j++) {
        if (!used[j] && this.equal(want[i], got[j])) { used[j] = true; found = true; break; }
      }
      if (!found) missing.push(i);
    }
    for (let k = 0; k < missing.length; k++) {
      const i = missing[k];
      this.index(i);
      this.add("missing", want[i], Value.null());
      this.pop();
    }
    for (let j = 0; j < got.length; j++) {
      if (!used[j]) {
        this.index(j);
        this.add("extra", Value.null(), got[j]);
        this.pop();
      }
    }
  }

  /** compareUnordered for two documents' array nodes. */
  unorderedNodes(wd: Doc, wi: i32, gd: Doc, gi: i32): void {
    const wn = wd.a(wi), gn = gd.a(gi);
    const want = new StaticArray<i32>(wn), got = new StaticArray<i32>(gn);
    for (let i = 0, c = wi + 1; i < wn; i++) { unchecked(want[i] = c); c = wd.next(c); }
    for (let j = 0, c = gi + 1; j < gn; j++) { unchecked(got[j] = c); c = gd.next(c); }
    const used = new StaticArray<bool>(gn);
    const missing = new Array<i32>();
    for (let i = 0; i < wn; i++) {
      let found = false;
      for (let j = 0; j < gn; j++) {
        if (!unchecked(used[j]) && this.equalNodes(wd, unchecked(want[i]), gd, unchecked(got[j]))) {
          unchecked(used[j] = true);
          found = true;
          break;
        }
      }
      if (!found) missing.push(i);
    }
    for (let k = 0; k < missing.length; k++) {
      const i = missing[k];
      this.index(i);
      this.add("missing", Value.at(wd, unchecked(want[i])), Value.null());
      this.pop();
    }
    for (let j = 0; j < gn; j++) {
      if (!unchecked(used[j])) {
        this.index(j);
        this.add("extra", Value.null(), Value.at(gd, unchecked(got[j])));
        this.pop();
      }
    }
  }

  subComparer(): Comparer {
    let sub = this.sub;
    if (sub === null) { sub = new Comparer(this.opts); sub.quick = true; this.sub = sub; }
    sub.differs = false;
    return sub;
  }

  equal(want: Value, got: Value): bool {
    const sub = this.subComparer();
    sub.compare(want, got);
    return !sub.differs;
  }

  equalNodes(wd: Doc, wi: i32, gd: Doc, gi: i32): bool {
    const sub = this.subComparer();
    sub.nodes(wd, wi, gd, gi);
    return !sub.differs;
  }
}

function sameBytesAt(p: usize, q: usize, n: i32): bool {
  for (let i = 0; i < n; i++) if (load<u8>(p + <usize>i) != load<u8>(q + <usize>i)) return false;
  return true;
}

function isInteger(s: string): bool {
  let i = s.startsWith("-") ? 1 : 0;
  if (i >= s.length) return false;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** |a - b| for two decimal integers of any length, as decimal digits. */
function intDiff(a: string, b: string): string {
  const an = a.startsWith("-"), bn = b.startsWith("-");
  let ad = an ? a.substring(1) : a, bd = bn ? b.substring(1) : b;
  while (ad.length > 0 && ad.charCodeAt(0) == 0x30) ad = ad.substring(1);
  while (bd.length > 0 && bd.charCodeAt(0) == 0x30) bd = bd.substring(1);
  const x = new Array<i32>(), y = new Array<i32>();
  for (let i = ad.length - 1; i >= 0; i--) x.push(ad.charCodeAt(i) - 0x30);
  for (let i = bd.length - 1; i >= 0; i--) y.push(bd.charCodeAt(i) - 0x30);
  const out = new Array<i32>();
  if (an != bn) {
    let carry = 0;
    for (let i = 0; i < max(x.length, y.length); i++) {
      const s = (i < x.length ? x[i] : 0) + (i < y.length ? y[i] : 0) + carry;
      out.push(s % 10);
      carry = s / 10;
    }
    if (carry > 0) out.push(carry);
  } else {
    const xBigger = ad.length > bd.length || (ad.length == bd.length && ad >= bd);
    const big = xBigger ? x : y, small = xBigger ? y : x;
    let borrow = 0;
    for (let i = 0; i < big.length; i++) {
      let s = big[i] - (i < small.length ? small[i] : 0) - borrow;
      borrow = 0;
      if (s < 0) { s += 10; borrow = 1; }
      out.push(s);
    }
  }
  while (out.length > 1 && out[out.length - 1] == 0) out.pop();
  if (out.length == 0) return "0";
  let s = "";
  for (let i = out.length - 1; i >= 0; i--) s += String.fromCharCode(0x30 + out[i]);
  return s;
}

/** Integers compare exactly (no float rounding for large IDs), everything
 * else as floats, within the tolerances either way. */
export function numbersEqual(a: string, b: string, opts: JSONOptions): bool {
  if (a == b) return true;
  let d: f64, scale: f64;
  if (isInteger(a) && isInteger(b)) {
    const diff = intDiff(a, b);
    if (diff == "0") return true;
    d = numberValue(diff);
    scale = max(Math.abs(numberValue(a)), Math.abs(numberValue(b)));
  } else {
    const af = numberValue(a), bf = numberValue(b);
    if (!isFinite(af) || !isFinite(bf)) return false;
    if (af == bf) return true;
    d = Math.abs(af - bf);
    scale = max(Math.abs(af), Math.abs(bf));
  }
  return d <= opts.tolerance || d <= opts.relTolerance * scale;
}

function typeOf(v: Value): string { return kindName(v.kind); }

function kindName(k: Kind): string {
  switch (k) {
    case Kind.Null: return "null";
    case Kind.Bool: return "boolean";
    case Kind.String: return "string";
    case Kind.Number: case Kind.Float: return "number";
    case Kind.Array: return "array";
  }
  return "object";
}

function isIdentifier(k: string): bool {
  if (k.length == 0) return false;
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    const ok = c == 0x5f || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (i > 0 && c >= 0x30 && c <= 0x39);
    if (!ok) return false;
  }
  return true;
}

/** Extends a JSON path with an object key, quoting keys that are not plain
 * identifiers. */
export function childPath(path: string, key: string): string {
  return isIdentifier(key) ? path + "." + key : path + "[" + quote(key) + "]";
}

/** Says what differs in one line: the first difference and how many more. */
export function summarize(entries: Array<DiffEntry>, truncated: bool): string {
  if (entries.length == 0) return "";
  const e = entries[0];
  let first: string;
  if (e.op == "missing") first = e.path + " missing (expected " + brief(e.expected) + ")";
  else if (e.op == "extra") first = e.path + " unexpected (" + brief(e.actual) + ")";
  else if (e.op == "type") first = e.path + " is " + typeOf(e.actual) + ", expected " + typeOf(e.expected);
  else first = e.path + ": expected " + brief(e.expected) + ", got " + brief(e.actual);
  const more = entries.length - 1;
  if (truncated) return first + "; and more than " + more.toString() + " other differences";
  if (more == 1) return first + "; and 1 other difference";
  if (more > 1) return first + "; and " + more.toString() + " other differences";
  return first;
}

/** Renders a value compactly for a summary line: containers by kind,
 * strings quoted as Go's %q quotes them and clipped to 60 bytes, numbers as
 * written. */
export function brief(v: Value): string {
  switch (v.kind) {
    case Kind.Object: return "an object";
    case Kind.Array: return "a list";
    case Kind.String: return goQuote(clip(v.s, 60));
    case Kind.Null: return "null";
    case Kind.Bool: return v.b ? "true" : "false";
  }
  return clip(numText(v), 60);
}

/** Shortens s to at most n UTF-8 bytes at a character boundary, marking
 * the cut with "…". */
export function clip(s: string, n: i32): string {
  if (String.UTF8.byteLength(s) <= n) return s;
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.codePointAt(i);
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (bytes + w > n) break;
    bytes += w;
    i += c >= 0x10000 ? 2 : 1;
  }
  return s.substring(0, i) + "…";
}

function goPrintable(u: i32): bool {
  return !(u < 0x20
    || (u >= 0x7f && u <= 0xa0) || u == 0xad
    || (u >= 0x600 && u <= 0x605) || u == 0x61c || u == 0x6dd || u == 0x70f || u == 0x8e2
    || u == 0x1680 || u == 0x180e
    || (u >= 0x2000 && u <= 0x200f) || (u >= 0x2028 && u <= 0x202f)
    || (u >= 0x205f && u <= 0x2064) || (u >= 0x2066 && u <= 0x206f)
    || u == 0x3000 || (u >= 0xd800 && u <= 0xf8ff) || u == 0xfeff
    || (u >= 0xfff9 && u <= 0xfffb) || u == 0xfffe || u == 0xffff
    || u == 0x110bd || (u >= 0x1bca0 && u <= 0x1bca3) || (u >= 0x1d173 && u <= 0x1d17a)
    || u == 0xe0001 || (u >= 0xe0020 && u <= 0xe007f) || u >= 0xf0000);
}

function hex(u: i32, width: i32): string {
  let s = u.toString(16);
  while (s.length < width) s = "0" + s;
  return s;
}

/** Quotes s the way Go's strconv.Quote does. */
export function goQuote(s: string): string {
  const out = new Array<string>();
  out.push("\"");
  let i = 0;
  while (i < s.length) {
    const c = s.codePointAt(i);
    const w = c >= 0x10000 ? 2 : 1;
    if (c == 7) out.push("\\a");
    else if (c == 8) out.push("\\b");
    else if (c == 12) out.push("\\f");
    else if (c == 10) out.push("\\n");
    else if (c == 13) out.push("\\r");
    else if (c == 9) out.push("\\t");
    else if (c == 11) out.push("\\v");
    else if (c == 0x5c) out.push("\\\\");
    else if (c == 0x22) out.push("\\\"");
    else if (c < 0x20 || c == 0x7f) out.push("\\x" + hex(c, 2));
    else if (goPrintable(c)) out.push(s.substring(i, i + w));
    else if (c < 0x10000) out.push("\\u" + hex(c, 4));
    else out.push("\\U" + hex(c, 8));
    i += w;
  }
  out.push("\"");
  return out.join("");
}
