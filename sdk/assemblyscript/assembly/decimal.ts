// Exact decimal arithmetic for float formatting and parsing, ported from
// Go's strconv (decimal.go, ftoa.go's roundShortest, atof.go's slow path),
// so AssemblyScript plugins format and parse numbers exactly as Go does:
// shortest round-trip digits out, correctly rounded floats in. (The
// runtime's own dtoa is Grisu2, whose output is sometimes not the shortest,
// e.g. 0.30000000000000007 for 0.1+0.2.)

const LEFT_DELTA: i32[] = [0,1,1,1,2,2,2,3,3,3,4,4,4,4,5,5,5,6,6,6,7,7,7,7,8,8,8,9,9,9,10,10,10,10,11,11,11,12,12,12,13,13,13,13,14,14,14,15,15,15,16,16,16,16,17,17,17,18,18,18,19];
const LEFT_CUTOFF: string[] = [
  "",
  "5",
  "25",
  "125",
  "625",
  "3125",
  "15625",
  "78125",
  "390625",
  "1953125",
  "9765625",
  "48828125",
  "244140625",
  "1220703125",
  "6103515625",
  "30517578125",
  "152587890625",
  "762939453125",
  "3814697265625",
  "19073486328125",
  "95367431640625",
  "476837158203125",
  "2384185791015625",
  "11920928955078125",
  "59604644775390625",
  "298023223876953125",
  "1490116119384765625",
  "7450580596923828125",
  "37252902984619140625",
  "186264514923095703125",
  "931322574615478515625",
  "4656612873077392578125",
  "23283064365386962890625",
  "116415321826934814453125",
  "582076609134674072265625",
  "2910383045673370361328125",
  "14551915228366851806640625",
  "72759576141834259033203125",
  "363797880709171295166015625",
  "1818989403545856475830078125",
  "9094947017729282379150390625",
  "45474735088646411895751953125",
  "227373675443232059478759765625",
  "1136868377216160297393798828125",
  "5684341886080801486968994140625",
  "28421709430404007434844970703125",
  "142108547152020037174224853515625",
  "710542735760100185871124267578125",
  "3552713678800500929355621337890625",
  "17763568394002504646778106689453125",
  "88817841970012523233890533447265625",
  "444089209850062616169452667236328125",
  "2220446049250313080847263336181640625",
  "11102230246251565404236316680908203125",
  "55511151231257827021181583404541015625",
  "277555756156289135105907917022705078125",
  "1387778780781445675529539585113525390625",
  "6938893903907228377647697925567626953125",
  "34694469519536141888238489627838134765625",
  "173472347597680709441192448139190673828125",
  "867361737988403547205962240695953369140625"];
const POWTAB: i32[] = [1, 3, 6, 9, 13, 16, 19, 23, 26];
const MAX_SHIFT: u32 = 60;
const ZERO: u8 = 0x30;

export class Decimal {
  d: Uint8Array = new Uint8Array(800);
  nd: i32 = 0;
  dp: i32 = 0;
  neg: bool = false;
  trunc: bool = false;

  assign(v: u64): void {
    const buf = new Uint8Array(24);
    let n = 0;
    while (v > 0) {
      const v1 = v / 10;
      buf[n++] = <u8>(v - 10 * v1) + ZERO;
      v = v1;
    }
    this.nd = 0;
    for (n--; n >= 0; n--) this.d[this.nd++] = buf[n];
    this.dp = this.nd;
    this.trim();
  }

  trim(): void {
    while (this.nd > 0 && this.d[this.nd - 1] == ZERO) this.nd--;
    if (this.nd == 0) this.dp = 0;
  }

