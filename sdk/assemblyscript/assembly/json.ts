// The shared JSON model of the wasmeval SDKs (docs/conformance.md):
// numbers keep their literal text, output is canonical (keys in code point
// order, Go encoding/json's escaping, computed floats formatted like Go's
// float64), malformed input gives the same message as in Go and Rust.
// Parsing works on the UTF-8 bytes, so error offsets are byte offsets.
//
// A parsed document is kept as its bytes and a tape (tape.ts). A Value read
// from a document points at its node: its text, elements and members are
// made only when asked for (and a container, once its elements or members
// are made, is an ordinary value the plugin may change).

import { parseNumberAt, shortestDigits } from "./decimal";
import {
  Doc, F_ESC, F_AUX, F_WIDE, HIGHS, QUOTES, BACKSLASHES, LTS, GTS, AMPS, E2S, zeroBytes, controlBytes, plainASCII4,
  scratch, unescape, sameText, sameBytes, readDoc, readInputDoc, readError, SLACK, notedSame, nTag, nKind, nA, nB, nAddr, nNext, order, ordAt,
} from "./tape";
export { invalidUTF8 } from "./tape";

export const enum Kind { Null, Bool, Number, Float, String, Array, Object }

/** A JSON value. Number holds the literal text; Float a computed number. */
// The last long string with escapes utf8() unescaped: its text (held in
// the document kept here) and its bytes.
let lastEscaped: ArrayBuffer | null = null;
let lastEscapedM: i32 = 0;
let lastEscapedDoc: Doc | null = null;
let lastEscapedP: usize = 0;
let lastEscapedN: i32 = 0;
/** The last long raw string a value's utf8() gave: its input buffer, its
 * bytes' address and length. */
let lastRaw: ArrayBuffer | null = null;
let lastRawP: usize = 0;
let lastRawN: i32 = 0;

export class Value {
  kind: Kind = Kind.Null;
  b: bool = false;
  f: f64 = 0;
  private _s: string | null = null;
  // The elements and members, made when first asked for: most values are
  // neither arrays nor objects.
  private _arr: Array<Value> | null = null;
  private _obj: Map<string, Value> | null = null;
  /** The document node this value is read from (SDK-internal): set while
   * its text, elements or members are the node's. */
  _doc: Doc | null = null;
  _node: i32 = 0;

  /** The value of node i of a document (SDK-internal). */
  static at(d: Doc, i: i32): Value {
    const v = new Value();
    const k = d.kind(i);
    v.kind = k;
    if (k == Kind.Bool) v.b = d.a(i) != 0;
    else if (k != Kind.Null) { v._doc = d; v._node = i; }
    return v;
  }

  /** The document node while the value is read from one (its kind
   * unchanged), else null (SDK-internal). */
  // @ts-ignore: decorator
  @inline get docNode(): Doc | null {
    const d = this._doc;
    return d !== null && d.kind(this._node) == this.kind ? d : null;
  }

  /** The text of a string, or a number's literal. */
  get s(): string {
    let s = this._s;
    if (s !== null) return s;
    const d = this._doc;
    if (d !== null) {
      const k = d.kind(this._node);
      if (k == Kind.String || k == Kind.Number) {
        s = d.text(this._node);
        this._s = s;
        return s;
      }
    }
    return "";
  }
  set s(x: string) {
    this._s = x;
    const d = this._doc;
    if (d !== null && d.kind(this._node) <= Kind.String) this._doc = null;
  }

  /** The elements of an array (empty for other kinds). */
  get arr(): Array<Value> {
    let a = this._arr;
    if (a === null) {
      a = new Array<Value>();
      const d = this._doc;
      if (d !== null && d.kind(this._node) == Kind.Array) {
        const n = d.a(this._node);
        let c = this._node + 1;
        for (let i = 0; i < n; i++) {
          a.push(Value.at(d, c));
          c = d.next(c);
        }
        this._doc = null;
      }
      this._arr = a;
    }
    return a;
  }
  set arr(a: Array<Value>) {
    this._arr = a;
    const d = this._doc;
    if (d !== null && d.kind(this._node) == Kind.Array) this._doc = null;
  }
  /** The members of an object (empty for other kinds). */
  get obj(): Map<string, Value> {
    let m = this._obj;
    if (m === null) {
      m = new Map<string, Value>();
      const d = this._doc;
      if (d !== null && d.kind(this._node) == Kind.Object) {
        const n = d.a(this._node);
        let k = this._node + 1;
        for (let i = 0; i < n; i++) {
          m.set(d.text(k), Value.at(d, k + 1));
          k = d.next(k + 1);
        }
        this._doc = null;
      }
      this._obj = m;
    }
    return m;
  }
  set obj(m: Map<string, Value>) {
    this._obj = m;
    const d = this._doc;
    if (d !== null && d.kind(this._node) == Kind.Object) this._doc = null;
  }

