// The shared JSON model of the wasmeval SDKs (docs/conformance.md):
// numbers keep their literal text, output is canonical (keys in code point
// order, Go encoding/json's escaping, computed floats formatted like Go's
// float64), malformed input gives the same message as in Go and Rust.
// Parsing works on the UTF-8 bytes, so error offsets are byte offsets.

import { parseNumberLiteral, shortestDigits } from "./decimal";

export const enum Kind { Null, Bool, Number, Float, String, Array, Object }

/** A JSON value. Number holds the literal text; Float a computed number. */
export class Value {
  kind: Kind = Kind.Null;
  b: bool = false;
  s: string = "";
  f: f64 = 0;
  arr: Array<Value> = [];
  obj: Map<string, Value> = new Map<string, Value>();

  static null(): Value { return new Value(); }
  static bool(b: bool): Value { const v = new Value(); v.kind = Kind.Bool; v.b = b; return v; }
  /** A number by its literal text (must be a valid JSON number). */
  static number(literal: string): Value { const v = new Value(); v.kind = Kind.Number; v.s = literal; return v; }
  static int(i: i64): Value { return Value.number(i.toString()); }
  /** A computed number, written like Go writes a float64. */
  static float(f: f64): Value { const v = new Value(); v.kind = Kind.Float; v.f = f; return v; }
  static str(s: string): Value { const v = new Value(); v.kind = Kind.String; v.s = s; return v; }
  static array(a: Array<Value>): Value { const v = new Value(); v.kind = Kind.Array; v.arr = a; return v; }
  static object(m: Map<string, Value>): Value { const v = new Value(); v.kind = Kind.Object; v.obj = m; return v; }
  static newObject(): Value { return Value.object(new Map<string, Value>()); }

  isNull(): bool { return this.kind == Kind.Null; }
  isString(): bool { return this.kind == Kind.String; }
  isNumber(): bool { return this.kind == Kind.Number || this.kind == Kind.Float; }
  isObject(): bool { return this.kind == Kind.Object; }
  isArray(): bool { return this.kind == Kind.Array; }
  isBool(): bool { return this.kind == Kind.Bool; }

  /** Field k of an object; null when absent or not an object. */
  get(k: string): Value {
    if (this.kind != Kind.Object || !this.obj.has(k)) return Value.null();
    return this.obj.get(k);
  }
  has(k: string): bool { return this.kind == Kind.Object && this.obj.has(k); }
  /** Sets field k (the value becomes an object if it was not one). */
  set(k: string, v: Value): Value {
    if (this.kind != Kind.Object) { this.kind = Kind.Object; this.obj = new Map<string, Value>(); }
    this.obj.set(k, v);
    return this;
  }
  /** The string, or "" when not a string. */
  asString(): string { return this.kind == Kind.String ? this.s : ""; }
  asBool(): bool { return this.kind == Kind.Bool ? this.b : false; }
  /** The number as f64 (0 when not a number). */
  asF64(): f64 {
    if (this.kind == Kind.Float) return this.f;
    if (this.kind == Kind.Number) return parseNumberLiteral(this.s);
    return 0;
  }
  /** The number's text: the literal, or a computed number formatted. */
  numberText(): string {
    return this.kind == Kind.Float ? formatFloat(this.f) : this.s;
  }
  /** Canonical JSON; null (with lastError set) for a non-finite number. */
  toJSON(): string | null {
    const parts = new Array<string>();
    if (!encodeInto(this, parts)) return null;
    return parts.join("");
  }
  /** Deep equality of the model (literal numbers by text). */
  equals(o: Value): bool {
    if (this.kind != o.kind) return false;
    switch (this.kind) {
      case Kind.Null: return true;
      case Kind.Bool: return this.b == o.b;
      case Kind.Number: case Kind.String: return this.s == o.s;
      case Kind.Float: return this.f == o.f;
      case Kind.Array: {
        if (this.arr.length != o.arr.length) return false;
        for (let i = 0; i < this.arr.length; i++) if (!this.arr[i].equals(o.arr[i])) return false;
        return true;
      }
    }
    const ka = this.obj.keys();
    if (ka.length != o.obj.size) return false;
    for (let i = 0; i < ka.length; i++) {
      if (!o.obj.has(ka[i]) || !this.obj.get(ka[i]).equals(o.obj.get(ka[i]))) return false;
    }
    return true;
  }
}

export const MAX_DEPTH = 1000;
export const NON_FINITE = "cannot encode a non-finite number as JSON";

