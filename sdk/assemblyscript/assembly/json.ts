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
  // The elements and members, made when first asked for: most values are
  // neither arrays nor objects, and a map and an array per value would
  // make allocation most of a call's work.
  private _arr: Array<Value> | null = null;
  private _obj: Map<string, Value> | null = null;

  /** The elements of an array (empty for other kinds). */
  get arr(): Array<Value> {
    let a = this._arr;
    if (a === null) { a = new Array<Value>(); this._arr = a; }
    return a;
  }
  set arr(a: Array<Value>) { this._arr = a; }
  /** The members of an object (empty for other kinds). */
  get obj(): Map<string, Value> {
    let m = this._obj;
    if (m === null) { m = new Map<string, Value>(); this._obj = m; }
    return m;
  }
  set obj(m: Map<string, Value>) { this._obj = m; }

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
  /** Canonical JSON; null (with encodeError set) for a non-finite number. */
  toJSON(): string | null {
    const w = new ByteWriter(64);
    if (!w.value(this)) return null;
    return w.toString();
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
  const p = data.dataStart;
  let i = 0;
  while (i < n) {
    const c = load<u8>(p + <usize>i);
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
    if (i + need >= n) return i; // cut short by the end of the input
    const c1 = load<u8>(p + <usize>(i + 1));
    if (c1 < lo || c1 > hi) return i;
    for (let k = 2; k <= need; k++) {
      const ck = load<u8>(p + <usize>(i + k));
      if (ck < 0x80 || ck > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

class Parser {
  data: Uint8Array;
  // The bytes, read without bounds checks: every read is below n.
  p: usize;
  n: i32;
  pos: i32 = 0;
  err: string = "";
  errAt: i32 = 0;
  constructor(data: Uint8Array) { this.data = data; this.p = data.dataStart; this.n = data.length; }
  @inline at(i: i32): i32 { return <i32>load<u8>(this.p + <usize>i); }

  fail(reason: string): Value | null {
    if (this.err.length == 0) { this.err = reason; this.errAt = this.pos; }
    return null;
  }
  failAt(at: i32, reason: string): Value | null {
    if (this.err.length == 0) { this.err = reason; this.errAt = at; }
    return null;
  }
  unexpected(): Value | null {
    if (this.pos >= this.n) return this.fail("unexpected end of input");
    return this.fail("unexpected byte 0x" + hexByte(<u8>this.at(this.pos)));
  }
  peek(): i32 { return this.pos < this.n ? <i32>this.at(this.pos) : -1; }
  skip(): void {
    while (this.pos < this.n) {
      const c = this.at(this.pos);
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
    return Value.number(String.UTF8.decodeUnsafe(this.p + <usize>start, <usize>(this.pos - start)));
  }
  hex4(at: i32): i32 {
    if (at + 4 > this.n) return -1;
    let r = 0;
    for (let i = at; i < at + 4; i++) {
      const c = this.at(i);
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
    return String.UTF8.decodeUnsafe(this.p + <usize>from, <usize>(to - from));
  }
  /** A string; a lone surrogate escape becomes U+FFFD (as in Go). */
  string(): string | null {
    this.pos++;
    let parts: Array<string> | null = null; // made at the first escape
    let seg = this.pos;
    while (true) {
      if (this.pos >= this.n) { this.fail("unexpected end of input"); return null; }
      const c = this.at(this.pos);
      if (c == 0x22) {
        const last = this.raw(seg, this.pos);
        this.pos++;
        if (parts === null) return last;
        parts.push(last);
        return parts.join("");
      }
      if (c < 0x20) { this.fail("control character in string"); return null; }
      if (c != 0x5c) { this.pos++; continue; }
      if (parts === null) parts = new Array<string>();
      if (this.pos > seg) parts.push(this.raw(seg, this.pos));
      if (this.pos + 1 >= this.n) { this.pos++; this.fail("unexpected end of input"); return null; }
      const e = this.at(this.pos + 1);
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
        if (r < 0xdc00 && this.peek() == 0x5c && this.pos + 1 < this.n && this.at(this.pos + 1) == 0x75) {
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

/** Set when encoding fails (a non-finite number). */
export let encodeError: string = "";

/** A growable buffer of UTF-8 bytes that JSON is written into directly:
 * an envelope, or a whole batch of them, is one buffer, with no string
 * built on the way. */
export class ByteWriter {
  buf: ArrayBuffer;
  len: i32 = 0;

  constructor(capacity: i32 = 256) { this.buf = new ArrayBuffer(max(capacity, 16)); }

  /** The address of the bytes written (valid until the next write). */
  get dataStart(): usize { return changetype<usize>(this.buf); }
  reset(): void { this.len = 0; }
  /** Drops what was written after position n. */
  truncate(n: i32): void { if (n < this.len) this.len = n; }
  /** The bytes written, as a view of the buffer. */
  bytes(): Uint8Array { return Uint8Array.wrap(this.buf, 0, this.len); }
  toString(): string { return String.UTF8.decodeUnsafe(this.dataStart, <usize>this.len); }

  /** Room for n more bytes. */
  reserve(n: i32): void {
    const need = this.len + n;
    const cap = this.buf.byteLength;
    if (need <= cap) return;
    let next = cap << 1;
    if (next < need) next = need;
    const nb = new ArrayBuffer(next);
    memory.copy(changetype<usize>(nb), changetype<usize>(this.buf), <usize>this.len);
    this.buf = nb;
  }
  byte(b: u8): void {
    this.reserve(1);
    store<u8>(changetype<usize>(this.buf) + <usize>this.len, b);
    this.len++;
  }
  /** Appends raw bytes. */
  write(ptr: usize, n: i32): void {
    this.reserve(n);
    memory.copy(changetype<usize>(this.buf) + <usize>this.len, ptr, <usize>n);
    this.len += n;
  }
  /** Appends s as UTF-8 (as String.UTF8.encode writes it). */
  text(s: string): void { this.utf8(s, 0, s.length); }
  /** Appends the UTF-16 units [from, to) of s as UTF-8. */
  utf8(s: string, from: i32, to: i32): void {
    const n = to - from;
    if (n <= 0) return;
    this.reserve(n * 3);
    const at = changetype<usize>(this.buf) + <usize>this.len;
    this.len += <i32>String.UTF8.encodeUnsafe(changetype<usize>(s) + (<usize>from << 1), n, at);
  }
  /** Appends s quoted as a JSON string, escaped as Go's encoding/json
   * escapes (a lone surrogate becomes \ufffd, as in Go). */
  quote(s: string): void {
    this.byte(0x22);
    let start = 0;
    const n = s.length;
    for (let i = 0; i < n; i++) {
      const c = <i32>load<u16>(changetype<usize>(s) + (<usize>i << 1));
      if (c >= 0x20 && c != 0x22 && c != 0x5c && c != 0x3c && c != 0x3e && c != 0x26 && c != 0x2028 && c != 0x2029) {
        if (c < 0xd800 || c > 0xdfff) continue;
        if (c <= 0xdbff && i + 1 < n) {
          const d = <i32>load<u16>(changetype<usize>(s) + (<usize>(i + 1) << 1));
          if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
        }
      }
      this.utf8(s, start, i);
      start = i + 1;
      this.byte(0x5c);
      if (c >= 0xd800 && c <= 0xdfff) { this.ascii("ufffd"); continue; }
      switch (c) {
        case 0x22: this.byte(0x22); break;
        case 0x5c: this.byte(0x5c); break;
        case 0x0a: this.byte(0x6e); break;
        case 0x0d: this.byte(0x72); break;
        case 0x09: this.byte(0x74); break;
        case 0x08: this.byte(0x62); break;
        case 0x0c: this.byte(0x66); break;
        case 0x2028: this.ascii("u2028"); break;
        case 0x2029: this.ascii("u2029"); break;
        default: {
          const h = "0123456789abcdef";
          this.ascii("u00");
          this.byte(<u8>h.charCodeAt(c >> 4));
          this.byte(<u8>h.charCodeAt(c & 15));
        }
      }
    }
    this.utf8(s, start, n);
    this.byte(0x22);
  }
  /** Appends an ASCII string. */
  ascii(s: string): void {
    const n = s.length;
    this.reserve(n);
    const at = changetype<usize>(this.buf) + <usize>this.len;
    for (let i = 0; i < n; i++) store<u8>(at + <usize>i, <u8>load<u16>(changetype<usize>(s) + (<usize>i << 1)));
    this.len += n;
  }
  /** Appends a computed number as Go writes a float64; false (with
   * encodeError set) when it is not finite. */
  float(f: f64): bool {
    if (!isFinite(f)) { encodeError = NON_FINITE; return false; }
    this.ascii(formatFloat(f));
    return true;
  }
  /** Appends v as canonical JSON; false (with encodeError set) for a
   * non-finite number, after which what was written is incomplete. */
  value(v: Value): bool {
    switch (v.kind) {
      case Kind.Null: this.ascii("null"); return true;
      case Kind.Bool: this.ascii(v.b ? "true" : "false"); return true;
      case Kind.Number: if (v.s.length == 0) this.byte(0x30); else this.text(v.s); return true;
      case Kind.Float: return this.float(v.f);
      case Kind.String: this.quote(v.s); return true;
      case Kind.Array: {
        this.byte(0x5b);
        const a = v.arr;
        for (let i = 0, n = a.length; i < n; i++) {
          if (i > 0) this.byte(0x2c);
          if (!this.value(unchecked(a[i]))) return false;
        }
        this.byte(0x5d);
        return true;
      }
    }
    const keys = sortedKeys(v.obj);
    this.byte(0x7b);
    for (let i = 0, n = keys.length; i < n; i++) {
      if (i > 0) this.byte(0x2c);
      const k = unchecked(keys[i]);
      this.quote(k);
      this.byte(0x3a);
      if (!this.value(v.obj.get(k))) return false;
    }
    this.byte(0x7d);
    return true;
  }
}

/** Quotes s as a JSON string, escaped as Go's encoding/json escapes. */
export function quote(s: string): string {
  const w = new ByteWriter(s.length + 2);
  w.quote(s);
  return w.toString();
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
