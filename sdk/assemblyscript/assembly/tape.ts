// The documents the SDK reads: a parsed JSON text is kept as its bytes
// plus a tape, one fixed-size node per value in document order. Values
// (json.ts) read from a document point at their node; comparing
// (compare.ts), writing (ByteWriter) and decoding envelopes (models.ts)
// work on the tape directly, so a call's input is never turned into
// strings, maps and arrays it does not need, and text is copied from the
// input as UTF-8 wherever it can be.
//
// Two costs shape this code. The runtime's garbage collector keeps the
// object references a function holds across a call on a shadow stack, a
// frame per call: the recursions over a tape (parsing, comparing, writing)
// therefore work on addresses and node numbers, with their state in
// globals, and hold no references. And a host that checks for termination
// at every loop iteration (wasmeval in process) pays more for an iteration
// than for the work in most: text is scanned eight bytes at a time (SWAR,
// bit tricks on u64 words), several words an iteration.
//
// Everything here is internal to the SDK.

import { Kind, MAX_DEPTH } from "./json";

// A node's tag: its kind in the low bits, then flags.
export const KIND_MASK = 15;
/** A string with backslash escapes. */
export const F_ESC = 16;
/** A string with a byte above 0x7f (non-ASCII text). */
export const F_WIDE = 64;
/** A key whose bytes are its unescaped text, in the document's aux
 * buffer. */
export const F_AUX = 128;
/** A string whose bytes are not its text as they are (escapes). */
export const F_UNSAFE = F_ESC;
/** While scanning: a byte above 0x7f was seen (the text is then checked
 * to be UTF-8). */
const F_HIGH = 256;
const F_SCAN = F_ESC | F_HIGH;
/** While scanning: the word's last byte escapes the next word's first. */
const F_CARRY = 512;

// SWAR constants: eight bytes at a time.
const ONES: u64 = 0x0101010101010101;
export const HIGHS: u64 = 0x8080808080808080;
export const QUOTES: u64 = 0x2222222222222222;
export const BACKSLASHES: u64 = 0x5c5c5c5c5c5c5c5c;
export const LTS: u64 = 0x3c3c3c3c3c3c3c3c;
export const GTS: u64 = 0x3e3e3e3e3e3e3e3e;
export const AMPS: u64 = 0x2626262626262626;
export const E2S: u64 = 0xe2e2e2e2e2e2e2e2;
const SPACES: u64 = 0x2020202020202020;

/** High bit set in each byte of x that is zero (exact for the lowest). */
// @ts-ignore: decorator
@inline export function zeroBytes(x: u64): u64 { return (x - ONES) & ~x & HIGHS; }
/** High bit set in each byte of x that is zero (exact for every byte). */
// @ts-ignore: decorator
@inline function zeroBytesExact(x: u64): u64 { return ~(((x & 0x7f7f7f7f7f7f7f7f) + 0x7f7f7f7f7f7f7f7f) | x) & HIGHS; }
/** The high bit of a word's last byte. */
const LAST: u64 = 0x8000000000000000;
/** Whether four UTF-16 units are ASCII text Go's encoder writes as it is
 * (0x20 to 0x7f, not ", \\, <, > or &). */
// @ts-ignore: decorator
@inline export function plainASCII4(x: u64): bool {
  const H: u64 = 0x8000800080008000, O: u64 = 0x0001000100010001;
  if ((x & 0xff80ff80ff80ff80) != 0) return false;
  const special = ((x - 0x0020002000200020) & ~x)
    | zero16(x ^ 0x0022002200220022, O) | zero16(x ^ 0x005c005c005c005c, O) | zero16(x ^ 0x003c003c003c003c, O)
    | zero16(x ^ 0x003e003e003e003e, O) | zero16(x ^ 0x0026002600260026, O);
  return (special & H) == 0;
}
// @ts-ignore: decorator
@inline function zero16(x: u64, o: u64): u64 { return (x - o) & ~x; }
/** High bit set in each byte of x below 0x20 (exact for the lowest). */
// @ts-ignore: decorator
@inline export function controlBytes(x: u64): u64 { return (x - SPACES) & ~x & HIGHS; }

// A tape is nodes of four i32, read by the tape's address t and the node's
// number i:
//   tag  the kind (KIND_MASK) and flags (F_*);
//   a    a string's, key's or number's address (its content: after the
//        opening quote); a bool's value (1 for true); an array's element
//        count; an object's member count (a member is a key node, then its
//        value's nodes);
//   b    a string's, key's or number's length in bytes; a container's end
//        (the node after its last);
//   c    a key's first four bytes (big-endian, zero-padded), which order
//        most keys without reading them; an object's members in key order
//        once worked out (see order).

// @ts-ignore: decorator
@inline export function nTag(t: usize, i: i32): i32 { return load<i32>(t + (<usize>i << 4)); }
// @ts-ignore: decorator
@inline export function nKind(t: usize, i: i32): Kind { return <Kind>(nTag(t, i) & KIND_MASK); }
// @ts-ignore: decorator
@inline export function nA(t: usize, i: i32): i32 { return load<i32>(t + (<usize>i << 4), 4); }
// @ts-ignore: decorator
@inline export function nB(t: usize, i: i32): i32 { return load<i32>(t + (<usize>i << 4), 8); }
// @ts-ignore: decorator
@inline export function nC(t: usize, i: i32): i32 { return load<i32>(t + (<usize>i << 4), 12); }
/** A string's, key's or number's address. */
// @ts-ignore: decorator
@inline export function nAddr(t: usize, i: i32): usize { return <usize>load<u32>(t + (<usize>i << 4), 4); }
/** The node after node i and its contents. */
// @ts-ignore: decorator
@inline export function nNext(t: usize, i: i32): i32 { return (nTag(t, i) & KIND_MASK) >= Kind.Array ? nB(t, i) : i + 1; }

/** The bytes a document's buffer has after it (readDoc copies a document
 * that has fewer), and the unescaped text's buffers too: any of its text
 * can be read eight bytes at a time, up to 8 bytes past its end, without a
 * check. */
export const SLACK: usize = 16;

/** s as UTF-8 in a buffer with SLACK bytes after it. */
export function utf8Padded(s: string): ArrayBuffer {
  const n = String.UTF8.byteLength(s);
  const b = new ArrayBuffer(n + <i32>SLACK);
  String.UTF8.encodeUnsafe(changetype<usize>(s), s.length, changetype<usize>(b));
  return b;
}

/** A parsed JSON document: its bytes and its tape. */
export class Doc {
  /** The buffer the bytes are in, kept alive with the document. */
  src: ArrayBuffer;
  /** The address of the document's first byte, and its length. */
  base: usize;
  len: i32;
  tape: ArrayBuffer;
  count: i32 = 0;
  /** Unescaped key bytes (made once, with room for all of them). */
  aux: ArrayBuffer | null = null;
  auxLen: i32 = 0;

  constructor(src: ArrayBuffer, base: usize, len: i32, tape: ArrayBuffer) {
    this.src = src;
    this.base = base;
    this.len = len;
    this.tape = tape;
  }

  /** The tape's address. */
  // @ts-ignore: decorator
  @inline get t(): usize { return changetype<usize>(this.tape); }
  /** The address of the key order lists (see order), after the nodes in
   * the tape's buffer: every object's list (its members and their number)
   * fits in as many words as the document has nodes; the first word is the
   * words used. */
  // @ts-ignore: decorator
  @inline ordAddr(): usize { return this.t + (<usize>this.count << 4); }
  // @ts-ignore: decorator
  @inline tag(i: i32): i32 { return nTag(this.t, i); }
  // @ts-ignore: decorator
  @inline kind(i: i32): Kind { return nKind(this.t, i); }
  // @ts-ignore: decorator
  @inline a(i: i32): i32 { return nA(this.t, i); }
  // @ts-ignore: decorator
  @inline next(i: i32): i32 { return nNext(this.t, i); }
  /** A string's, key's or number's address and length. */
  // @ts-ignore: decorator
  @inline ptr(i: i32): usize { return nAddr(this.t, i); }
  // @ts-ignore: decorator
  @inline size(i: i32): i32 { return nB(this.t, i); }
  /** The text of a string, key or number node. */
  text(i: i32): string { return nodeText(this.t, i); }