/** Set when parse returns null: "invalid JSON at byte N: reason". */
export let parseError: string = "";

function hexByte(b: u8): string {
  const h = "0123456789abcdef";
  return h.charAt(b >> 4) + h.charAt(b & 15);
}

/** Offset of the first byte that does not start valid UTF-8, or -1. */
export function invalidUTF8(data: Uint8Array): i32 {
  const n = data.length;
  let i = 0;
  while (i < n) {
    const c = data[i];
    if (c < 0x80) { i++; continue; }
    let need = 0;
    let lo: u8 = 0x80, hi: u8 = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c == 0xe0) { need = 2; lo = 0xa0; }
    else if (c >= 0xe1 && c <= 0xec) need = 2;
    else if (c == 0xed) { need = 2; hi = 0x9f; }
    else if (c >= 0xee && c <= 0xef) need = 2;
    else if (c == 0xf0) { need = 3; lo = 0x90; }
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else if (c == 0xf4) { need = 3; hi = 0x8f; }
    else return i;
    if (i + need >= n + 0 && i + need > n - 1 + 1) return i;
    const c1 = data[i + 1];
    if (c1 < lo || c1 > hi) return i;
    for (let k = 2; k <= need; k++) {
      const ck = data[i + k];
      if (ck < 0x80 || ck > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

class Parser {
  data: Uint8Array;
  pos: i32 = 0;
  err: string = "";
  errAt: i32 = 0;
  constructor(data: Uint8Array) { this.data = data; }

  fail(reason: string): Value | null {
    if (this.err.length == 0) { this.err = reason; this.errAt = this.pos; }
    return null;
  }
  failAt(at: i32, reason: string): Value | null {
    if (this.err.length == 0) { this.err = reason; this.errAt = at; }
    return null;
  }
  unexpected(): Value | null {
    if (this.pos >= this.data.length) return this.fail("unexpected end of input");
    return this.fail("unexpected byte 0x" + hexByte(this.data[this.pos]));
  }
  peek(): i32 { return this.pos < this.data.length ? <i32>this.data[this.pos] : -1; }
  skip(): void {
    while (this.pos < this.data.length) {
      const c = this.data[this.pos];
      if (c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d) this.pos++;
      else return;
    }
  }
  literal(word: string, v: Value): Value | null {
    for (let i = 0; i < word.length; i++) {
      if (this.peek() != word.charCodeAt(i)) return this.unexpected();
      this.pos++;
    }
    return v;
  }
  value(depth: i32): Value | null {
    const c = this.peek();
    if (c < 0) return this.unexpected();
    if ((c == 0x7b || c == 0x5b) && depth >= MAX_DEPTH) return this.fail("nesting deeper than 1000");
    if (c == 0x7b) return this.object(depth);
    if (c == 0x5b) return this.array(depth);
    if (c == 0x22) {
      const s = this.string();
      if (s === null) return null;
      return Value.str(s);
    }
    if (c == 0x74) return this.literal("true", Value.bool(true));
    if (c == 0x66) return this.literal("false", Value.bool(false));
    if (c == 0x6e) return this.literal("null", Value.null());
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    return this.unexpected();
  }
  object(depth: i32): Value | null {
    this.pos++;
    const m = new Map<string, Value>();
    this.skip();
    if (this.peek() == 0x7d) { this.pos++; return Value.object(m); }
    while (true) {
      this.skip();
      if (this.peek() != 0x22) return this.unexpected();
      const k = this.string();
      if (k === null) return null;
      this.skip();
      if (this.peek() != 0x3a) return this.unexpected();
      this.pos++;
      this.skip();
      const v = this.value(depth + 1);
      if (v === null) return null;
      m.set(k, v);
      this.skip();
      const c = this.peek();
      if (c == 0x2c) { this.pos++; continue; }
      if (c == 0x7d) { this.pos++; return Value.object(m); }
      return this.unexpected();
    }
    return null;
  }
  array(depth: i32): Value | null {
    this.pos++;
    const a = new Array<Value>();
    this.skip();
    if (this.peek() == 0x5d) { this.pos++; return Value.array(a); }
    while (true) {
      this.skip();
      const v = this.value(depth + 1);
      if (v === null) return null;
      a.push(v);
      this.skip();
      const c = this.peek();
      if (c == 0x2c) { this.pos++; continue; }
      if (c == 0x5d) { this.pos++; return Value.array(a); }
      return this.unexpected();
    }
    return null;
  }
  digits(): i32 {
    let n = 0;
    while (this.peek() >= 0x30 && this.peek() <= 0x39) { this.pos++; n++; }
    return n;
  }
  number(): Value | null {
    const start = this.pos;
    if (this.peek() == 0x2d) this.pos++;
    if (this.peek() == 0x30) this.pos++;
    else if (this.digits() == 0) return this.failAt(start, "invalid number");
    if (this.peek() == 0x2e) {
      this.pos++;
      if (this.digits() == 0) return this.failAt(start, "invalid number");
    }
    if (this.peek() == 0x65 || this.peek() == 0x45) {
      this.pos++;
      if (this.peek() == 0x2b || this.peek() == 0x2d) this.pos++;
      if (this.digits() == 0) return this.failAt(start, "invalid number");
    }
    return Value.number(String.UTF8.decodeUnsafe(this.data.dataStart + <usize>start, <usize>(this.pos - start)));
  }
  hex4(at: i32): i32 {
    if (at + 4 > this.data.length) return -1;
    let r = 0;
    for (let i = at; i < at + 4; i++) {
      const c = <i32>this.data[i];
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
      if (d < 0) return -1;
      r = (r << 4) | d;
    }
    return r;
  }
  raw(from: i32, to: i32): string {
    return String.UTF8.decodeUnsafe(this.data.dataStart + <usize>from, <usize>(to - from));
  }
  /** A string; a lone surrogate escape becomes U+FFFD (as in Go). */
  string(): string | null {
    this.pos++;
    const parts = new Array<string>();
    let seg = this.pos;
    const data = this.data;
    while (true) {
      if (this.pos >= data.length) { this.fail("unexpected end of input"); return null; }
      const c = data[this.pos];
      if (c == 0x22) {
        const last = this.raw(seg, this.pos);
        this.pos++;
        if (parts.length == 0) return last;
        parts.push(last);
        return parts.join("");
      }
      if (c < 0x20) { this.fail("control character in string"); return null; }
      if (c != 0x5c) { this.pos++; continue; }
      if (this.pos > seg) parts.push(this.raw(seg, this.pos));
      if (this.pos + 1 >= data.length) { this.pos++; this.fail("unexpected end of input"); return null; }
      const e = data[this.pos + 1];
      let simple = -1;
      if (e == 0x22) simple = 0x22;
      else if (e == 0x5c) simple = 0x5c;
      else if (e == 0x2f) simple = 0x2f;
      else if (e == 0x62) simple = 8;
      else if (e == 0x66) simple = 12;
      else if (e == 0x6e) simple = 10;
      else if (e == 0x72) simple = 13;
      else if (e == 0x74) simple = 9;
      if (simple >= 0) {
        parts.push(String.fromCharCode(simple));
        this.pos += 2;
        seg = this.pos;
        continue;
      }
      if (e != 0x75) { this.fail("invalid escape"); return null; }
      let r = this.hex4(this.pos + 2);
      if (r < 0) { this.fail("invalid escape"); return null; }
      this.pos += 6;
      if (r >= 0xd800 && r < 0xe000) {
        let paired = false;
        if (r < 0xdc00 && this.peek() == 0x5c && this.pos + 1 < data.length && data[this.pos + 1] == 0x75) {
          const r2 = this.hex4(this.pos + 2);
          if (r2 >= 0xdc00 && r2 < 0xe000) {
            r = 0x10000 + ((r - 0xd800) << 10) + (r2 - 0xdc00);
            this.pos += 6;
            paired = true;
          }
        }
        if (!paired) r = 0xfffd;
      }
      parts.push(String.fromCodePoint(r));
      seg = this.pos;
    }
    return null;
  }
}

/** Parses one JSON document; null on malformed input, with parseError set. */
export function parse(data: Uint8Array): Value | null {
  const bad = invalidUTF8(data);
  if (bad >= 0) {
    parseError = "invalid JSON at byte " + bad.toString() + ": invalid UTF-8";
    return null;
  }
  const p = new Parser(data);
  p.skip();
  const v = p.value(0);
  if (v === null) {
    parseError = "invalid JSON at byte " + p.errAt.toString() + ": " + p.err;
    return null;
  }
  p.skip();
  if (p.pos < data.length) {
    parseError = "invalid JSON at byte " + p.pos.toString() + ": unexpected data after the value";
    return null;
  }
  parseError = "";
  return v;
}

/** Parses a JSON document held in a string. */
export function parseString(s: string): Value | null {
  return parse(Uint8Array.wrap(String.UTF8.encode(s)));
}

/** Orders strings by code point (= UTF-8 byte order), not UTF-16 units. */
export function compareKeys(a: string, b: string): i32 {
  const n = min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x == y) continue;
    // Surrogates (D800–DFFF) encode code points above every BMP unit.
    if (x >= 0xd800 && x <= 0xdfff) x += 0x2000; else if (x >= 0xe000) x -= 0x800;
    if (y >= 0xd800 && y <= 0xdfff) y += 0x2000; else if (y >= 0xe000) y -= 0x800;
    return x - y;
  }
  return a.length - b.length;
}

/** The keys of an object in canonical order. */
export function sortedKeys(m: Map<string, Value>): Array<string> {
  const keys = m.keys();
  keys.sort(compareKeys);
  return keys;
}

export let encodeError: string = "";

function encodeInto(v: Value, out: Array<string>): bool {
  switch (v.kind) {
    case Kind.Null: out.push("null"); return true;
    case Kind.Bool: out.push(v.b ? "true" : "false"); return true;
    case Kind.Number: out.push(v.s.length == 0 ? "0" : v.s); return true;
    case Kind.Float: {
      if (!isFinite(v.f)) { encodeError = NON_FINITE; return false; }
      out.push(formatFloat(v.f));
      return true;
    }
    case Kind.String: quoteInto(v.s, out); return true;
    case Kind.Array: {
      out.push("[");
      for (let i = 0; i < v.arr.length; i++) {
        if (i > 0) out.push(",");
        if (!encodeInto(v.arr[i], out)) return false;
      }
      out.push("]");
      return true;
    }
  }
  const keys = sortedKeys(v.obj);
  out.push("{");
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) out.push(",");
    quoteInto(keys[i], out);
    out.push(":");
    if (!encodeInto(v.obj.get(keys[i]), out)) return false;
  }
  out.push("}");
  return true;
}