  static null(): Value { return new Value(); }
  static bool(b: bool): Value { const v = new Value(); v.kind = Kind.Bool; v.b = b; return v; }
  /** A number by its literal text (must be a valid JSON number). */
  static number(literal: string): Value { const v = new Value(); v.kind = Kind.Number; v._s = literal; return v; }
  static int(i: i64): Value { return Value.number(i.toString()); }
  /** A computed number, written like Go writes a float64. */
  static float(f: f64): Value { const v = new Value(); v.kind = Kind.Float; v.f = f; return v; }
  static str(s: string): Value { const v = new Value(); v.kind = Kind.String; v._s = s; return v; }
  static array(a: Array<Value>): Value { const v = new Value(); v.kind = Kind.Array; v._arr = a; return v; }
  static object(m: Map<string, Value>): Value { const v = new Value(); v.kind = Kind.Object; v._obj = m; return v; }
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
    if (this.kind != Kind.Object) { this.kind = Kind.Object; this._doc = null; this.obj = new Map<string, Value>(); }
    this.obj.set(k, v);
    return this;
  }
  /** The string, or "" when not a string. */
  asString(): string { return this.kind == Kind.String ? this.s : ""; }
  asBool(): bool { return this.kind == Kind.Bool ? this.b : false; }
  /** The number as f64 (0 when not a number). */
  asF64(): f64 {
    if (this.kind == Kind.Float) return this.f;
    if (this.kind == Kind.Number) {
      const d = this.docNode;
      if (d !== null) return parseNumberAt<u8>(d.ptr(this._node), d.size(this._node));
      const s = this.s;
      return parseNumberAt<u16>(changetype<usize>(s), s.length);
    }
    return 0;
  }
  /** The number's text: the literal, or a computed number formatted. */
  numberText(): string {
    return this.kind == Kind.Float ? formatFloat(this.f) : this.s;
  }
  /** A string's text (a number's literal) as UTF-8 bytes, read from the
   * input without a copy when it has no escapes; empty for other kinds.
   * parse(v.utf8()) parses JSON held in a string value without making a
   * string of it. */
  utf8(): Uint8Array {
    if (this.kind != Kind.String && this.kind != Kind.Number) return new Uint8Array(0);
    const d = this.docNode;
    if (d !== null && this._s === null) {
      const i = this._node;
      const p = d.ptr(i), n = d.size(i);
      const tag = d.tag(i);
      if ((tag & F_ESC) == 0) return Uint8Array.wrap(d.src, <i32>(p - changetype<usize>(d.src)), n);
      if ((tag & F_AUX) != 0) {
        // Its bytes are its text: a raw string's, in the input.
        const src = changetype<usize>(d.src);
        if (p >= src && p + <usize>n <= src + <usize>d.src.byteLength) {
          if (n >= 256) {
            if (lastRaw === d.src && n == lastRawN && sameBytes(p, lastRawP, n)) {
              // The same text as the last long raw string (a passing
              // case's expected output is the actual one): the same view,
              // so a plugin sees they are the same without comparing them
              // a byte a loop turn.
              return Uint8Array.wrap(d.src, <i32>(lastRawP - src), n);
            }
            lastRaw = d.src; lastRawP = p; lastRawN = n;
          }
          return Uint8Array.wrap(d.src, <i32>(p - src), n);
        }
        return Uint8Array.wrap(d.aux!, <i32>(p - changetype<usize>(d.aux)), n);
      }
      const last = lastEscaped;
      if (last !== null && n == lastEscapedN && sameBytes(p, lastEscapedP, n)) {
        // The same text as the last one unescaped (a verify input holds a
        // passing case's output twice, as the actual and the expected
        // one): the same bytes, as shared as an unescaped text's. Compared
        // a word at a time (memory.compare takes a byte a loop turn).
        return Uint8Array.wrap(last, 0, lastEscapedM);
      }
      const buf = new ArrayBuffer(n + <i32>SLACK);
      const m = unescape(p, n, changetype<usize>(buf));
      if (n >= 256) {
        lastEscaped = buf; lastEscapedM = m; lastEscapedDoc = d; lastEscapedP = p; lastEscapedN = n;
      }
      return Uint8Array.wrap(buf, 0, m);
    }
    return Uint8Array.wrap(String.UTF8.encode(this.s));
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
      case Kind.Number: case Kind.String: {
        const d = this.docNode, e = o.docNode;
        if (d !== null && e !== null) return sameText(d.t, this._node, e.t, o._node);
        return this.s == o.s;
      }
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

/** Parses one JSON document onto a tape (SDK-internal); null on malformed
 * input, with parseError set. */
export function parseDoc(data: Uint8Array): Doc | null {
  const d = readDoc(data);
  parseError = d === null ? readError : "";
  return d;
}

/** Parses an input envelope: JSON whose string values may be raw
 * (docs/plugin-abi.md, "Raw strings"); null as parseDoc. */
export function parseInputDoc(data: Uint8Array): Doc | null {
  const d = readInputDoc(data);
  parseError = d === null ? readError : "";
  return d;
}

/** Parses one JSON document; null on malformed input, with parseError set. */
export function parse(data: Uint8Array): Value | null {
  const d = parseDoc(data);
  return d === null ? null : Value.at(d, 0);
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
  // The document node written last and where its bytes are (end -1 when
  // they may have been written over).
  private lastDoc: Doc | null = null;
  private lastNode: i32 = 0;
  private lastStart: i32 = 0;
  private lastEnd: i32 = -1;

  constructor(capacity: i32 = 256) { this.buf = new ArrayBuffer(max(capacity, 16)); }

  /** The address of the bytes written (valid until the next write). */
  get dataStart(): usize { return changetype<usize>(this.buf); }
  reset(): void { this.len = 0; this.lastEnd = -1; this.lastDoc = null; }
  /** Drops what was written after position n. */
  truncate(n: i32): void {
    if (n < this.len) this.len = n;
    if (n < this.lastEnd) this.lastEnd = -1;
  }
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
    const n = s.length;
    const src = changetype<usize>(s);
    this.reserve(n + 2);
    this.byte(0x22);
    let start = 0; // text from here up to i is written unchanged
    for (let i = 0; i < n; i++) {
      // ASCII text that needs no escape, four units at a time.
      while (i + 4 <= n) {
        const x = load<u64>(src + (<usize>i << 1));
        if (!plainASCII4(x)) break;
        if (start < i) this.utf8(s, start, i);
        this.reserve(4);
        store<u32>(changetype<usize>(this.buf) + <usize>this.len,
          <u32>((x & 0xff) | ((x >> 8) & 0xff00) | ((x >> 16) & 0xff0000) | ((x >> 24) & 0xff000000)));
        this.len += 4;
        i += 4;
        start = i;
      }
      if (i >= n) break;
      const c = <i32>load<u16>(src + (<usize>i << 1));
      if (c >= 0x20 && c != 0x22 && c != 0x5c && c != 0x3c && c != 0x3e && c != 0x26 && c != 0x2028 && c != 0x2029) {
        if (c < 0xd800 || c > 0xdfff) continue;
        if (c <= 0xdbff && i + 1 < n) {
          const d = <i32>load<u16>(src + (<usize>(i + 1) << 1));
          if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
        }
      }
      this.utf8(s, start, i);
      start = i + 1;
      this.byte(0x5c);
      if (c >= 0xd800 && c <= 0xdfff) { this.ascii("ufffd"); continue; }
      this.escape(c);
    }
    this.utf8(s, start, n);
    this.byte(0x22);
  }
  /** Writes the escape of c after its backslash. */
  private escape(c: i32): void {
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
  /** Appends the n bytes of UTF-8 text at p quoted as a JSON string, as
   * quote writes the same text. */
  quoteUTF8(p: usize, n: i32): void {
    wOpen(this);
    wQuoteUTF8(p, n);
    wClose(this);
  }
  /** Appends a non-negative integer in decimal. */
  int(i: i32): void {
    if (i >= 1000) { this.ascii(i.toString()); return; }
    this.reserve(3);
    const at = changetype<usize>(this.buf) + <usize>this.len;
    if (i < 10) { store<u8>(at, <u8>(0x30 + i)); this.len += 1; return; }
    if (i < 100) { store<u8>(at, <u8>(0x30 + i / 10)); store<u8>(at, <u8>(0x30 + i % 10), 1); this.len += 2; return; }
    store<u8>(at, <u8>(0x30 + i / 100));
    store<u8>(at, <u8>(0x30 + (i / 10) % 10), 1);
    store<u8>(at, <u8>(0x30 + i % 10), 2);
    this.len += 3;
  }
  /** Appends an ASCII string. */
  ascii(s: string): void {
    const n = s.length;
    this.reserve(n + 4);
    const at = changetype<usize>(this.buf) + <usize>this.len;
    const src = changetype<usize>(s);
    let i = 0;
    for (; i + 4 <= n; i += 4) {
      const x = load<u64>(src + (<usize>i << 1));
      store<u32>(at + <usize>i, <u32>((x & 0xff) | ((x >> 8) & 0xff00) | ((x >> 16) & 0xff0000) | ((x >> 24) & 0xff000000)));
    }
    for (; i < n; i++) store<u8>(at + <usize>i, <u8>load<u16>(src + (<usize>i << 1)));
    this.len += n;
  }
  /** Appends fixed text made with literal. */
  lit(b: ArrayBuffer): void {
    const n = b.byteLength;
    this.reserve(n);
    memory.copy(changetype<usize>(this.buf) + <usize>this.len, changetype<usize>(b), <usize>n);
    this.len += n;
  }
  /** Appends a computed number as Go writes a float64; false (with
   * encodeError set) when it is not finite. */
  float(f: f64): bool {
    if (!isFinite(f)) { encodeError = NON_FINITE; return false; }
    // A small integer (a weight of 1, say) is its digits: no string made.
    if (f >= 1 && f < 1000 && Math.trunc(f) == f) { this.int(<i32>f); return true; }
    this.ascii(formatFloat(f));
    return true;
  }
  /** Appends v as canonical JSON; false (with encodeError set) for a
   * non-finite number, after which what was written is incomplete. */
  value(v: Value): bool {
    const d = v.docNode;
    if (d === null) return this.plain(v);
    const i = v._node;
    const last = this.lastDoc;
    const start = this.lastStart, end = this.lastEnd;
    if (last !== null && end >= 0 && end <= this.len
      && ((d === last && i == this.lastNode) || notedSame(d, i, last, this.lastNode))) {
      // The same bytes as the value written last (the same node, or one
      // compareJSON found the same text for text): copied.
      this.reserve(end - start);
      memory.copy(changetype<usize>(this.buf) + <usize>this.len, changetype<usize>(this.buf) + <usize>start, <usize>(end - start));
      this.len += end - start;
      return true;
    }
    const at = this.len;
    this.node(d, i);
    this.lastDoc = d;
    this.lastNode = i;
    this.lastStart = at;
    this.lastEnd = this.len;
    return true;
  }
  /** Appends node i of document d as canonical JSON. */
  node(d: Doc, i: i32): void {
    const o = d.ordAddr();
    wOpen(this);
    writeNode(d.t, o, i);
    wClose(this);
  }
  /** value for a value not read from a document. */
  private plain(v: Value): bool {
    switch (v.kind) {
      case Kind.Null: this.lit(L_NULL); return true;
      case Kind.Bool: this.lit(v.b ? L_TRUE : L_FALSE); return true;
      case Kind.Number: { const s = v.s; if (s.length == 0) this.byte(0x30); else this.text(s); return true; }
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

// Writing a document's nodes: a recursion that holds no object references
// (see tape.ts), writing through a cursor in globals, opened on a
// ByteWriter and closed back into it.
let wWriter: ByteWriter | null = null;
let wBuf: usize = 0;
let wLen: i32 = 0;
let wCap: i32 = 0;

function wOpen(w: ByteWriter): void {
  wWriter = w;
  wBuf = changetype<usize>(w.buf);
  wLen = w.len;
  wCap = w.buf.byteLength;
}
function wClose(w: ByteWriter): void {
  w.len = wLen;
  wWriter = null;
}
/** Room for n more bytes at the cursor. */
// @ts-ignore: decorator
@inline function wRoom(n: i32): void { if (wLen + n > wCap) wGrow(n); }
function wGrow(n: i32): void {
  const w = wWriter!;
  w.len = wLen;
  w.reserve(n);
  wBuf = changetype<usize>(w.buf);
  wCap = w.buf.byteLength;
}
// @ts-ignore: decorator
@inline function wByte(b: i32): void {
  wRoom(1);
  store<u8>(wBuf + <usize>wLen, <u8>b);
  wLen++;
}
function wWrite(p: usize, n: i32): void {
  wRoom(n);
  memory.copy(wBuf + <usize>wLen, p, <usize>n);
  wLen += n;
}
/** wWrite for a document's text, which can be read past its end (see
 * SLACK): up to 16 bytes are copied as two words (what is written past n
 * is written over next). */
// @ts-ignore: decorator
@inline function wCopy(p: usize, n: i32): void {
  if (n <= 16) {
    wRoom(16);
    const at = wBuf + <usize>wLen;
    store<u64>(at, load<u64>(p));
    store<u64>(at, load<u64>(p, 8), 8);
    wLen += n;
  } else {
    wWrite(p, n);
  }
}
/** The escape of c (after its backslash), as Go's encoder writes it. */
function wEscape(c: i32): void {
  wRoom(6);
  const at = wBuf + <usize>wLen;
  let n = 2;
  store<u8>(at, 0x5c);
  switch (c) {
    case 0x22: store<u8>(at, 0x22, 1); break;
    case 0x5c: store<u8>(at, 0x5c, 1); break;
    case 0x0a: store<u8>(at, 0x6e, 1); break;
    case 0x0d: store<u8>(at, 0x72, 1); break;
    case 0x09: store<u8>(at, 0x74, 1); break;
    case 0x08: store<u8>(at, 0x62, 1); break;
    case 0x0c: store<u8>(at, 0x66, 1); break;
    default: {
      // \u00XX, or \u2028 and \u2029
      store<u8>(at, 0x75, 1);
      store<u8>(at, <u8>hexDigit(c >> 12), 2);
      store<u8>(at, <u8>hexDigit((c >> 8) & 15), 3);
      store<u8>(at, <u8>hexDigit((c >> 4) & 15), 4);
      store<u8>(at, <u8>hexDigit(c & 15), 5);
      n = 6;
    }
  }
  wLen += n;
}
// @ts-ignore: decorator
@inline function hexDigit(d: i32): i32 { return d < 10 ? 0x30 + d : 0x57 + d; }

/** Writes the n bytes of UTF-8 text at p quoted, escaped as Go escapes
 * (doc: text of a document or of a scratch buffer, with SLACK after it). */
function wQuoteUTF8(p: usize, n: i32, doc: bool = false): void {
  wByte(0x22);
  let i = 0;
  while (true) {
    // The run up to the next byte to escape, eight bytes at a time.
    let j = i;
    while (j + 8 <= n) {
      const x = load<u64>(p + <usize>j);
      const m = zeroBytes(x ^ QUOTES) | zeroBytes(x ^ BACKSLASHES) | controlBytes(x)
        | zeroBytes(x ^ LTS) | zeroBytes(x ^ GTS) | zeroBytes(x ^ AMPS) | zeroBytes(x ^ E2S);
      if (m != 0) { j += <i32>(ctz<u64>(m) >> 3); break; }
      j += 8;
    }
    if (j + 8 > n) {
      while (j < n) {
        const c = load<u8>(p + <usize>j);
        if (c < 0x20 || c == 0x22 || c == 0x5c || c == 0x3c || c == 0x3e || c == 0x26 || c == 0xe2) break;
        j++;
      }
    }
    if (j > i) {
      if (doc) wCopy(p + <usize>i, j - i);
      else wWrite(p + <usize>i, j - i);
    }
    if (j >= n) break;
    const c = <i32>load<u8>(p + <usize>j);
    if (c == 0xe2) {
      // U+2028 and U+2029 (E2 80 A8/A9) are escaped; other text is not.
      if (j + 2 < n && load<u8>(p + <usize>j, 1) == 0x80 && (load<u8>(p + <usize>j, 2) & 0xfe) == 0xa8) {
        wEscape(load<u8>(p + <usize>j, 2) == 0xa8 ? 0x2028 : 0x2029);
        i = j + 3;
      } else {
        wByte(0xe2);
        i = j + 1;
      }
      continue;
    }
    wEscape(c);
    i = j + 1;
  }
  wByte(0x22);
}

/** Whether the n bytes of a document's text at p (wide: with non-ASCII
 * text) need no escape: no <, > or & (a string's text has no quote,
 * backslash or control character unless it has escapes) and, with
 * non-ASCII text, no U+2028 or U+2029. Up to 16 bytes take no loop (see
 * SLACK). */
function plainText(p: usize, n: i32, wide: bool): bool {
  if (wide) return false; // rare: quoted byte by byte
  if (n <= 16) {
    // No loop: two words, the second masked.
    const x = load<u64>(p), y = load<u64>(p, 8);
    const mx: u64 = n >= 8 ? <u64>-1 : (<u64>1 << (<u64>n << 3)) - 1;
    const my: u64 = n <= 8 ? 0 : n == 16 ? <u64>-1 : (<u64>1 << (<u64>(n - 8) << 3)) - 1;
    return (((htmlBytes(x) & mx) | (htmlBytes(y) & my)) & HIGHS) == 0;
  }
  let i = 0;
  while (i + 8 <= n) {
    if (htmlBytes(load<u64>(p + <usize>i)) != 0) return false;
    i += 8;
  }
  if (i == n) return true;
  const m = (<u64>1 << (<u64>(n - i) << 3)) - 1;
  return (htmlBytes(load<u64>(p + <usize>i)) & m & HIGHS) == 0;
}

/** The high bit of each byte of x that is <, > or & (exact for the
 * lowest). */
// @ts-ignore: decorator
@inline function htmlBytes(x: u64): u64 {
  return zeroBytes((x | 0x0202020202020202) ^ GTS) | zeroBytes(x ^ AMPS);
}

/** Writes a string or key node quoted: its bytes as they are when nothing
 * in them is escaped, else escaped as quote escapes. */
function wString(t: usize, i: i32): void {
  const f = nTag(t, i);
  const p = nAddr(t, i), n = nB(t, i);
  if ((f & F_ESC) == 0 && plainText(p, n, (f & F_WIDE) != 0)) { wCopy(p - 1, n + 2); return; }
  if ((f & (F_ESC | F_AUX)) == F_ESC) {
    const s = scratch(0, n + <i32>SLACK);
    wQuoteUTF8(s, unescape(p, n, s), true);
    return;
  }
  wQuoteUTF8(p, n, true);
}

/** Writes node i of the tape at t (key order lists at o) as canonical
 * JSON. */
function writeNode(t: usize, o: usize, i: i32): void {
  switch (nKind(t, i)) {
    case Kind.Null: wWrite(changetype<usize>(L_NULL), 4); return;
    case Kind.Bool: if (nA(t, i) != 0) wWrite(changetype<usize>(L_TRUE), 4); else wWrite(changetype<usize>(L_FALSE), 5); return;
    case Kind.Number: wCopy(nAddr(t, i), nB(t, i)); return;
    case Kind.String: wString(t, i); return;
    case Kind.Array: {
      wByte(0x5b);
      const n = nA(t, i);
      if (n > 0) {
        // The first eight elements without a loop (most arrays are
        // small), then two an iteration.
        let c = i + 1;
        writeNode(t, o, c);
        c = nNext(t, c);
        do {
          if (n <= 1) break;
          wByte(0x2c);
          writeNode(t, o, c);
          c = nNext(t, c);
          if (n <= 2) break;
          wByte(0x2c);
          writeNode(t, o, c);
          c = nNext(t, c);
          if (n <= 3) break;
          wByte(0x2c);
          writeNode(t, o, c);
          c = nNext(t, c);
          if (n <= 4) break;
          wByte(0x2c);
          writeNode(t, o, c);
          c = nNext(t, c);
          if (n <= 5) break;
          wByte(0x2c);
          writeNode(t, o, c);
          c = nNext(t, c);
          if (n <= 6) break;
          wByte(0x2c);
          writeNode(t, o, c);
          c = nNext(t, c);
          if (n <= 7) break;
          wByte(0x2c);
          writeNode(t, o, c);
          c = nNext(t, c);
          if (n <= 8) break;
          let k = 8;
          for (; k + 2 <= n; k += 2) {
            wByte(0x2c);
            writeNode(t, o, c);
            c = nNext(t, c);
            wByte(0x2c);
            writeNode(t, o, c);
            c = nNext(t, c);
          }
          if (k < n) {
            wByte(0x2c);
            writeNode(t, o, c);
          }
        } while (false);
      }
      wByte(0x5d);
      return;
    }
  }
  const at = order(t, o, i);
  const n = ordAt(o, at);
  wByte(0x7b);
  if (n > 0) {
    // The first eight members without a loop, then two an iteration.
    writeMember(t, o, ordAt(o, at + 1));
    do {
      if (n <= 1) break;
      wByte(0x2c);
      writeMember(t, o, ordAt(o, at + 2));
      if (n <= 2) break;
      wByte(0x2c);
      writeMember(t, o, ordAt(o, at + 3));
      if (n <= 3) break;
      wByte(0x2c);
      writeMember(t, o, ordAt(o, at + 4));
      if (n <= 4) break;
      wByte(0x2c);
      writeMember(t, o, ordAt(o, at + 5));
      if (n <= 5) break;
      wByte(0x2c);
      writeMember(t, o, ordAt(o, at + 6));
      if (n <= 6) break;
      wByte(0x2c);
      writeMember(t, o, ordAt(o, at + 7));
      if (n <= 7) break;
      wByte(0x2c);
      writeMember(t, o, ordAt(o, at + 8));
      if (n <= 8) break;
      let k = 8;
      for (; k + 2 <= n; k += 2) {
        wByte(0x2c);
        writeMember(t, o, ordAt(o, at + 1 + k));
        wByte(0x2c);
        writeMember(t, o, ordAt(o, at + 2 + k));
      }
      if (k < n) {
        wByte(0x2c);
        writeMember(t, o, ordAt(o, at + 1 + k));
      }
    } while (false);
  }
  wByte(0x7d);
}

/** Writes the member whose key is node key: "key":value. */
// @ts-ignore: decorator
@inline function writeMember(t: usize, o: usize, key: i32): void {
  wString(t, key);
  wByte(0x3a);
  writeNode(t, o, key + 1);
}

/** Fixed ASCII text as bytes, for ByteWriter.lit: written with one copy. */
export function literal(s: string): ArrayBuffer { return String.UTF8.encode(s); }

const L_NULL = literal("null");
const L_TRUE = literal("true");
const L_FALSE = literal("false");

/** Quotes s as a JSON string, escaped as Go's encoding/json escapes. */
export function quote(s: string): string {
  const w = new ByteWriter(s.length + 2);
  w.quote(s);
  return w.toString();
}

/** Formats a float as Go's encoding/json does: shortest round-trip digits,
 * plain notation for 1e-6 <= |f| < 1e21, exponent notation otherwise;
 * non-finite ones, which JSON cannot hold, as `+Inf`, `-Inf`, `NaN` (as
 * every SDK writes them in text). */
export function formatFloat(f: f64): string {
  if (!isFinite(f)) return isNaN(f) ? "NaN" : f > 0 ? "+Inf" : "-Inf";
  if (f == 0) return (1 / f) < 0 ? "-0" : "0";
  const neg = f < 0;
  const abs = Math.abs(f);
  // An integer below 2^53 is its own shortest round-trip digits.
  if (abs < 9007199254740992 && Math.trunc(abs) == abs) return (<i64>f).toString();
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
  return parseNumberAt<u16>(changetype<usize>(literal), literal.length);
}