  /** The value of member k (ASCII) of object node i, or -1; a repeated
   * key counts the last time. */
  field(i: i32, k: string): i32 {
    const t = this.t;
    const n = nA(t, i);
    const kn = k.length;
    let found = -1;
    let m = i + 1;
    for (let j = 0; j < n; j++) {
      if (nB(t, m) == kn && equalsASCII(nAddr(t, m), k, kn)) found = m + 1;
      m = nNext(t, m + 1);
    }
    return found;
  }

  /** Finds the keys of set among object node i's members: out[at + j] is
   * the value node of key j (-1 when absent; a repeated key counts the
   * last time). */
  fields(i: i32, set: KeySet, out: StaticArray<i32>, at: i32): void {
    const t = this.t;
    const o = changetype<usize>(out) + (<usize>at << 2);
    const meta = set.meta, table = set.table, mul = set.mul;
    memory.fill(o, 0xff, <usize>set.size << 2);
    const n = nA(t, i);
    let m = i + 1;
    for (let k = 0; k < n; k++) {
      const j = findKey(meta, table, mul, t, m);
      if (j >= 0) store<i32>(o + (<usize>j << 2), m + 1);
      m = nNext(t, m + 1);
    }
  }
}

/** A set of ASCII keys, found among an object's members in one pass over
 * them (see Doc.fields): how envelopes are decoded. A key is recognised
 * by its length and first and last four bytes (a table lookup), then
 * checked. */
export class KeySet {
  size: i32;
  /** The keys' bytes, kept alive. */
  private keys: StaticArray<ArrayBuffer>;
  /** Per key: its first four bytes (as in a tape), length, address. */
  meta: usize;
  private metaBuf: StaticArray<u32>;
  /** Hash slot → key number (-1 for none). */
  table: usize;
  private tableBuf: StaticArray<i32> = new StaticArray<i32>(64);
  mul: u32 = 0x9e3779b1;

  constructor(names: Array<string>) {
    const n = names.length;
    this.size = n;
    this.keys = new StaticArray<ArrayBuffer>(n);
    this.metaBuf = new StaticArray<u32>(n * 3);
    for (let i = 0; i < n; i++) {
      const b = utf8Padded(names[i]);
      const size = String.UTF8.byteLength(names[i]);
      this.keys[i] = b;
      this.metaBuf[i * 3] = prefix(changetype<usize>(b), size, false);
      this.metaBuf[i * 3 + 1] = size;
      this.metaBuf[i * 3 + 2] = <u32>changetype<usize>(b);
    }
    this.meta = changetype<usize>(this.metaBuf);
    this.table = changetype<usize>(this.tableBuf);
    // A multiplier that puts every key in a slot of its own.
    for (let attempt = 0; ; attempt++) {
      assert(attempt < 10000, "KeySet: keys that cannot be told apart");
      for (let j = 0; j < 64; j++) this.tableBuf[j] = -1;
      let clash = false;
      for (let i = 0; i < n && !clash; i++) {
        const b = this.keys[i];
        const size = <i32>this.metaBuf[i * 3 + 1];
        const h = keyHash(this.metaBuf[i * 3], suffix(changetype<usize>(b), size), size, this.mul);
        if (this.tableBuf[h] >= 0) clash = true;
        else this.tableBuf[h] = i;
      }
      if (!clash) break;
      this.mul = (this.mul * 0x2c1b3c6d + 0x297a2d3a) | 1;
    }
  }
}

// @ts-ignore: decorator
@inline function keyHash(pre: u32, suf: u32, size: i32, mul: u32): i32 {
  return <i32>((((pre * 31) ^ suf ^ <u32>size) * mul) >> 26);
}

/** Which key of a KeySet (its meta and table) key node k is, or -1. */
function findKey(meta: usize, table: usize, mul: u32, t: usize, k: i32): i32 {
  const size = nB(t, k), pre = <u32>nC(t, k);
  const p = nAddr(t, k);
  const j = load<i32>(table + (<usize>keyHash(pre, suffix(p, size), size, mul) << 2));
  if (j < 0) return -1;
  const e = meta + <usize>j * 12;
  if (load<u32>(e) != pre || load<u32>(e, 4) != <u32>size) return -1;
  return size <= 4 || sameBytes(p + 4, <usize>load<u32>(e, 8) + 4, size - 4) ? j : -1;
}

/** The last four of n bytes at p (0 for fewer). */
// @ts-ignore: decorator
@inline function suffix(p: usize, n: i32): u32 {
  return n >= 4 ? load<u32>(p + <usize>(n - 4)) : 0;
}

/** Whether the n bytes at p are the ASCII string k. */
function equalsASCII(p: usize, k: string, n: i32): bool {
  const s = changetype<usize>(k);
  for (let i = 0; i < n; i++) {
    if (<u32>load<u8>(p + <usize>i) != <u32>load<u16>(s + (<usize>i << 1))) return false;
  }
  return true;
}

/** The first four of the n bytes at p, big-endian, zero-padded (room: four
 * bytes can be read at p). */
export function prefix(p: usize, n: i32, room: bool): u32 {
  if (n >= 4) return bswap<u32>(load<u32>(p));
  if (room) return bswap<u32>(load<u32>(p)) & ~(<u32>0xffffffff >> (<u32>n << 3));
  let x: u32 = 0;
  for (let i = 0; i < n; i++) x |= <u32>load<u8>(p + <usize>i) << (24 - (<u32>i << 3));
  return x;
}

/** Orders two keys (of tapes t and u) by their bytes, code point order. */
// @ts-ignore: decorator
@inline export function keyOrder(t: usize, a: i32, u: usize, b: i32): i32 {
  const x = <u32>nC(t, a), y = <u32>nC(u, b);
  return x != y ? (x < y ? -1 : 1) : keyOrderTie(t, a, u, b);
}

/** keyOrder for keys whose first four bytes are the same. */
// @ts-ignore: decorator
@inline function keyOrderTie(t: usize, a: i32, u: usize, b: i32): i32 {
  const an = nB(t, a), bn = nB(u, b);
  if (an <= 4 || bn <= 4) return an - bn;
  if (an == bn && an <= 12) {
    // The same length, at most eight bytes more (see SLACK): one word.
    const x = load<u64>(nAddr(t, a) + 4), y = load<u64>(nAddr(u, b) + 4);
    const m: u64 = an == 12 ? <u64>-1 : low(an - 4);
    if (((x ^ y) & m) == 0) return 0;
    return bswap<u64>(x & m) < bswap<u64>(y & m) ? -1 : 1;
  }
  return compareBytes(nAddr(t, a) + 4, an - 4, nAddr(u, b) + 4, bn - 4);
}

/** The low n bytes (n < 8) of a word. */
// @ts-ignore: decorator
@inline function low(n: i32): u64 { return (<u64>1 << (<u64>n << 3)) - 1; }

/** Orders two byte strings (text of a document: see SLACK). */
function compareBytes(p: usize, pn: i32, q: usize, qn: i32): i32 {
  const n = min(pn, qn);
  let i = 0;
  while (i + 8 <= n) {
    const x = load<u64>(p + <usize>i), y = load<u64>(q + <usize>i);
    if (x != y) return bswap<u64>(x) < bswap<u64>(y) ? -1 : 1;
    i += 8;
  }
  if (i < n) {
    const m = low(n - i);
    const x = load<u64>(p + <usize>i) & m, y = load<u64>(q + <usize>i) & m;
    if (x != y) return bswap<u64>(x) < bswap<u64>(y) ? -1 : 1;
  }
  return pn - qn;
}

/** Whether two byte strings of n bytes are the same (text of a document:
 * see SLACK). Up to 16 bytes take no loop. */
