// JSON deep compare with numeric tolerance, giving the structured diff the
// engine's json check gives (same paths, ops, summary), as in the Go and
// Rust SDKs.

import { Value, Kind, quote, formatFloat, numberValue, sortedKeys } from "./json";
import { Doc, sameText, sameBytes, utf8Padded, noteSame, keyOrder, nodeText, nKind, nA, nB, nAddr, nNext, order, ordAt } from "./tape";
import { Diff, DiffEntry } from "./models";

export const MAX_DIFF_ENTRIES = 50;

export class JSONOptions {
  tolerance: f64 = 0;
  relTolerance: f64 = 0;
  /** Keys left out of the comparison wherever they are. */
  get ignoreKeys(): Array<string> {
    let k = this._ignoreKeys;
    if (k === null) { k = new Array<string>(); this._ignoreKeys = k; }
    return k;
  }
  set ignoreKeys(k: Array<string>) { this._ignoreKeys = k; }
  _ignoreKeys: Array<string> | null = null;
  unorderedLists: bool = false;
}

/** Deep-compares two values: null when they match, else every difference
 * with its path, capped at MAX_DIFF_ENTRIES, and a one-line summary. */
export function compareJSON(expected: Value, actual: Value, opts: JSONOptions): Diff | null {
  // A parsed value matches itself whatever the options (parsed, it holds
  // no NaN).
  if (expected === actual && expected.docNode !== null) return null;
  const c = new Comparer(opts);
  const saved = cmp;
  cmp = c;
  pathDepth = 0;
  marksTop = 0;
  elemsTop = 0;
  cExact = true;
  c.compare(expected, actual);
  cmp = saved;
  const d = c.diff;
  if (d === null) {
    const wd = expected.docNode, gd = actual.docNode;
    if (cExact && wd !== null && gd !== null) noteSame(wd, expected._node, gd, actual._node);
    return null;
  }
  d.summary = summarize(d.entries, d.truncated);
  return d;
}

function numText(v: Value): string {
  return v.kind == Kind.Float ? formatFloat(v.f) : v.s;
}

// The path of the value being compared, from "$": steps of three i32 (a
// kind, then a tape and key node, or an index into the comparer's keys, or
// an array index), written out only for a difference. A stack in a global,
// shared by every comparison (they do not nest).
const STEP_KEY = 0; // an object key given as a string (Comparer.keys)
const STEP_NODE = 1; // an object key given as a tape's key node
const STEP_INDEX = 2; // an array index
let pathBuf = new StaticArray<i32>(96);
let pathDepth = 0;

// @ts-ignore: decorator
@inline function pathPush(kind: i32, x: i32, y: i32): void {
  let at = pathDepth * 3;
  if (at + 3 > pathBuf.length) pathGrow();
  const p = changetype<usize>(pathBuf) + (<usize>at << 2);
  store<i32>(p, kind);
  store<i32>(p, x, 4);
  store<i32>(p, y, 8);
  pathDepth++;
}
function pathGrow(): void {
  const n = new StaticArray<i32>(pathBuf.length << 1);
  memory.copy(changetype<usize>(n), changetype<usize>(pathBuf), <usize>pathDepth * 12);
  pathBuf = n;
}

// The comparison of two documents' nodes (see cmpNodes): the comparer
// that notes differences, the documents (for the values a difference
// names), the options, and whether only equality is asked.
let cmp: Comparer | null = null;
let cWant: Doc | null = null;
let cGot: Doc | null = null;
let cTol: f64 = 0;
let cRel: f64 = 0;
let cUnordered = false;
let cIgnores = 0;
let cQuick = false;
let cDiffers = false;
/** Whether the documents compared so far are the same text for text: no
 * difference, no number equal only within the tolerance, no key ignored,
 * no list compared unordered. */
let cExact = true;

// Per object being compared, which of the actual object's members matched
// one expected (a stack of bytes); per unordered list, its elements.
let marks = new ArrayBuffer(256);
let marksTop = 0;
let elems = new StaticArray<i32>(64);
let elemsTop = 0;

function marksPush(n: i32): i32 {
  const at = marksTop;
  if (at + n > marks.byteLength) {
    const m = new ArrayBuffer(max(at + n, marks.byteLength << 1));
    memory.copy(changetype<usize>(m), changetype<usize>(marks), <usize>at);
    marks = m;
  }
  memory.fill(changetype<usize>(marks) + <usize>at, 0, <usize>n);
  marksTop = at + n;
  return at;
}
function elemsPush(n: i32): i32 {
  const at = elemsTop;
  if (at + n > elems.length) {
    const e = new StaticArray<i32>(max(at + n, elems.length << 1));
    memory.copy(changetype<usize>(e), changetype<usize>(elems), <usize>at << 2);
    elems = e;
  }
  elemsTop = at + n;
  return at;
}
// @ts-ignore: decorator
@inline function markAddr(k: i32): usize { return changetype<usize>(marks) + <usize>k; }
// @ts-ignore: decorator
@inline function elemAddr(k: i32): usize { return changetype<usize>(elems) + (<usize>k << 2); }