  rightShift(k: u32): void {
    let r = 0, w = 0;
    let n: u64 = 0;
    for (; (n >> k) == 0; r++) {
      if (r >= this.nd) {
        if (n == 0) { this.nd = 0; return; }
        while ((n >> k) == 0) { n = n * 10; r++; }
        break;
      }
      n = n * 10 + <u64>(this.d[r] - ZERO);
    }
    this.dp -= r - 1;
    const mask: u64 = (<u64>1 << k) - 1;
    for (; r < this.nd; r++) {
      const c = <u64>this.d[r];
      const dig = n >> k;
      n &= mask;
      this.d[w++] = <u8>dig + ZERO;
      n = n * 10 + c - <u64>ZERO;
    }
    while (n > 0) {
      const dig = n >> k;
      n &= mask;
      if (w < 800) this.d[w++] = <u8>dig + ZERO;
      else if (dig > 0) this.trunc = true;
      n = n * 10;
    }
    this.nd = w;
    this.trim();
  }

  prefixIsLessThan(s: string): bool {
    for (let i = 0; i < s.length; i++) {
      if (i >= this.nd) return true;
      const c = <u8>s.charCodeAt(i);
      if (this.d[i] != c) return this.d[i] < c;
    }
    return false;
  }

  leftShift(k: u32): void {
    let delta = LEFT_DELTA[k];
    if (this.prefixIsLessThan(LEFT_CUTOFF[k])) delta--;
    let r = this.nd, w = this.nd + delta;
    let n: u64 = 0;
    for (r--; r >= 0; r--) {
      n += <u64>(this.d[r] - ZERO) << k;
      const quo = n / 10;
      const rem = n - 10 * quo;
      w--;
      if (w < 800) this.d[w] = <u8>rem + ZERO;
      else if (rem != 0) this.trunc = true;
      n = quo;
    }
    while (n > 0) {
      const quo = n / 10;
      const rem = n - 10 * quo;
      w--;
      if (w < 800) this.d[w] = <u8>rem + ZERO;
      else if (rem != 0) this.trunc = true;
      n = quo;
    }
    this.nd += delta;
    if (this.nd >= 800) this.nd = 800;
    this.dp += delta;
    this.trim();
  }

  shift(k: i32): void {
    if (this.nd == 0) return;
    if (k > 0) {
      while (k > <i32>MAX_SHIFT) { this.leftShift(MAX_SHIFT); k -= MAX_SHIFT; }
      this.leftShift(<u32>k);
    } else if (k < 0) {
      while (k < -<i32>MAX_SHIFT) { this.rightShift(MAX_SHIFT); k += MAX_SHIFT; }
      this.rightShift(<u32>(-k));
    }
  }

  shouldRoundUp(nd: i32): bool {
    if (nd < 0 || nd >= this.nd) return false;
    if (this.d[nd] == 0x35 && nd + 1 == this.nd) {
      if (this.trunc) return true;
      return nd > 0 && (this.d[nd - 1] - ZERO) % 2 != 0;
    }
    return this.d[nd] >= 0x35;
  }

  round(nd: i32): void {
    if (nd < 0 || nd >= this.nd) return;
    if (this.shouldRoundUp(nd)) this.roundUp(nd); else this.roundDown(nd);
  }

  roundDown(nd: i32): void {
    if (nd < 0 || nd >= this.nd) return;
    this.nd = nd;
    this.trim();
  }

  roundUp(nd: i32): void {
    if (nd < 0 || nd >= this.nd) return;
    for (let i = nd - 1; i >= 0; i--) {
      if (this.d[i] < 0x39) { this.d[i]++; this.nd = i + 1; return; }
    }
    this.d[0] = 0x31;
    this.nd = 1;
    this.dp++;
  }

  roundedInteger(): u64 {
    if (this.dp > 20) return 0xFFFFFFFFFFFFFFFF;
    let i = 0;
    let n: u64 = 0;
    for (; i < this.dp && i < this.nd; i++) n = n * 10 + <u64>(this.d[i] - ZERO);
    for (; i < this.dp; i++) n *= 10;
    if (this.shouldRoundUp(this.dp)) n++;
    return n;
  }