export function sameBytes(p: usize, q: usize, n: i32): bool {
  if (n <= 8) return n == 0 || ((load<u64>(p) ^ load<u64>(q)) & (n == 8 ? <u64>-1 : low(n))) == 0;
  if (load<u64>(p) != load<u64>(q)) return false;
  if (n <= 16) return ((load<u64>(p, 8) ^ load<u64>(q, 8)) & (n == 16 ? <u64>-1 : low(n - 8))) == 0;
  let i = 8;
  while (i + 8 <= n) {
    if (load<u64>(p + <usize>i) != load<u64>(q + <usize>i)) return false;
    i += 8;
  }
  return i == n || ((load<u64>(p + <usize>i) ^ load<u64>(q + <usize>i)) & low(n - i)) == 0;
}

/** Where object node i's members are listed in key order, in the order
 * lists at o (Doc.ordAddr): the word there is their number, the words
 * after it their key nodes; a repeated key is listed once, the last one.
 * Worked out once per object. */
export function order(t: usize, o: usize, i: i32): i32 {
  const known = nC(t, i);
  if (known > 0) return known;
  const n = nA(t, i);
  const start = load<i32>(o);
  const list = o + (<usize>(start + 1) << 2);
  let k = i + 1;
  let m = 0;
  if (n <= 8) {
    // No loop.
    store<i32>(list, k);
    if (n > 1) { k = nNext(t, k + 1); store<i32>(list, k, 4); }
    if (n > 2) { k = nNext(t, k + 1); store<i32>(list, k, 8); }
    if (n > 3) { k = nNext(t, k + 1); store<i32>(list, k, 12); }
    if (n > 4) { k = nNext(t, k + 1); store<i32>(list, k, 16); }
    if (n > 5) { k = nNext(t, k + 1); store<i32>(list, k, 20); }
    if (n > 6) { k = nNext(t, k + 1); store<i32>(list, k, 24); }
    if (n > 7) { k = nNext(t, k + 1); store<i32>(list, k, 28); }
    m = n;
  }
  if (m + 4 <= n) for (; m + 4 <= n; m += 4) {
    const at = list + (<usize>m << 2);
    store<i32>(at, k);
    k = nNext(t, k + 1);
    store<i32>(at, k, 4);
    k = nNext(t, k + 1);
    store<i32>(at, k, 8);
    k = nNext(t, k + 1);
    store<i32>(at, k, 12);
    k = nNext(t, k + 1);
  }
  if (m < n) {
    for (; m < n; m++) {
      store<i32>(list + (<usize>m << 2), k);
      k = nNext(t, k + 1);
    }
  }
  const kept = n > 1 ? sortKeys(t, list, n) : n;
  store<i32>(o + (<usize>start << 2), kept);
  store<i32>(o, start + kept + 1);
  store<i32>(t + (<usize>i << 4), start, 12);
  return start;
}
/** Word k of the order lists at o. */
// @ts-ignore: decorator
@inline export function ordAt(o: usize, k: i32): i32 { return load<i32>(o + (<usize>k << 2)); }

/** Sorts n key nodes at list by key (equal keys by position) and keeps
 * the last of equal keys; the number kept. */
function sortKeys(t: usize, list: usize, n: i32): i32 {
  if (n <= 8) return sortSmall(t, list, n) ? dedupe(t, list, n) : n;
  if (n > 16) return mergeKeys(t, list, n);
  // Insertion sort: objects are mostly small.
  let dup = false;
  for (let i = 1; i < n; i++) {
    const x = load<i32>(list + (<usize>i << 2));
    let j = i - 1;
    while (j >= 0) {
      const y = load<i32>(list + (<usize>j << 2));
      const c = keyOrder(t, y, t, x);
      if (c < 0) break;
      if (c == 0) { dup = true; break; } // y is earlier: x goes after it
      store<i32>(list + (<usize>(j + 1) << 2), y);
      j--;
    }
    store<i32>(list + (<usize>(j + 1) << 2), x);
  }
  return dup ? dedupe(t, list, n) : n;
}

/** Sorts the n (2 to 8) key nodes at list with a sorting network: no
 * loop. Equal keys are put in position order; the result is whether there
 * were any. (Generated, each network checked on every 0-1 input.) */