const OP_TYPE = 0, OP_CHANGED = 1, OP_MISSING = 2, OP_EXTRA = 3;

/** Notes a difference of the document comparison: node w of the expected
 * document, node g of the actual one (-1 for none). */
function cAdd(op: i32, w: i32, g: i32): void {
  cExact = false;
  if (cQuick) { cDiffers = true; return; }
  const name = op == OP_TYPE ? "type" : op == OP_CHANGED ? "changed" : op == OP_MISSING ? "missing" : "extra";
  cmp!.add(name, w < 0 ? Value.null() : Value.at(cWant!, w), g < 0 ? Value.null() : Value.at(cGot!, g));
}

/** Whether key node k of the tape at t is one of the keys to ignore. */
function ignoredNode(t: usize, k: i32): bool {
  const c = cmp!;
  const keys = c.ignoreBytes!, lens = c.ignoreLens!;
  const p = nAddr(t, k), n = nB(t, k);
  for (let i = 0, m = keys.length; i < m; i++) {
    if (unchecked(lens[i]) == n && sameBytes(p, changetype<usize>(unchecked(keys[i])), n)) return true;
  }
  return false;
}

/** Where cmpMember left the walk over the actual object's keys. */
let cMatch = 0;

/** Compares the expected member whose key is node k with the actual
 * object's member of the same key, looked for from its j-th key on (the
 * actual object's ga-th key order list, gn keys; matches marked from
 * mark): true when there is one (cMatch is its position), else the
 * member is noted missing (cMatch is where the walk stopped). */
// @ts-ignore: decorator
@inline function cmpMember(wt: usize, wo: usize, k: i32, gt: usize, go: usize, ga: i32, gn: i32, j: i32, mark: i32): bool {
  let c = 1;
  if (j < gn) {
    c = keyOrder(gt, ordAt(go, ga + 1 + j), wt, k);
    if (c < 0) {
      // Actual members before this key: not expected.
      j++;
      while (j < gn) {
        c = keyOrder(gt, ordAt(go, ga + 1 + j), wt, k);
        if (c >= 0) break;
        j++;
      }
    }
  }
  pathPush(STEP_NODE, <i32>wt, k);
  const found = j < gn && c == 0;
  if (found) {
    store<u8>(markAddr(mark + j), 1);
    cmpNodes(wt, wo, k + 1, gt, go, ordAt(go, ga + 1 + j) + 1);
  } else {
    cAdd(OP_MISSING, k + 1, -1);
  }
  pathDepth--;
  cMatch = j;
  return found;
}

/** Compares node wi of the expected tape (wt, key orders wo) with node gi
 * of the actual one, as Comparer.compare compares values. */