  /** Reads a JSON number literal (already validated) of len units of
   * type T (u8 for UTF-8 bytes, u16 for a string's units) at p. */
  setAt<T>(p: usize, len: i32): void {
    let i = 0;
    this.neg = false; this.trunc = false; this.nd = 0; this.dp = 0;
    if (i < len && unit<T>(p, i) == 0x2d) { this.neg = true; i++; }
    let sawdot = false;
    for (; i < len; i++) {
      const c = unit<T>(p, i);
      if (c == 0x2e) { sawdot = true; this.dp = this.nd; continue; }
      if (c >= 0x30 && c <= 0x39) {
        if (c == 0x30 && this.nd == 0) { this.dp--; continue; }
        if (this.nd < 800) this.d[this.nd++] = <u8>c;
        else if (c != 0x30) this.trunc = true;
        continue;
      }
      break;
    }
    if (!sawdot) this.dp = this.nd;
    if (i < len && (unit<T>(p, i) == 0x65 || unit<T>(p, i) == 0x45)) {
      i++;
      let esign = 1;
      if (i < len && unit<T>(p, i) == 0x2b) i++;
      else if (i < len && unit<T>(p, i) == 0x2d) { i++; esign = -1; }
      let e = 0;
      for (; i < len; i++) {
        const c = unit<T>(p, i);
        if (c < 0x30 || c > 0x39) break;
        if (e < 10000) e = e * 10 + (c - 0x30);
      }
      this.dp += e * esign;
    }
  }

  /** Reads a JSON number literal (already validated). */
  set(s: string): void {
    this.setAt<u16>(changetype<usize>(s), s.length);
  }

  /** The float64 nearest to the decimal (round half to even). */
  floatBits(): f64 {
    const bias = -1023;
    let exp = 0;
    let mant: u64 = 0;
    let inf = false;
    if (this.nd == 0) { mant = 0; exp = bias; }
    else if (this.dp > 310) inf = true;
    else if (this.dp < -330) { mant = 0; exp = bias; }
    else {
      exp = 0;
      while (this.dp > 0) {
        const n = this.dp >= POWTAB.length ? 27 : POWTAB[this.dp];
        this.shift(-n);
        exp += n;
      }
      while (this.dp < 0 || (this.dp == 0 && this.d[0] < 0x35)) {
        const n = -this.dp >= POWTAB.length ? 27 : POWTAB[-this.dp];
        this.shift(n);
        exp -= n;
      }
      exp--;
      if (exp < bias + 1) {
        const n = bias + 1 - exp;
        this.shift(-n);
        exp += n;
      }
      if (exp - bias >= 2047) inf = true;
      else {
        this.shift(53);
        mant = this.roundedInteger();
        if (mant == (<u64>2 << 52)) {
          mant >>= 1;
          exp++;
          if (exp - bias >= 2047) inf = true;
        }
        if (!inf && (mant & (<u64>1 << 52)) == 0) exp = bias;
      }
    }
    if (inf) { mant = 0; exp = 2047 + bias; }
    let bits = mant & ((<u64>1 << 52) - 1);
    bits |= (<u64>((exp - bias) & 2047)) << 52;
    if (this.neg) bits |= <u64>1 << 63;
    return reinterpret<f64>(bits);
  }
}

// @ts-ignore: decorator
@inline function unit<T>(p: usize, i: i32): i32 {
  return <i32>load<T>(p + (<usize>i << alignof<T>()));
}

// Exact powers of ten as float64.
const POW10: StaticArray<f64> = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
  1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

// The decimal numbers are parsed in when the fast path cannot: reused, so
// a number costs no allocation.
const parsing = new Decimal();

/** Parses a JSON number literal of len units of type T at p (see
 * Decimal.setAt) to the nearest float64, as Go does. Literals of at most
 * 15 significant digits with a small exponent are computed exactly with
 * one float operation (both operands exact, so the result is correctly
 * rounded); others go through exact decimal arithmetic. */