function sortSmall(t: usize, list: usize, n: i32): bool {
  let a0 = load<i32>(list), a1 = load<i32>(list, 4);
  let a2 = n > 2 ? load<i32>(list, 8) : 0, a3 = n > 3 ? load<i32>(list, 12) : 0;
  let a4 = n > 4 ? load<i32>(list, 16) : 0, a5 = n > 5 ? load<i32>(list, 20) : 0;
  let a6 = n > 6 ? load<i32>(list, 24) : 0, a7 = n > 7 ? load<i32>(list, 28) : 0;
  let dup = false, c = 0, x = 0;
  switch (n) {
    case 2: {
      c = keyOrder(t, a1, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a1 < a0)) { x = a0; a0 = a1; a1 = x; }
      break;
    }
    case 3: {
      c = keyOrder(t, a2, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a1)) { x = a1; a1 = a2; a2 = x; }
      c = keyOrder(t, a2, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a0)) { x = a0; a0 = a2; a2 = x; }
      c = keyOrder(t, a1, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a1 < a0)) { x = a0; a0 = a1; a1 = x; }
      break;
    }
    case 4: {
      c = keyOrder(t, a1, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a1 < a0)) { x = a0; a0 = a1; a1 = x; }
      c = keyOrder(t, a3, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a2)) { x = a2; a2 = a3; a3 = x; }
      c = keyOrder(t, a2, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a0)) { x = a0; a0 = a2; a2 = x; }
      c = keyOrder(t, a3, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a1)) { x = a1; a1 = a3; a3 = x; }
      c = keyOrder(t, a2, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a1)) { x = a1; a1 = a2; a2 = x; }
      break;
    }
    case 5: {
      c = keyOrder(t, a1, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a1 < a0)) { x = a0; a0 = a1; a1 = x; }
      c = keyOrder(t, a4, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a3)) { x = a3; a3 = a4; a4 = x; }
      c = keyOrder(t, a4, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a2)) { x = a2; a2 = a4; a4 = x; }
      c = keyOrder(t, a3, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a2)) { x = a2; a2 = a3; a3 = x; }
      c = keyOrder(t, a4, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a1)) { x = a1; a1 = a4; a4 = x; }
      c = keyOrder(t, a3, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a0)) { x = a0; a0 = a3; a3 = x; }
      c = keyOrder(t, a2, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a0)) { x = a0; a0 = a2; a2 = x; }
      c = keyOrder(t, a3, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a1)) { x = a1; a1 = a3; a3 = x; }
      c = keyOrder(t, a2, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a1)) { x = a1; a1 = a2; a2 = x; }
      break;
    }
    case 6: {
      c = keyOrder(t, a2, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a1)) { x = a1; a1 = a2; a2 = x; }
      c = keyOrder(t, a5, t, a4); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a4)) { x = a4; a4 = a5; a5 = x; }
      c = keyOrder(t, a2, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a0)) { x = a0; a0 = a2; a2 = x; }
      c = keyOrder(t, a5, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a3)) { x = a3; a3 = a5; a5 = x; }
      c = keyOrder(t, a1, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a1 < a0)) { x = a0; a0 = a1; a1 = x; }
      c = keyOrder(t, a4, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a3)) { x = a3; a3 = a4; a4 = x; }
      c = keyOrder(t, a5, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a2)) { x = a2; a2 = a5; a5 = x; }
      c = keyOrder(t, a3, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a0)) { x = a0; a0 = a3; a3 = x; }
      c = keyOrder(t, a4, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a1)) { x = a1; a1 = a4; a4 = x; }
      c = keyOrder(t, a4, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a2)) { x = a2; a2 = a4; a4 = x; }
      c = keyOrder(t, a3, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a1)) { x = a1; a1 = a3; a3 = x; }
      c = keyOrder(t, a3, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a2)) { x = a2; a2 = a3; a3 = x; }
      break;
    }
    case 7: {
      c = keyOrder(t, a2, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a1)) { x = a1; a1 = a2; a2 = x; }
      c = keyOrder(t, a4, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a3)) { x = a3; a3 = a4; a4 = x; }
      c = keyOrder(t, a6, t, a5); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a6 < a5)) { x = a5; a5 = a6; a6 = x; }
      c = keyOrder(t, a2, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a0)) { x = a0; a0 = a2; a2 = x; }
      c = keyOrder(t, a5, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a3)) { x = a3; a3 = a5; a5 = x; }
      c = keyOrder(t, a6, t, a4); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a6 < a4)) { x = a4; a4 = a6; a6 = x; }
      c = keyOrder(t, a1, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a1 < a0)) { x = a0; a0 = a1; a1 = x; }
      c = keyOrder(t, a5, t, a4); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a4)) { x = a4; a4 = a5; a5 = x; }
      c = keyOrder(t, a6, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a6 < a2)) { x = a2; a2 = a6; a6 = x; }
      c = keyOrder(t, a4, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a0)) { x = a0; a0 = a4; a4 = x; }
      c = keyOrder(t, a5, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a1)) { x = a1; a1 = a5; a5 = x; }
      c = keyOrder(t, a3, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a0)) { x = a0; a0 = a3; a3 = x; }
      c = keyOrder(t, a5, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a2)) { x = a2; a2 = a5; a5 = x; }
      c = keyOrder(t, a3, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a1)) { x = a1; a1 = a3; a3 = x; }
      c = keyOrder(t, a4, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a2)) { x = a2; a2 = a4; a4 = x; }
      c = keyOrder(t, a3, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a2)) { x = a2; a2 = a3; a3 = x; }
      break;
    }
    case 8: {
      c = keyOrder(t, a2, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a0)) { x = a0; a0 = a2; a2 = x; }
      c = keyOrder(t, a3, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a1)) { x = a1; a1 = a3; a3 = x; }
      c = keyOrder(t, a6, t, a4); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a6 < a4)) { x = a4; a4 = a6; a6 = x; }
      c = keyOrder(t, a7, t, a5); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a7 < a5)) { x = a5; a5 = a7; a7 = x; }
      c = keyOrder(t, a4, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a0)) { x = a0; a0 = a4; a4 = x; }
      c = keyOrder(t, a5, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a1)) { x = a1; a1 = a5; a5 = x; }
      c = keyOrder(t, a6, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a6 < a2)) { x = a2; a2 = a6; a6 = x; }
      c = keyOrder(t, a7, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a7 < a3)) { x = a3; a3 = a7; a7 = x; }
      c = keyOrder(t, a1, t, a0); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a1 < a0)) { x = a0; a0 = a1; a1 = x; }
      c = keyOrder(t, a3, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a3 < a2)) { x = a2; a2 = a3; a3 = x; }
      c = keyOrder(t, a5, t, a4); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a4)) { x = a4; a4 = a5; a5 = x; }
      c = keyOrder(t, a7, t, a6); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a7 < a6)) { x = a6; a6 = a7; a7 = x; }
      c = keyOrder(t, a4, t, a2); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a2)) { x = a2; a2 = a4; a4 = x; }
      c = keyOrder(t, a5, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a5 < a3)) { x = a3; a3 = a5; a5 = x; }
      c = keyOrder(t, a4, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a1)) { x = a1; a1 = a4; a4 = x; }
      c = keyOrder(t, a6, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a6 < a3)) { x = a3; a3 = a6; a6 = x; }
      c = keyOrder(t, a2, t, a1); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a2 < a1)) { x = a1; a1 = a2; a2 = x; }
      c = keyOrder(t, a4, t, a3); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a4 < a3)) { x = a3; a3 = a4; a4 = x; }
      c = keyOrder(t, a6, t, a5); if (c == 0) dup = true;
      if (c < 0 || (c == 0 && a6 < a5)) { x = a5; a5 = a6; a6 = x; }
      break;
    }
  }
  store<i32>(list, a0);
  store<i32>(list, a1, 4);
  if (n > 2) store<i32>(list, a2, 8);
  if (n > 3) store<i32>(list, a3, 12);
  if (n > 4) store<i32>(list, a4, 16);
  if (n > 5) store<i32>(list, a5, 20);
  if (n > 6) store<i32>(list, a6, 24);
  if (n > 7) store<i32>(list, a7, 28);
  return dup;
}

/** sortKeys for large objects: a stable bottom-up merge sort. */
function mergeKeys(t: usize, list: usize, n: i32): i32 {
  const buf = new ArrayBuffer(n << 2);
  const tmp = changetype<usize>(buf);
  let from = list, to = tmp;
  for (let width = 1; width < n; width <<= 1) {
    for (let lo = 0; lo < n; lo += width << 1) {
      const mid = min(lo + width, n), hi = min(lo + (width << 1), n);
      let i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const x = load<i32>(from + (<usize>i << 2)), y = load<i32>(from + (<usize>j << 2));
        if (keyOrder(t, y, t, x) < 0) { store<i32>(to + (<usize>k << 2), y); j++; }
        else { store<i32>(to + (<usize>k << 2), x); i++; }
        k++;
      }
      if (i < mid) memory.copy(to + (<usize>k << 2), from + (<usize>i << 2), <usize>(mid - i) << 2);
      else if (j < hi) memory.copy(to + (<usize>k << 2), from + (<usize>j << 2), <usize>(hi - j) << 2);
    }
    const x = from; from = to; to = x;
  }
  if (from != list) memory.copy(list, from, <usize>n << 2);
  return dedupe(t, list, n);
}

/** Keeps the last of each run of equal keys in a sorted list. */
function dedupe(t: usize, list: usize, n: i32): i32 {
  let w = 0;
  for (let i = 0; i < n; i++) {
    const x = load<i32>(list + (<usize>i << 2));
    if (i + 1 < n && keyOrder(t, x, t, load<i32>(list + (<usize>(i + 1) << 2))) == 0) continue;
    store<i32>(list + (<usize>w << 2), x);
    w++;
  }
  return w;
}

// Two document nodes compareJSON found the same text for text (every key,
// string and number literal): their canonical JSON is the same bytes, and
// the writer copies the first one's for the second (see ByteWriter.value).
export let sameA: Doc | null = null;
export let sameANode: i32 = 0;
export let sameB: Doc | null = null;
export let sameBNode: i32 = 0;

/** Notes that nodes a of da and b of db are the same text for text. */
export function noteSame(da: Doc, a: i32, db: Doc, b: i32): void {
  sameA = da; sameANode = a; sameB = db; sameBNode = b;
}

/** Whether nodes a of da and b of db were noted the same text for text. */
export function notedSame(da: Doc, a: i32, db: Doc, b: i32): bool {
  return (da === sameA && a == sameANode && db === sameB && b == sameBNode)
    || (da === sameB && a == sameBNode && db === sameA && b == sameANode);
}

/** Whether two string (or two number) nodes have the same text: inline
 * for text of up to eight bytes without escapes. */
// @ts-ignore: decorator
@inline export function sameText(t: usize, a: i32, u: usize, b: i32): bool {
  const n = nB(t, a);
  if (n <= 8 && n == nB(u, b) && ((nTag(t, a) | nTag(u, b)) & F_ESC) == 0) {
    return n == 0 || ((load<u64>(nAddr(t, a)) ^ load<u64>(nAddr(u, b))) & (n == 8 ? <u64>-1 : low(n))) == 0;
  }
  return sameTextSlow(t, a, u, b);
}

function sameTextSlow(t: usize, a: i32, u: usize, b: i32): bool {
  const ta = nTag(t, a), tb = nTag(u, b);
  let p = nAddr(t, a), pn = nB(t, a);
  let q = nAddr(u, b), qn = nB(u, b);
  if (((ta | tb) & F_ESC) == 0) return pn == qn && sameBytes(p, q, pn);
  if ((ta & (F_ESC | F_AUX)) == F_ESC) { const s = scratch(0, pn + <i32>SLACK); pn = unescape(p, pn, s); p = s; }
  if ((tb & (F_ESC | F_AUX)) == F_ESC) { const s = scratch(1, qn + <i32>SLACK); qn = unescape(q, qn, s); q = s; }
  return pn == qn && sameBytes(p, q, pn);
}