function cmpNodes(wt: usize, wo: usize, wi: i32, gt: usize, go: usize, gi: i32): void {
  if (wt == gt && wi == gi) return; // the same value
  if (cQuick && cDiffers) return;
  const wk = nKind(wt, wi), gk = nKind(gt, gi);
  if (wk == Kind.Object) {
    if (gk != Kind.Object) { cAdd(OP_TYPE, wi, gi); return; }
    // Both objects' keys in order, walked side by side; the actual
    // object's members that match are marked.
    const wa = order(wt, wo, wi), ga = order(gt, go, gi);
    const wn = ordAt(wo, wa), gn = ordAt(go, ga);
    const mark = marksPush(gn);
    let j = 0, matched = 0;
    // The first eight expected members without a loop (most objects are
    // small), then two an iteration (see cmpMember).
    let i = 0;
    do {
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      if (i >= wn) break;
      {
        const k = ordAt(wo, wa + 1 + i);
        if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
        else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
        else j = cMatch;
        i++;
      }
      while (i < wn) {
        {
          const k = ordAt(wo, wa + 1 + i);
          if (cIgnores > 0 && ignoredNode(wt, k)) cExact = false;
          else if (cmpMember(wt, wo, k, gt, go, ga, gn, j, mark)) { j = cMatch + 1; matched++; }
          else j = cMatch;
          i++;
        }
      }
    } while (false);
    if (matched < gn) {
      for (j = 0; j < gn; j++) {
        if (load<u8>(markAddr(mark + j)) != 0) continue;
        const k = ordAt(go, ga + 1 + j);
        if (cIgnores > 0 && ignoredNode(gt, k)) { cExact = false; continue; }
        pathPush(STEP_NODE, <i32>gt, k);
        cAdd(OP_EXTRA, -1, k + 1);
        pathDepth--;
      }
    }
    marksTop = mark;
    return;
  }
  if (wk == Kind.Array) {
    if (gk != Kind.Array) { cAdd(OP_TYPE, wi, gi); return; }
    if (cUnordered) { unorderedNodes(wt, wo, wi, gt, go, gi); return; }
    const wn = nA(wt, wi), gn = nA(gt, gi);
    let wc = wi + 1, gc = gi + 1;
    // The elements both have: the first eight without a loop, then two
    // an iteration; then the rest.
    const both = min(wn, gn);
    let i = 0;
    do {
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      if (i >= both) break;
      pathPush(STEP_INDEX, i, 0);
      cmpNodes(wt, wo, wc, gt, go, gc);
      pathDepth--;
      wc = nNext(wt, wc);
      gc = nNext(gt, gc);
      i++;
      while (i + 2 <= both) {
        pathPush(STEP_INDEX, i, 0);
        cmpNodes(wt, wo, wc, gt, go, gc);
        pathDepth--;
        wc = nNext(wt, wc);
        gc = nNext(gt, gc);
        i++;
        pathPush(STEP_INDEX, i, 0);
        cmpNodes(wt, wo, wc, gt, go, gc);
        pathDepth--;
        wc = nNext(wt, wc);
        gc = nNext(gt, gc);
        i++;
      }
      if (i < both) {
        pathPush(STEP_INDEX, i, 0);
        cmpNodes(wt, wo, wc, gt, go, gc);
        pathDepth--;
        wc = nNext(wt, wc);
        gc = nNext(gt, gc);
        i++;
      }
    } while (false);
    if (i < wn || i < gn) {
      for (let n = max(wn, gn); i < n; i++) {
        pathPush(STEP_INDEX, i, 0);
        if (i >= gn) cAdd(OP_MISSING, wc, -1);
        else cAdd(OP_EXTRA, -1, gc);
        pathDepth--;
        if (i < wn) wc = nNext(wt, wc);
        if (i < gn) gc = nNext(gt, gc);
      }
    }
    return;
  }
  if (wk != gk) { cAdd(OP_TYPE, wi, gi); return; }
  if (wk == Kind.Number) {
    if (!sameText(wt, wi, gt, gi)) {
      cExact = false;
      if (!numbersWithin(nodeText(wt, wi), nodeText(gt, gi), cTol, cRel)) cAdd(OP_CHANGED, wi, gi);
    }
    return;
  }
  let same = true;
  if (wk == Kind.Bool) same = nA(wt, wi) == nA(gt, gi);
  else if (wk == Kind.String) same = sameText(wt, wi, gt, gi);
  if (!same) cAdd(OP_CHANGED, wi, gi);
}

/** Whether two nodes are equal, as cmpNodes compares them. */
function equalNodes(wt: usize, wo: usize, wi: i32, gt: usize, go: usize, gi: i32): bool {
  const quick = cQuick, differs = cDiffers;
  cQuick = true;
  cDiffers = false;
  cmpNodes(wt, wo, wi, gt, go, gi);
  const equal = !cDiffers;
  cQuick = quick;
  cDiffers = differs;
  return equal;
}

/** compareUnordered for two array nodes. */
function unorderedNodes(wt: usize, wo: usize, wi: i32, gt: usize, go: usize, gi: i32): void {
  cExact = false;
  const wn = nA(wt, wi), gn = nA(gt, gi);
  const want = elemsPush(wn), got = elemsPush(gn);
  for (let i = 0, c = wi + 1; i < wn; i++) { store<i32>(elemAddr(want + i), c); c = nNext(wt, c); }
  for (let j = 0, c = gi + 1; j < gn; j++) { store<i32>(elemAddr(got + j), c); c = nNext(gt, c); }
  const used = marksPush(gn), found = marksPush(wn);
  for (let i = 0; i < wn; i++) {
    for (let j = 0; j < gn; j++) {
      if (load<u8>(markAddr(used + j)) == 0
        && equalNodes(wt, wo, load<i32>(elemAddr(want + i)), gt, go, load<i32>(elemAddr(got + j)))) {
        store<u8>(markAddr(used + j), 1);
        store<u8>(markAddr(found + i), 1);
        break;
      }
    }
  }
  for (let i = 0; i < wn; i++) {
    if (load<u8>(markAddr(found + i)) != 0) continue;
    pathPush(STEP_INDEX, i, 0);
    cAdd(OP_MISSING, load<i32>(elemAddr(want + i)), -1);
    pathDepth--;
  }
  for (let j = 0; j < gn; j++) {
    if (load<u8>(markAddr(used + j)) != 0) continue;
    pathPush(STEP_INDEX, j, 0);
    cAdd(OP_EXTRA, -1, load<i32>(elemAddr(got + j)));
    pathDepth--;
  }
  marksTop = used;
  elemsTop = want;
}