/** Quotes s as a JSON string, escaped as Go's encoding/json escapes. */
export function quote(s: string): string {
  const out = new Array<string>();
  quoteInto(s, out);
  return out.join("");
}

function quoteInto(s: string, out: Array<string>): void {
  out.push("\"");
  let start = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c >= 0x20 && c != 0x22 && c != 0x5c && c != 0x3c && c != 0x3e && c != 0x26 && c != 0x2028 && c != 0x2029) {
      if (c < 0xd800 || c > 0xdfff) continue;
      // A lone surrogate cannot be UTF-8: written as U+FFFD, like Go.
      if (c <= 0xdbff && i + 1 < n) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
      }
      esc = "\\ufffd";
    } else if (c == 0x22) esc = "\\\"";
    else if (c == 0x5c) esc = "\\\\";
    else if (c == 0x0a) esc = "\\n";
    else if (c == 0x0d) esc = "\\r";
    else if (c == 0x09) esc = "\\t";
    else if (c == 0x08) esc = "\\b";
    else if (c == 0x0c) esc = "\\f";
    else if (c == 0x2028) esc = "\\u2028";
    else if (c == 0x2029) esc = "\\u2029";
    else esc = "\\u00" + hexByte(<u8>c);
    if (i > start) out.push(s.substring(start, i));
    out.push(<string>esc);
    start = i + 1;
  }
  if (start == 0) out.push(s);
  else if (start < n) out.push(s.substring(start, n));
  out.push("\"");
}