/** Whether any of the n bytes at p is above 0x7f. */
function hasHigh(p: usize, n: i32): bool {
  let i = 0;
  for (; i + 8 <= n; i += 8) if ((load<u64>(p + <usize>i) & HIGHS) != 0) return true;
  for (; i < n; i++) if (load<u8>(p + <usize>i) >= 0x80) return true;
  return false;
}

/** The text of a string, key or number node. */
export function nodeText(t: usize, i: i32): string {
  const f = nTag(t, i);
  const p = nAddr(t, i), n = nB(t, i);
  if ((f & (F_ESC | F_AUX)) == F_ESC) {
    const buf = scratch(0, n + <i32>SLACK);
    return decodeUTF8(buf, unescape(p, n, buf), false);
  }
  return decodeUTF8(p, n, (f & (F_WIDE | F_AUX)) == 0);
}

// Scratch buffers for unescaped text, reused (two, for comparing two
// strings).
let scratch0: ArrayBuffer = new ArrayBuffer(256);
let scratch1: ArrayBuffer = new ArrayBuffer(256);

/** The address of scratch buffer k, with room for n bytes. */
export function scratch(k: i32, n: i32): usize {
  let s = k == 0 ? scratch0 : scratch1;
  if (s.byteLength < n) {
    s = new ArrayBuffer(max(n, s.byteLength << 1));
    if (k == 0) scratch0 = s; else scratch1 = s;
  }
  return changetype<usize>(s);
}

/** Four hex digits at p, or -1. */
function hex4(p: usize): i32 {
  let r = 0;
  for (let i = 0; i < 4; i++) {
    const c = <i32>load<u8>(p + <usize>i);
    let d = -1;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
    if (d < 0) return -1;
    r = (r << 4) | d;
  }
  return r;
}

/** Writes code point r as UTF-8 at out; the bytes written. */
function putUTF8(out: usize, r: i32): i32 {
  if (r < 0x80) { store<u8>(out, <u8>r); return 1; }
  if (r < 0x800) {
    store<u8>(out, <u8>(0xc0 | (r >> 6)));
    store<u8>(out, <u8>(0x80 | (r & 63)), 1);
    return 2;
  }
  if (r < 0x10000) {
    store<u8>(out, <u8>(0xe0 | (r >> 12)));
    store<u8>(out, <u8>(0x80 | ((r >> 6) & 63)), 1);
    store<u8>(out, <u8>(0x80 | (r & 63)), 2);
    return 3;
  }
  store<u8>(out, <u8>(0xf0 | (r >> 18)));
  store<u8>(out, <u8>(0x80 | ((r >> 12) & 63)), 1);
  store<u8>(out, <u8>(0x80 | ((r >> 6) & 63)), 2);
  store<u8>(out, <u8>(0x80 | (r & 63)), 3);
  return 4;
}

/** Stores the bytes of x at o, leaving out those marked in b (the high
 * bit of a byte); the bytes stored. Straight-line code: no loop. */
// @ts-ignore: decorator
@inline function dropMarked(x: u64, b: u64, o: usize): i32 {
  let w: usize = 0;
  store<u8>(o, <u8>x); w += 1 - <usize>((b >> 7) & 1);
  store<u8>(o + w, <u8>(x >> 8)); w += 1 - <usize>((b >> 15) & 1);
  store<u8>(o + w, <u8>(x >> 16)); w += 1 - <usize>((b >> 23) & 1);
  store<u8>(o + w, <u8>(x >> 24)); w += 1 - <usize>((b >> 31) & 1);
  store<u8>(o + w, <u8>(x >> 32)); w += 1 - <usize>((b >> 39) & 1);
  store<u8>(o + w, <u8>(x >> 40)); w += 1 - <usize>((b >> 47) & 1);
  store<u8>(o + w, <u8>(x >> 48)); w += 1 - <usize>((b >> 55) & 1);
  store<u8>(o + w, <u8>(x >> 56)); w += 1 - <usize>((b >> 63) & 1);
  return <i32>w;
}

/** One word of unescape's fast path: x (eight bytes of text) stored at
 * out without the backslashes of its \\" escapes; next is the byte after
 * it. The bytes stored, or -1 when the word has another escape. */
// @ts-ignore: decorator
@inline function unescapeWord(x: u64, next: u32, out: usize): i32 {
  const b = zeroBytesExact(x ^ BACKSLASHES);
  if (b == 0) { store<u64>(out, x); return 8; }
  // Escapes all \" and no backslash escaped: each backslash goes. A last
  // byte's backslash escapes the next byte, which must be a quote too (it
  // stays, as the next word's text).
  if ((b & (b << 8)) != 0 || ((b << 8) & ~zeroBytesExact(x ^ QUOTES)) != 0 || ((b & LAST) != 0 && next != 0x22)) return -1;
  const rest = b & (b - 1);
  if ((rest & (rest - 1)) != 0) return dropMarked(x, b, out);
  // One or two backslashes: shifted out of the word.
  let y = x;
  if (rest != 0) y = dropByte(y, <u32>(ctz<u64>(rest) >> 3));
  store<u64>(out, dropByte(y, <u32>(ctz<u64>(b) >> 3)));
  return rest != 0 ? 6 : 7;
}

/** x without its byte k (the bytes above it moved down one). */
// @ts-ignore: decorator
@inline function dropByte(x: u64, k: u32): u64 {
  const m = (<u64>1 << (<u64>k << 3)) - 1;
  return (x & m) | ((x >> 8) & ~m);
}

/** Unescapes the n bytes of a valid string's content at p into out (room
 * for n bytes and SLACK: unescaped text is never longer, and text is
 * copied eight bytes at a time); the bytes written. A lone surrogate
 * escape becomes U+FFFD, as in Go. */
export function unescape(p: usize, n: i32, out: usize): i32 {
  let i = 0, w = 0;
  while (i < n) {
    // Eight words an iteration while they take no more than their
    // backslashes (JSON held in a string: \" escapes only).
    let r = 0;
    while (i + 65 <= n) {
      r = unescapeWord(load<u64>(p + <usize>i), load<u8>(p + <usize>i, 8), out + <usize>w);
      if (r < 0) break;
      w += r;
      r = unescapeWord(load<u64>(p + <usize>i, 8), load<u8>(p + <usize>i, 16), out + <usize>w);
      if (r < 0) { i += 8; break; }
      w += r;
      r = unescapeWord(load<u64>(p + <usize>i, 16), load<u8>(p + <usize>i, 24), out + <usize>w);
      if (r < 0) { i += 16; break; }
      w += r;
      r = unescapeWord(load<u64>(p + <usize>i, 24), load<u8>(p + <usize>i, 32), out + <usize>w);
      if (r < 0) { i += 24; break; }
      w += r;
      r = unescapeWord(load<u64>(p + <usize>i, 32), load<u8>(p + <usize>i, 40), out + <usize>w);
      if (r < 0) { i += 32; break; }
      w += r;
      r = unescapeWord(load<u64>(p + <usize>i, 40), load<u8>(p + <usize>i, 48), out + <usize>w);
      if (r < 0) { i += 40; break; }
      w += r;
      r = unescapeWord(load<u64>(p + <usize>i, 48), load<u8>(p + <usize>i, 56), out + <usize>w);
      if (r < 0) { i += 48; break; }
      w += r;
      r = unescapeWord(load<u64>(p + <usize>i, 56), load<u8>(p + <usize>i, 64), out + <usize>w);
      if (r < 0) { i += 56; break; }
      w += r;
      i += 64;
    }
    if (r >= 0) {
      while (i + 9 <= n) {
        r = unescapeWord(load<u64>(p + <usize>i), load<u8>(p + <usize>i, 8), out + <usize>w);
        if (r < 0) break;
        w += r;
        i += 8;
      }
    }
    // Up to the next backslash, and its escape.
    let j = i;
    if (r < 0) {
      const b = zeroBytesExact(load<u64>(p + <usize>i) ^ BACKSLASHES);
      const k = <i32>(ctz<u64>(b) >> 3);
      store<u64>(out + <usize>w, load<u64>(p + <usize>i));
      w += k;
      j = i + k;
    } else {
      while (j < n && load<u8>(p + <usize>j) != 0x5c) j++;
      if (j > i) {
        memory.copy(out + <usize>w, p + <usize>i, <usize>(j - i));
        w += j - i;
      }
      if (j >= n) return w;
    }
    const e = <i32>load<u8>(p + <usize>j, 1);
    if (e != 0x75) {
      let c = e; // \" \\ \/
      if (e == 0x62) c = 8;
      else if (e == 0x66) c = 12;
      else if (e == 0x6e) c = 10;
      else if (e == 0x72) c = 13;
      else if (e == 0x74) c = 9;
      store<u8>(out + <usize>w, <u8>c);
      w++;
      i = j + 2;
      continue;
    }
    let u = hex4(p + <usize>j + 2);
    i = j + 6;
    if (u >= 0xd800 && u < 0xe000) {
      let paired = false;
      if (u < 0xdc00 && i + 6 <= n && load<u8>(p + <usize>i) == 0x5c && load<u8>(p + <usize>i, 1) == 0x75) {
        const u2 = hex4(p + <usize>i + 2);
        if (u2 >= 0xdc00 && u2 < 0xe000) {
          u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00);
          i += 6;
          paired = true;
        }
      }
      if (!paired) u = 0xfffd;
    }
    w += putUTF8(out + <usize>w, u);
  }
  return w;
}