export function parseNumberAt<T>(p: usize, len: i32): f64 {
  let i = 0;
  const neg = len > 0 && unit<T>(p, 0) == 0x2d;
  if (neg) i++;
  let mant: u64 = 0;
  let nd = 0; // significant digits (after leading zeros)
  let frac = 0; // digits after the point
  let dot = false;
  for (; i < len; i++) {
    const c = unit<T>(p, i);
    if (c == 0x2e) { dot = true; continue; }
    if (c < 0x30 || c > 0x39) break;
    if (dot) frac++;
    if (nd == 0 && c == 0x30) continue;
    mant = mant * 10 + <u64>(c - 0x30);
    nd++;
    if (nd > 15) break;
  }
  if (nd <= 15) {
    let e = 0;
    let ok = true;
    if (i < len) {
      // the exponent
      i++;
      let esign = 1;
      if (i < len && unit<T>(p, i) == 0x2b) i++;
      else if (i < len && unit<T>(p, i) == 0x2d) { i++; esign = -1; }
      for (; i < len; i++) {
        const c = unit<T>(p, i);
        if (e > 1000) { ok = false; break; }
        e = e * 10 + (c - 0x30);
      }
      e *= esign;
    }
    e -= frac;
    if (ok) {
      let f: f64 = 0;
      if (mant == 0) f = 0;
      else if (e == 0) f = <f64>mant;
      else if (e > 0 && e <= 22) f = <f64>mant * unchecked(POW10[e]);
      else if (e < 0 && e >= -22) f = <f64>mant / unchecked(POW10[-e]);
      else ok = false;
      if (ok) return neg ? -f : f;
    }
  }
  parsing.setAt<T>(p, len);
  return parsing.floatBits();
}

/** Parses a JSON number literal to the nearest float64, as Go does. */
export function parseNumberLiteral(s: string): f64 {
  return parseNumberAt<u16>(changetype<usize>(s), s.length);
}

/** The shortest decimal digits that read back as f (f finite, positive):
 * f = 0.digits × 10^dp. */
export function shortestDigits(f: f64): Decimal {
  const bits = reinterpret<u64>(f);
  let exp = <i32>((bits >> 52) & 2047);
  let mant = bits & ((<u64>1 << 52) - 1);
  if (exp == 0) exp++; else mant |= <u64>1 << 52;
  exp += -1023;
  const d = new Decimal();
  d.assign(mant);
  d.shift(exp - 52);
  roundShortest(d, mant, exp);
  return d;
}

function roundShortest(d: Decimal, mant: u64, exp: i32): void {
  if (mant == 0) { d.nd = 0; return; }
  const minexp = -1023 + 1;
  if (exp > minexp && 332 * (d.dp - d.nd) >= 100 * (exp - 52)) return;
  const upper = new Decimal();
  upper.assign(mant * 2 + 1);
  upper.shift(exp - 52 - 1);
  let mantlo: u64, explo: i32;
  if (mant > (<u64>1 << 52) || exp == minexp) { mantlo = mant - 1; explo = exp; }
  else { mantlo = mant * 2 - 1; explo = exp - 1; }
  const lower = new Decimal();
  lower.assign(mantlo * 2 + 1);
  lower.shift(explo - 52 - 1);
  const inclusive = mant % 2 == 0;
  let upperdelta = 0;
  for (let ui = 0; ; ui++) {
    const mi = ui - upper.dp + d.dp;
    if (mi >= d.nd) break;
    const li = ui - upper.dp + lower.dp;
    let l: u8 = ZERO;
    if (li >= 0 && li < lower.nd) l = lower.d[li];
    let m: u8 = ZERO;
    if (mi >= 0) m = d.d[mi];
    let u: u8 = ZERO;
    if (ui < upper.nd) u = upper.d[ui];
    const okdown = l != m || (inclusive && li + 1 == lower.nd);
    if (upperdelta == 0 && m + 1 < u) upperdelta = 2;
    else if (upperdelta == 0 && m != u) upperdelta = 1;
    else if (upperdelta == 1 && (m != 0x39 || u != ZERO)) upperdelta = 2;
    const okup = upperdelta > 0 && (inclusive || upperdelta > 1 || ui + 1 < upper.nd);
    if (okdown && okup) { d.round(mi + 1); return; }
    if (okdown) { d.roundDown(mi + 1); return; }
    if (okup) { d.roundUp(mi + 1); return; }
  }
}