/** Formats a float as Go's encoding/json does: shortest round-trip digits,
 * plain notation for 1e-6 <= |f| < 1e21, exponent notation otherwise. */
export function formatFloat(f: f64): string {
  if (f == 0) return (1 / f) < 0 ? "-0" : "0";
  const neg = f < 0;
  const abs = Math.abs(f);
  const d = shortestDigits(abs);
  const digits = String.UTF8.decodeUnsafe(d.d.dataStart, <usize>d.nd);
  const point = d.dp; // value = 0.digits × 10^point
  let out: string;
  if (abs < 1e-6 || abs >= 1e21) {
    const x = point - 1;
    out = digits.substring(0, 1) + (digits.length > 1 ? "." + digits.substring(1) : "") + "e" + (x < 0 ? "-" : "+") + (x < 0 ? -x : x).toString();
  } else if (point <= 0) {
    out = "0." + "0".repeat(-point) + digits;
  } else if (point >= digits.length) {
    out = digits + "0".repeat(point - digits.length);
  } else {
    out = digits.substring(0, point) + "." + digits.substring(point);
  }
  return neg ? "-" + out : out;
}

/** A JSON number literal as the nearest float64 (as Go's ParseFloat). */
export function numberValue(literal: string): f64 {
  return parseNumberLiteral(literal);
}