/** Stores the low min(n, 4) bytes of x as UTF-16 units at o. */
// @ts-ignore: decorator
@inline function for4(o: usize, x: u64, n: i32): void {
  if (n >= 4) {
    store<u64>(o, (x & 0xff) | ((x & 0xff00) << 8) | ((x & 0xff0000) << 16) | ((x & 0xff000000) << 24));
    return;
  }
  store<u16>(o, <u16>(x & 0xff));
  if (n > 1) store<u16>(o, <u16>((x >> 8) & 0xff), 2);
  if (n > 2) store<u16>(o, <u16>((x >> 16) & 0xff), 4);
}

/** A string of the n UTF-8 bytes at p (ascii: all below 0x80; text that
 * can be read past its end, see SLACK). */
export function decodeUTF8(p: usize, n: i32, ascii: bool): string {
  if (!ascii) return String.UTF8.decodeUnsafe(p, <usize>n);
  const s = changetype<string>(__new(<usize>n << 1, idof<string>()));
  const o = changetype<usize>(s);
  if (n <= 8) {
    // No loop: the text can be read past its end (see SLACK).
    if (n > 0) {
      const x = load<u64>(p);
      for4(o, x, n);
      if (n > 4) for4(o + 8, x >> 32, n - 4);
    }
    return s;
  }
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const x = <u64>load<u32>(p + <usize>i);
    store<u64>(o + (<usize>i << 1),
      (x & 0xff) | ((x & 0xff00) << 8) | ((x & 0xff0000) << 16) | ((x & 0xff000000) << 24));
  }
  for (; i < n; i++) store<u16>(o + (<usize>i << 1), load<u8>(p + <usize>i));
  return s;
}

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
    if (i + 64 <= n && ((load<u64>(p + <usize>i) | load<u64>(p + <usize>i, 8) | load<u64>(p + <usize>i, 16)
      | load<u64>(p + <usize>i, 24) | load<u64>(p + <usize>i, 32) | load<u64>(p + <usize>i, 40)
      | load<u64>(p + <usize>i, 48) | load<u64>(p + <usize>i, 56)) & HIGHS) == 0) { i += 64; continue; }
    if (i + 8 <= n && (load<u64>(p + <usize>i) & HIGHS) == 0) { i += 8; continue; }
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

/** Scans eight bytes x of a string's content: the stop mask (the high bit
 * of each quote not escaped, backslash starting an escape to look at, or
 * control character; the lowest is exact) with F_* flags in the low bits:
 * escapes (all \" ones in a word, JSON held in a string, are passed over
 * at once), a byte above 0x7f (in the word: the text is then checked to be
 * UTF-8, and the string's F_WIDE is worked out at its end). carry is 0x80 when the word's first byte is a quote escaped by the
 * word before; next is the byte after the word: a last byte's backslash
 * escaping a quote there is passed over too, and F_CARRY says so. */
// @ts-ignore: decorator
@inline function scanWord(x: u64, carry: u64, next: u32): u64 {
  const q = zeroBytesExact(x ^ QUOTES), b = zeroBytesExact(x ^ BACKSLASHES), c = controlBytes(x);
  let stop: u64;
  let f: u64 = 0;
  if ((b | carry) == 0) {
    stop = q | c;
  } else {
    const e = (b << 8) | carry; // escaped bytes
    if ((b & (b << 8)) == 0 && (e & ~q) == 0 && ((b & LAST) == 0 || next == 0x22)) {
      f = (b & LAST) != 0 ? F_ESC | F_CARRY : F_ESC;
      stop = (q & ~e) | c;
    } else {
      stop = (q & ~carry) | b | c;
    }
  }
  if ((x & HIGHS) != 0) f |= F_HIGH;
  return stop | f;
}

// The parser: one serves every parse (nothing it calls parses), its state
// in globals, so its recursion (a frame per level of nesting, up to
// MAX_DEPTH) keeps no object references on the shadow stack. It writes
// nodes onto its scratch tape, and the document gets a copy of exactly the
// nodes it has.
let pDoc: Doc | null = null;
// The bytes, read without bounds checks: every read is below pN.
let pP: usize = 0;
let pN: i32 = 0;
let pPos: i32 = 0;
let pErr: string = "";
let pErrAt: i32 = 0;
let pTape: ArrayBuffer = new ArrayBuffer(256 << 4);
let pTapeAt: usize = changetype<usize>(pTape);
let pCap: i32 = 256;
let pCount: i32 = 0;
/** Whether a byte above 0x7f was seen: the text must then be checked to
 * be UTF-8 (outside strings such a byte fails the parse). */
let pHigh: bool = false;
/** Whether a string value may be raw (readInputDoc). */
let pRaw: bool = false;

// @ts-ignore: decorator
@inline function at(i: i32): i32 { return <i32>load<u8>(pP + <usize>i); }