class Comparer {
  opts: JSONOptions;
  /** The differences, once there is one. */
  diff: Diff | null = null;
  // The keys of the path given as strings (see STEP_KEY).
  private _keys: Array<string> | null = null;
  // The keys to ignore as UTF-8 (and their lengths), for comparing with a
  // document's keys.
  ignoreBytes: Array<ArrayBuffer> | null = null;
  ignoreLens: Array<i32> | null = null;
  // Whether only equality is asked (an unordered list's elements): a
  // difference is then noted, not described.
  quick: bool = false;
  differs: bool = false;
  sub: Comparer | null = null;
  constructor(opts: JSONOptions) {
    this.opts = opts;
    const ignore = opts._ignoreKeys;
    if (ignore !== null && ignore.length > 0) {
      const bytes = new Array<ArrayBuffer>(), lens = new Array<i32>();
      for (let i = 0; i < ignore.length; i++) {
        bytes.push(utf8Padded(ignore[i]));
        lens.push(String.UTF8.byteLength(ignore[i]));
      }
      this.ignoreBytes = bytes;
      this.ignoreLens = lens;
    }
  }

  ignored(k: string): bool {
    const ignore = this.opts._ignoreKeys;
    return ignore !== null && ignore.includes(k);
  }

  get keys(): Array<string> {
    let k = this._keys;
    if (k === null) { k = new Array<string>(); this._keys = k; }
    return k;
  }
  key(k: string): void { this.keys.push(k); pathPush(STEP_KEY, this.keys.length - 1, 0); }
  index(i: i32): void { pathPush(STEP_INDEX, i, 0); }
  pop(): void {
    pathDepth--;
    if (unchecked(pathBuf[pathDepth * 3]) == STEP_KEY) this.keys.pop();
  }
  path(): string {
    let p = "$";
    for (let i = 0, n = pathDepth; i < n; i++) {
      const kind = unchecked(pathBuf[i * 3]), x = unchecked(pathBuf[i * 3 + 1]), y = unchecked(pathBuf[i * 3 + 2]);
      if (kind == STEP_KEY) p = childPath(p, unchecked(this.keys[x]));
      else if (kind == STEP_NODE) p = childPath(p, nodeText(<usize>x, y));
      else p = p + "[" + x.toString() + "]";
    }
    return p;
  }

  add(op: string, expected: Value, actual: Value): void {
    if (this.quick) { this.differs = true; return; }
    let d = this.diff;
    if (d === null) { d = new Diff(); this.diff = d; }
    if (d.entries.length >= MAX_DIFF_ENTRIES) { d.truncated = true; return; }
    d.entries.push(new DiffEntry(this.path(), op, expected, actual));
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

  /** compare for two documents' nodes: the recursion over their tapes,
   * noting differences in this comparer. */
  nodes(wd: Doc, wi: i32, gd: Doc, gi: i32): void {
    const saved = cmp, sw = cWant, sg = cGot, sq = cQuick, sdf = cDiffers;
    cmp = this;
    cWant = wd;
    cGot = gd;
    cTol = this.opts.tolerance;
    cRel = this.opts.relTolerance;
    cUnordered = this.opts.unorderedLists;
    const ignore = this.ignoreBytes;
    cIgnores = ignore !== null ? ignore.length : 0;
    cQuick = this.quick;
    cDiffers = this.differs;
    cmpNodes(wd.t, wd.ordAddr(), wi, gd.t, gd.ordAddr(), gi);
    this.differs = cDiffers;
    cmp = saved;
    cWant = sw;
    cGot = sg;
    cQuick = sq;
    cDiffers = sdf;
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

  equal(want: Value, got: Value): bool {
    let sub = this.sub;
    if (sub === null) { sub = new Comparer(this.opts); sub.quick = true; this.sub = sub; }
    sub.differs = false;
    sub.compare(want, got);
    return !sub.differs;
  }
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
  return numbersWithin(a, b, opts.tolerance, opts.relTolerance);
}

function numbersWithin(a: string, b: string, tolerance: f64, relTolerance: f64): bool {
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
  return d <= tolerance || d <= relTolerance * scale;
}

function typeOf(v: Value): string {
  switch (v.kind) {
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