function fail(reason: string): bool {
  if (pErr.length == 0) { pErr = reason; pErrAt = pPos; }
  return false;
}
function failAt(i: i32, reason: string): bool {
  pPos = i;
  return fail(reason);
}
function unexpected(): bool {
  if (pPos >= pN) return fail("unexpected end of input");
  return fail("unexpected byte 0x" + hexByte(<u8>at(pPos)));
}
// @ts-ignore: decorator
@inline function peek(): i32 { return pPos < pN ? at(pPos) : -1; }
// @ts-ignore: decorator
@inline function skip(): void {
  if (pPos < pN && at(pPos) <= 0x20) skipSpace();
}
function skipSpace(): void {
  while (pPos < pN) {
    const c = at(pPos);
    if (c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d) pPos++;
    else return;
  }
}
// @ts-ignore: decorator
@inline function push(tag: i32, a: i32, b: i32, c: i32): i32 {
  const i = pCount;
  if (i >= pCap) growTape();
  const t = pTapeAt + (<usize>i << 4);
  store<i32>(t, tag);
  store<i32>(t, a, 4);
  store<i32>(t, b, 8);
  store<i32>(t, c, 12);
  pCount = i + 1;
  return i;
}
/** A large scratch tape is not kept for the next document. */
function shrinkTape(): void {
  if (pCap <= 1 << 16) return;
  pTape = new ArrayBuffer(256 << 4);
  pTapeAt = changetype<usize>(pTape);
  pCap = 256;
}
function growTape(): void {
  const cap = pTape.byteLength >> 4;
  const nt = new ArrayBuffer((cap << 1) << 4);
  memory.copy(changetype<usize>(nt), changetype<usize>(pTape), <usize>pCount << 4);
  pTape = nt;
  pTapeAt = changetype<usize>(nt);
  pCap = cap << 1;
}
// @ts-ignore: decorator
@inline function setAB(i: i32, a: i32, b: i32): void {
  const t = pTapeAt + (<usize>i << 4);
  store<i32>(t, a, 4);
  store<i32>(t, b, 8);
}
function literalValue(word: string, packed: u32, tag: i32, a: i32): bool {
  const n = word.length;
  if (pPos + 4 <= pN && load<u32>(pP + <usize>pPos) == packed
    && (n == 4 || (pPos + 5 <= pN && at(pPos + 4) == 0x65))) {
    pPos += n;
    push(tag, a, 0, 0);
    return true;
  }
  for (let i = 0; i < n; i++) {
    if (peek() != <i32>word.charCodeAt(i)) return unexpected();
    pPos++;
  }
  push(tag, a, 0, 0);
  return true;
}
/** parseValue for a member or element: a string or number is read here. */
// @ts-ignore: decorator
@inline function valueIn(depth: i32): bool {
  const c = peek();
  if (c == 0x22) return parseStr(false);
  if (c >= 0x30 && c <= 0x39) return parseNumber();
  return parseValue(depth);
}
function parseValue(depth: i32): bool {
  const c = peek();
  if (c == 0x22) return parseStr(false);
  if (c == 0x27 && pRaw) return parseRaw();
  if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return parseNumber();
  if (c == 0x7b || c == 0x5b) {
    if (depth >= MAX_DEPTH) return fail("nesting deeper than 1000");
    return c == 0x7b ? parseObject(depth) : parseArray(depth);
  }
  if (c == 0x74) return literalValue("true", 0x65757274, Kind.Bool, 1);
  if (c == 0x66) return literalValue("false", 0x736c6166, Kind.Bool, 0);
  if (c == 0x6e) return literalValue("null", 0x6c6c756e, Kind.Null, 0);
  return unexpected();
}
/** One member of an object, from its key (after the opening brace or a
 * comma): 0 when a comma follows (another member), 1 when the closing
 * brace does, -1 on an error. */
// @ts-ignore: decorator
@inline function objectMember(depth: i32): i32 {
  skip();
  if (peek() != 0x22) return unexpected() ? 0 : -1;
  if (!parseStr(true)) return -1;
  skip();
  if (peek() != 0x3a) return unexpected() ? 0 : -1;
  pPos++;
  skip();
  if (!valueIn(depth + 1)) return -1;
  skip();
  const c = peek();
  if (c == 0x2c) { pPos++; return 0; }
  if (c == 0x7d) { pPos++; return 1; }
  return unexpected() ? 0 : -1;
}
function parseObject(depth: i32): bool {
  const node = push(Kind.Object, 0, 0, 0);
  pPos++;
  skip();
  if (peek() == 0x7d) { pPos++; setAB(node, 0, pCount); return true; }
  let count = 0, r = 0;
  // The first eight without a loop (most containers are small), then
  // eight an iteration.
  do {
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    count++;
    r = objectMember(depth);
    if (r != 0) break;
    while (true) {
      count++;
      r = objectMember(depth);
      if (r != 0) break;
      count++;
      r = objectMember(depth);
      if (r != 0) break;
      count++;
      r = objectMember(depth);
      if (r != 0) break;
      count++;
      r = objectMember(depth);
      if (r != 0) break;
      count++;
      r = objectMember(depth);
      if (r != 0) break;
      count++;
      r = objectMember(depth);
      if (r != 0) break;
      count++;
      r = objectMember(depth);
      if (r != 0) break;
      count++;
      r = objectMember(depth);
      if (r != 0) break;
    }
  } while (false);
  if (r < 0) return false;
  setAB(node, count, pCount);
  return true;
}
/** One element of an array (after the opening bracket or a comma): as
 * objectMember. */
// @ts-ignore: decorator
@inline function arrayElement(depth: i32): i32 {
  skip();
  if (!valueIn(depth + 1)) return -1;
  skip();
  const c = peek();
  if (c == 0x2c) { pPos++; return 0; }
  if (c == 0x5d) { pPos++; return 1; }
  return unexpected() ? 0 : -1;
}
function parseArray(depth: i32): bool {
  const node = push(Kind.Array, 0, 0, 0);
  pPos++;
  skip();
  if (peek() == 0x5d) { pPos++; setAB(node, 0, pCount); return true; }
  let count = 0, r = 0;
  // The first eight without a loop (most containers are small), then
  // eight an iteration.
  do {
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    count++;
    r = arrayElement(depth);
    if (r != 0) break;
    while (true) {
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
      count++;
      r = arrayElement(depth);
      if (r != 0) break;
    }
  } while (false);
  if (r < 0) return false;
  setAB(node, count, pCount);
  return true;
}
// @ts-ignore: decorator
@inline function digits(): i32 {
  const start = pPos;
  if (pPos + 8 <= pN) {
    // Most numbers end in their first word: no loop.
    const x = load<u64>(pP + <usize>pPos) ^ 0x3030303030303030;
    const m = ((x + 0x7676767676767676) | x) & HIGHS;
    if (m != 0) { pPos += <i32>(ctz<u64>(m) >> 3); return pPos - start; }
    pPos += 8;
  }
  while (pPos + 8 <= pN) {
    // Bytes that are not digits: x ^ '0' is 10 or more.
    const x = load<u64>(pP + <usize>pPos) ^ 0x3030303030303030;
    const m = ((x + 0x7676767676767676) | x) & HIGHS;
    if (m != 0) { pPos += <i32>(ctz<u64>(m) >> 3); return pPos - start; }
    pPos += 8;
  }
  while (pPos < pN) {
    const c = at(pPos);
    if (c < 0x30 || c > 0x39) break;
    pPos++;
  }
  return pPos - start;
}
function parseNumber(): bool {
  const start = pPos;
  if (peek() == 0x2d) pPos++;
  if (peek() == 0x30) pPos++;
  else if (digits() == 0) return failAt(start, "invalid number");
  if (peek() == 0x2e) {
    pPos++;
    if (digits() == 0) return failAt(start, "invalid number");
  }
  const e = peek();
  if (e == 0x65 || e == 0x45) {
    pPos++;
    if (peek() == 0x2b || peek() == 0x2d) pPos++;
    if (digits() == 0) return failAt(start, "invalid number");
  }
  push(Kind.Number, <i32>(pP + <usize>start), pPos - start, 0);
  return true;
}
/** A string, from its opening quote. Its escapes are checked, not decoded,
 * except a key's, whose bytes go to the aux buffer. */
function parseStr(key: bool): bool {
  const p = pP, n = pN;
  const start = pPos + 1;
  if (start + 8 <= n) {
    // A short string ends in its first word, with nothing in it to look
    // at: no loop. (A match below the first quote is exact: see zeroBytes.)
    const x = load<u64>(p + <usize>start);
    const q = zeroBytesExact(x ^ QUOTES);
    if (q != 0) {
      const k = <i32>(ctz<u64>(q) >> 3);
      const below = low(k);
      if (((zeroBytes(x ^ BACKSLASHES) | controlBytes(x)) & below) == 0) {
        return endStr(key, start, start + k, (x & HIGHS & below) != 0 ? F_WIDE | F_HIGH : 0);
      }
    }
  }
  let i = start;
  let flags = 0;
  while (true) {
    // Eight bytes at a time, up to eight words an iteration, to the next
    // byte to look at: a quote, a backslash, a control character.
    let stop: u64 = 0, carry: u64 = 0;
    while (i + 65 <= n) {
      let r = scanWord(load<u64>(p + <usize>i), carry, load<u8>(p + <usize>i, 8));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) break;
      r = scanWord(load<u64>(p + <usize>i, 8), carry, load<u8>(p + <usize>i, 16));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) { i += 8; break; }
      r = scanWord(load<u64>(p + <usize>i, 16), carry, load<u8>(p + <usize>i, 24));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) { i += 16; break; }
      r = scanWord(load<u64>(p + <usize>i, 24), carry, load<u8>(p + <usize>i, 32));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) { i += 24; break; }
      r = scanWord(load<u64>(p + <usize>i, 32), carry, load<u8>(p + <usize>i, 40));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) { i += 32; break; }
      r = scanWord(load<u64>(p + <usize>i, 40), carry, load<u8>(p + <usize>i, 48));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) { i += 40; break; }
      r = scanWord(load<u64>(p + <usize>i, 48), carry, load<u8>(p + <usize>i, 56));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) { i += 48; break; }
      r = scanWord(load<u64>(p + <usize>i, 56), carry, load<u8>(p + <usize>i, 64));
      flags |= <i32>r & F_SCAN;
      carry = (r & F_CARRY) != 0 ? 0x80 : 0;
      stop = r & HIGHS;
      if (stop != 0) { i += 56; break; }
      i += 64;
    }
    if (stop == 0) {
      while (i + 9 <= n) {
        const r = scanWord(load<u64>(p + <usize>i), carry, load<u8>(p + <usize>i, 8));
        flags |= <i32>r & F_SCAN;
        carry = (r & F_CARRY) != 0 ? 0x80 : 0;
        stop = r & HIGHS;
        if (stop != 0) break;
        i += 8;
      }
      // A quote escaped by the last word's last byte.
      if (stop == 0 && carry != 0) i++;
    }
    if (stop != 0) {
      i += <i32>(ctz<u64>(stop) >> 3);
    } else {
      while (i < n) {
        const c = at(i);
        if (c == 0x22 || c == 0x5c || c < 0x20) break;
        if (c >= 0x80) flags |= F_HIGH;
        i++;
      }
      if (i >= n) { pPos = n; return fail("unexpected end of input"); }
    }
    const c = at(i);
    if (c == 0x22) break;
    if (c < 0x20) { pPos = i; return fail("control character in string"); }
    flags |= F_ESC;
    if (i + 1 >= n) { pPos = i + 1; return fail("unexpected end of input"); }
    const e = at(i + 1);
    if (e == 0x75) {
      if (i + 6 > n || hex4(p + <usize>i + 2) < 0) { pPos = i; return fail("invalid escape"); }
      i += 6;
    } else if (e == 0x22 || e == 0x5c || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
      i += 2;
    } else {
      pPos = i;
      return fail("invalid escape");
    }
  }
  return endStr(key, start, i, flags);
}

/** Pushes the string from start up to its closing quote at i. */
function endStr(key: bool, start: i32, i: i32, flags: i32): bool {
  const p = pP;
  pPos = i + 1;
  if ((flags & F_HIGH) != 0) {
    // Non-ASCII text somewhere in the string's words (or after it): the
    // string's own bytes say whether it has any.
    pHigh = true;
    flags = (flags & F_ESC) | (hasHigh(p + <usize>start, i - start) ? F_WIDE : 0);
  } else {
    flags &= F_ESC;
  }
  const at = p + <usize>start;
  if (!key) {
    push(Kind.String | flags, <i32>at, i - start, 0);
    return true;
  }
  if ((flags & F_ESC) != 0) return escapedKey(at, i - start);
  // A key is followed by more than four bytes (its quote, a colon and a
  // value), so its first four bytes can be read as one.
  push(Kind.String | flags, <i32>at, i - start, prefix(at, i - start, start + 4 <= pN));
  return true;
}

/** A raw string (docs/plugin-abi.md, "Raw strings"): a quote mark, the
 * length in decimal (one to nine digits, no leading zero), a colon and
 * that many bytes, the text as it is. Its node is an unescaped key's (its
 * bytes are its text, not JSON's), pointing into the input. */
function parseRaw(): bool {
  const at0 = pPos;
  let i = pPos + 1, n = 0;
  while (i < pN) {
    const c = at(i);
    if (c < 0x30 || c > 0x39) break;
    if ((i > at0 + 1 && n == 0) || i - at0 > 9) return failAt(at0, "invalid raw string");
    n = n * 10 + (c - 0x30);
    i++;
  }
  if (i == at0 + 1 || i >= pN || at(i) != 0x3a) return failAt(at0, "invalid raw string");
  const start = i + 1;
  if (n > pN - start) return failAt(at0, "invalid raw string");
  const end = start + n;
  // The input is checked to be UTF-8 as a whole when a byte above 0x7f is
  // in it; the bytes, after an ASCII colon, are then whole characters
  // unless they end inside one.
  if (end < pN && (at(end) & 0xc0) == 0x80) return failAt(at0, "invalid raw string");
  const p = pP + <usize>start;
  if (hasHigh(p, n)) pHigh = true;
  push(Kind.String | F_ESC | F_WIDE | F_AUX, <i32>p, n, prefix(p, n, false));
  pPos = end;
  return true;
}

/** Parses an input envelope as readDoc parses JSON, its string values
 * raw or not (parseRaw). */
export function readInputDoc(data: Uint8Array): Doc | null {
  pRaw = true;
  const d = readDoc(data);
  pRaw = false;
  return d;
}

/** Set when readDoc returns null: "invalid JSON at byte N: reason". */
export let readError: string = "";

/** A key with escapes: its node points at its unescaped bytes, in the
 * document's aux buffer (made at the first such key with room for all:
 * unescaped text is never longer). */
function escapedKey(at: usize, n: i32): bool {
  const d = pDoc!;
  let aux = d.aux;
  if (aux === null) { aux = new ArrayBuffer(pN + <i32>SLACK); d.aux = aux; }
  const to = changetype<usize>(aux) + <usize>d.auxLen;
  const m = unescape(at, n, to);
  push(Kind.String | F_ESC | F_WIDE | F_AUX, <i32>to, m, prefix(to, m, false));
  d.auxLen += m;
  return true;
}

/** Parses one JSON document onto a tape (its root is node 0); null on
 * malformed input, with readError set. */
export function readDoc(data: Uint8Array): Doc | null {
  let src = data.buffer;
  let base = data.dataStart;
  const len = data.length;
  if (base + <usize>len + SLACK > changetype<usize>(src) + <usize>src.byteLength) {
    // Too close to its buffer's end: a copy with room after it.
    src = new ArrayBuffer(len + <i32>SLACK);
    memory.copy(changetype<usize>(src), base, <usize>len);
    base = changetype<usize>(src);
  }
  const d = new Doc(src, base, len, pTape);
  pDoc = d; pP = d.base; pN = d.len; pPos = 0; pErr = ""; pErrAt = 0; pCount = 0; pHigh = false;
  skip();
  let ok = parseValue(0);
  if (ok) {
    skip();
    if (pPos < pN) { fail("unexpected data after the value"); ok = false; }
  }
  pDoc = null;
  // Invalid UTF-8 is named first, wherever it is; text without a byte
  // above 0x7f is UTF-8.
  if (!ok || pHigh) {
    const bad = invalidUTF8(data);
    if (bad >= 0) {
      shrinkTape();
      readError = "invalid JSON at byte " + bad.toString() + ": invalid UTF-8";
      return null;
    }
  }
  if (!ok) {
    shrinkTape();
    readError = "invalid JSON at byte " + pErrAt.toString() + ": " + pErr;
    return null;
  }
  const t = new ArrayBuffer((pCount << 4) + ((pCount + 1) << 2));
  memory.copy(changetype<usize>(t), changetype<usize>(pTape), <usize>pCount << 4);
  store<i32>(changetype<usize>(t) + (<usize>pCount << 4), 1); // key order lists: none yet
  d.tape = t;
  d.count = pCount;
  shrinkTape();
  readError = "";
  return d;
}
