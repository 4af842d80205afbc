//! Byte primitives of the hot paths: scanning a run of bytes for the first
//! one of a class (a string's end or escape, a byte to escape, a non-digit,
//! a non-ASCII byte), copying and comparing.
//!
//! Built for wasm32 they use SIMD128 and are written so that a run of bytes
//! costs few loop iterations: 16 or 64 bytes per iteration, and short runs
//! none at all. That matters beyond the usual: a host that checks for
//! termination at every loop iteration (wazero does for code that can be
//! interrupted, by leaving the compiled code) pays far more for an
//! iteration than for the work in it. For the same reason the module's
//! memcpy, memmove, memset, memcmp and bcmp are these too, so the standard
//! library's moves and comparisons (a Vec growing, a BTreeMap shifting its
//! keys, two keys compared) cost no per-byte loop either. Elsewhere the
//! primitives are plain scalar code.

/// Index of the first byte at or after i that ends a JSON string's plain
/// run: '"', '\\' or a control character; s.len() when there is none.
#[inline]
pub(crate) fn string_stop(s: &[u8], i: usize) -> usize {
    imp::stop::<StringStop>(s, i)
}

/// Index of the first byte at or after i that encoding/json's escaping
/// may change: '"', '\\', a control character, '<', '>', '&', or 0xE2 (the
/// first byte of U+2028 and U+2029); s.len() when there is none.
#[inline]
pub(crate) fn quote_stop(s: &[u8], i: usize) -> usize {
    imp::stop::<QuoteStop>(s, i)
}

/// Index of the first byte at or after i that is not an ASCII digit.
#[inline]
pub(crate) fn digits_end(s: &[u8], i: usize) -> usize {
    imp::stop::<NonDigit>(s, i)
}

/// Index of the first byte at or after i that is not JSON whitespace.
#[inline]
pub(crate) fn space_end(s: &[u8], i: usize) -> usize {
    imp::stop::<NonSpace>(s, i)
}

/// Unescapes, from s[i] on (a byte that is not plain), the JSON string
/// escapes of one character (`\"`, `\n`, …) and the plain runs after them
/// into buf; returns where it stopped, at a byte that is not plain and
/// left to the caller: the string's end, a control character, a `\u`
/// escape or an invalid one, or the end of s. A string of JSON text held
/// in JSON has such an escape every few bytes.
#[inline]
pub(crate) fn unescape(s: &[u8], i: usize, buf: &mut Vec<u8>) -> usize {
    imp::unescape(s, i, buf)
}

/// The byte a one-character escape stands for.
#[inline]
pub(crate) fn simple_escape(e: u8) -> Option<u8> {
    match e {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        b'/' => Some(b'/'),
        b'b' => Some(8),
        b'f' => Some(12),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        _ => None,
    }
}

/// Appends s quoted to out when none of its bytes needs escaping (see
/// quote_stop); false, and out as it was, when one does.
#[inline]
pub(crate) fn quote_plain(s: &[u8], out: &mut Vec<u8>) -> bool {
    if imp::stop::<QuoteStop>(s, 0) < s.len() {
        return false;
    }
    reserve(out, s.len() + 2);
    unsafe {
        let d = out.as_mut_ptr().add(out.len());
        *d = b'"';
        imp::copy(d.add(1), s.as_ptr(), s.len());
        *d.add(1 + s.len()) = b'"';
        out.set_len(out.len() + s.len() + 2);
    }
    true
}

/// Length of s's ASCII prefix.
#[inline]
pub(crate) fn ascii_len(s: &[u8]) -> usize {
    imp::stop::<NonAscii>(s, 0)
}

/// Appends s to v.
#[inline]
pub(crate) fn extend(v: &mut Vec<u8>, s: &[u8]) {
    reserve(v, s.len());
    unsafe {
        imp::copy(v.as_mut_ptr().add(v.len()), s.as_ptr(), s.len());
        v.set_len(v.len() + s.len());
    }
}

/// Copies s to d, which has room for it and does not overlap it.
#[inline]
pub(crate) unsafe fn copy_to(d: *mut u8, s: &[u8]) {
    imp::copy(d, s.as_ptr(), s.len())
}

/// Makes room for n more bytes in v. Growing copies with the copy here
/// (a reallocation would go through the allocator's own copy).
#[inline]
pub(crate) fn reserve(v: &mut Vec<u8>, n: usize) {
    if v.capacity() - v.len() < n {
        grow(v, n);
    }
}

#[cold]
#[inline(never)]
fn grow(v: &mut Vec<u8>, n: usize) {
    let want = v.len().checked_add(n).expect("capacity overflow");
    let cap = want.max(v.capacity().saturating_mul(2)).max(64);
    let mut g: Vec<u8> = Vec::with_capacity(cap);
    unsafe {
        imp::copy(g.as_mut_ptr(), v.as_ptr(), v.len());
        g.set_len(v.len());
    }
    *v = g;
}

/// A String holding a copy of s, which must be UTF-8.
#[inline]
pub(crate) fn string_of(s: &[u8]) -> String {
    let mut v: Vec<u8> = Vec::with_capacity(s.len());
    unsafe {
        imp::copy(v.as_mut_ptr(), s.as_ptr(), s.len());
        v.set_len(s.len());
        String::from_utf8_unchecked(v)
    }
}

/// Moves the n values at src into a new Vec (the caller forgets them).
#[inline]
pub(crate) unsafe fn vec_from_raw<T>(src: *const T, n: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    imp::copy(v.as_mut_ptr() as *mut u8, src as *const u8, n * core::mem::size_of::<T>());
    v.set_len(n);
    v
}

/// A class of bytes to stop at.
pub(crate) trait Class {
    /// Whether b is in the class.
    fn hit(b: u8) -> bool;
    /// The lanes of v in the class, as a bitmask.
    #[cfg(target_arch = "wasm32")]
    unsafe fn mask(v: core::arch::wasm32::v128) -> u16;
}

pub(crate) struct StringStop;
pub(crate) struct QuoteStop;
pub(crate) struct NonDigit;
pub(crate) struct NonSpace;
pub(crate) struct NonAscii;

#[cfg(target_arch = "wasm32")]
use core::arch::wasm32::*;

impl Class for StringStop {
    #[inline]
    fn hit(b: u8) -> bool {
        b == b'"' || b == b'\\' || b < 0x20
    }
    #[cfg(target_arch = "wasm32")]
    #[inline]
    #[target_feature(enable = "simd128")]
    unsafe fn mask(v: v128) -> u16 {
        let q = u8x16_eq(v, u8x16_splat(b'"'));
        let b = u8x16_eq(v, u8x16_splat(b'\\'));
        let c = u8x16_lt(v, u8x16_splat(0x20));
        u8x16_bitmask(v128_or(v128_or(q, b), c))
    }
}

impl Class for QuoteStop {
    #[inline]
    fn hit(b: u8) -> bool {
        matches!(b, b'"' | b'\\' | b'<' | b'>' | b'&' | 0xE2) || b < 0x20
    }
    #[cfg(target_arch = "wasm32")]
    #[inline]
    #[target_feature(enable = "simd128")]
    unsafe fn mask(v: v128) -> u16 {
        let q = u8x16_eq(v, u8x16_splat(b'"'));
        let b = u8x16_eq(v, u8x16_splat(b'\\'));
        let c = u8x16_lt(v, u8x16_splat(0x20));
        let lt = u8x16_eq(v, u8x16_splat(b'<'));
        let gt = u8x16_eq(v, u8x16_splat(b'>'));
        let amp = u8x16_eq(v, u8x16_splat(b'&'));
        let e2 = u8x16_eq(v, u8x16_splat(0xE2));
        u8x16_bitmask(v128_or(v128_or(v128_or(q, b), v128_or(c, e2)), v128_or(v128_or(lt, gt), amp)))
    }
}

impl Class for NonDigit {
    #[inline]
    fn hit(b: u8) -> bool {
        !b.is_ascii_digit()
    }
    #[cfg(target_arch = "wasm32")]
    #[inline]
    #[target_feature(enable = "simd128")]
    unsafe fn mask(v: v128) -> u16 {
        // A digit is the only byte that xor '0' takes below 10.
        u8x16_bitmask(u8x16_ge(v128_xor(v, u8x16_splat(b'0')), u8x16_splat(10)))
    }
}

impl Class for NonSpace {
    #[inline]
    fn hit(b: u8) -> bool {
        !matches!(b, b' ' | b'\t' | b'\n' | b'\r')
    }
    #[cfg(target_arch = "wasm32")]
    #[inline]
    #[target_feature(enable = "simd128")]
    unsafe fn mask(v: v128) -> u16 {
        let s = u8x16_eq(v, u8x16_splat(b' '));
        let t = u8x16_eq(v, u8x16_splat(b'\t'));
        let n = u8x16_eq(v, u8x16_splat(b'\n'));
        let r = u8x16_eq(v, u8x16_splat(b'\r'));
        !u8x16_bitmask(v128_or(v128_or(s, t), v128_or(n, r)))
    }
}

impl Class for NonAscii {
    #[inline]
    fn hit(b: u8) -> bool {
        b >= 0x80
    }
    #[cfg(target_arch = "wasm32")]
    #[inline]
    #[target_feature(enable = "simd128")]
    unsafe fn mask(v: v128) -> u16 {
        u8x16_bitmask(v)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Class;

    #[inline]
    pub(crate) fn stop<C: Class>(s: &[u8], i: usize) -> usize {
        if i >= s.len() {
            return s.len();
        }
        match s[i..].iter().position(|&b| C::hit(b)) {
            Some(k) => i + k,
            None => s.len(),
        }
    }

    #[inline]
    pub(crate) unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
        core::ptr::copy_nonoverlapping(src, dst, n)
    }

    pub(crate) fn unescape(s: &[u8], mut i: usize, buf: &mut Vec<u8>) -> usize {
        while i + 1 < s.len() && s[i] == b'\\' {
            let b = match super::simple_escape(s[i + 1]) {
                Some(b) => b,
                None => return i,
            };
            buf.push(b);
            i += 2;
            let end = stop::<super::StringStop>(s, i);
            buf.extend_from_slice(&s[i..end]);
            i = end;
        }
        i
    }

}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::Class;
    use core::arch::wasm32::*;
    use core::ptr::{read_unaligned as rd, write_unaligned as wr};

    #[inline]
    #[target_feature(enable = "simd128")]
    unsafe fn ld(p: *const u8) -> v128 {
        v128_load(p as *const v128)
    }

    #[inline]
    #[target_feature(enable = "simd128")]
    unsafe fn st(p: *mut u8, v: v128) {
        v128_store(p as *mut v128, v)
    }

    #[inline]
    pub(crate) fn stop<C: Class>(s: &[u8], i: usize) -> usize {
        unsafe { stop_simd::<C>(s, i) }
    }

    /// stop: the first block straight on, longer runs 64 bytes an
    /// iteration, a short slice through 8- and 4-byte loads.
    #[target_feature(enable = "simd128")]
    unsafe fn stop_simd<C: Class>(s: &[u8], i: usize) -> usize {
        let n = s.len();
        if i >= n {
            return n;
        }
        let p = s.as_ptr();
        let m = n - i;
        if m >= 16 {
            let bits = C::mask(ld(p.add(i)));
            if bits != 0 {
                return i + bits.trailing_zeros() as usize;
            }
            return stop_long::<C>(s, i + 16);
        }
        if n >= 16 {
            // The last 16 bytes of s hold the m left, from lane 16 - m.
            let bits = (C::mask(ld(p.add(n - 16))) as u32) >> (16 - m);
            return if bits != 0 { i + bits.trailing_zeros() as usize } else { n };
        }
        i + stop_short::<C>(p.add(i), m)
    }

    #[target_feature(enable = "simd128")]
    unsafe fn stop_long<C: Class>(s: &[u8], mut i: usize) -> usize {
        let n = s.len();
        let p = s.as_ptr();
        while i + 64 <= n {
            let a = C::mask(ld(p.add(i))) as u64;
            let b = C::mask(ld(p.add(i + 16))) as u64;
            let c = C::mask(ld(p.add(i + 32))) as u64;
            let d = C::mask(ld(p.add(i + 48))) as u64;
            let bits = a | b << 16 | c << 32 | d << 48;
            if bits != 0 {
                return i + bits.trailing_zeros() as usize;
            }
            i += 64;
        }
        if n - i > 16 {
            let bits = C::mask(ld(p.add(i)));
            if bits != 0 {
                return i + bits.trailing_zeros() as usize;
            }
            i += 16;
            if n - i > 16 {
                let bits = C::mask(ld(p.add(i)));
                if bits != 0 {
                    return i + bits.trailing_zeros() as usize;
                }
                i += 16;
                if n - i > 16 {
                    let bits = C::mask(ld(p.add(i)));
                    if bits != 0 {
                        return i + bits.trailing_zeros() as usize;
                    }
                    i += 16;
                }
            }
        }
        if i < n {
            let bits = (C::mask(ld(p.add(n - 16))) as u32) >> (16 - (n - i));
            if bits != 0 {
                return i + bits.trailing_zeros() as usize;
            }
        }
        n
    }

    /// stop on the m < 16 bytes at p, all of the slice there is.
    #[target_feature(enable = "simd128")]
    unsafe fn stop_short<C: Class>(p: *const u8, m: usize) -> usize {
        if m >= 8 {
            let v = u64x2(rd(p as *const u64), rd(p.add(m - 8) as *const u64));
            let bits = C::mask(v) as u32;
            if bits & 0xff != 0 {
                return (bits & 0xff).trailing_zeros() as usize;
            }
            if bits >> 8 != 0 {
                return m - 8 + (bits >> 8).trailing_zeros() as usize;
            }
            return m;
        }
        if m >= 4 {
            // (No constant lanes: with them rustc 1.63's LLVM can loop
            // forever selecting instructions.)
            let (a, b) = (rd(p as *const u32), rd(p.add(m - 4) as *const u32));
            let v = u32x4(a, b, a, b);
            let bits = C::mask(v) as u32;
            if bits & 0xf != 0 {
                return (bits & 0xf).trailing_zeros() as usize;
            }
            if (bits >> 4) & 0xf != 0 {
                return m - 4 + ((bits >> 4) & 0xf).trailing_zeros() as usize;
            }
            return m;
        }
        if m > 0 && C::hit(*p) {
            return 0;
        }
        if m > 1 && C::hit(*p.add(1)) {
            return 1;
        }
        if m > 2 && C::hit(*p.add(2)) {
            return 2;
        }
        m
    }

    #[inline]
    pub(crate) fn unescape(s: &[u8], i: usize, buf: &mut Vec<u8>) -> usize {
        unsafe { unescape_simd(s, i, buf) }
    }

    /// unescape: an escape and the plain run after it (up to 16 bytes,
    /// stored whole and counted to its end) a step, eight steps a loop
    /// iteration; buf keeps room for a block past its length.
    #[target_feature(enable = "simd128")]
    unsafe fn unescape_simd(s: &[u8], mut i: usize, buf: &mut Vec<u8>) -> usize {
        use super::StringStop;
        let n = s.len();
        let p = s.as_ptr();
        let mut len = buf.len();
        let mut d = buf.as_mut_ptr();
        let mut room = buf.capacity() - len;
        macro_rules! step {
            () => {
                if i + 18 > n {
                    break;
                }
                if room < 32 {
                    buf.set_len(len);
                    super::reserve(buf, 64);
                    d = buf.as_mut_ptr();
                    room = buf.capacity() - len;
                }
                let c = *p.add(i);
                if c == b'\\' {
                    match super::simple_escape(*p.add(i + 1)) {
                        Some(b) => *d.add(len) = b,
                        None => break,
                    }
                    len += 1;
                    room -= 1;
                    i += 2;
                } else if c == b'"' || c < 0x20 {
                    break;
                }
                let v = ld(p.add(i));
                let m = StringStop::mask(v);
                st(d.add(len), v);
                let k = if m == 0 { 16 } else { m.trailing_zeros() as usize };
                len += k;
                room -= k;
                i += k;
            };
        }
        loop {
            step!();
            step!();
            step!();
            step!();
            step!();
            step!();
            step!();
            step!();
        }
        buf.set_len(len);
        // Stopped near the end of s, possibly inside a plain run: the rest
        // of it, so that what is left starts with a byte that is not plain.
        let end = stop_simd::<StringStop>(s, i);
        super::extend(buf, &s[i..end]);
        end
    }

    /// Copies n bytes from src to dst, which do not overlap.
    #[inline]
    pub(crate) unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
        mem_move(dst, src, n)
    }

    /// Copies n bytes, the regions possibly overlapping: up to 64 bytes
    /// all loaded before any is stored; more in 64-byte blocks, in the
    /// direction that reads every byte before it is overwritten.
    #[target_feature(enable = "simd128")]
    unsafe fn mem_move(d: *mut u8, s: *const u8, n: usize) {
        if n <= 16 {
            if n >= 8 {
                let a = rd(s as *const u64);
                let b = rd(s.add(n - 8) as *const u64);
                wr(d as *mut u64, a);
                wr(d.add(n - 8) as *mut u64, b);
            } else if n >= 4 {
                let a = rd(s as *const u32);
                let b = rd(s.add(n - 4) as *const u32);
                wr(d as *mut u32, a);
                wr(d.add(n - 4) as *mut u32, b);
            } else if n > 0 {
                let (a, b, c) = (*s, *s.add(n / 2), *s.add(n - 1));
                *d = a;
                *d.add(n / 2) = b;
                *d.add(n - 1) = c;
            }
            return;
        }
        if n <= 32 {
            let a = ld(s);
            let b = ld(s.add(n - 16));
            st(d, a);
            st(d.add(n - 16), b);
            return;
        }
        if n <= 64 {
            let a = ld(s);
            let b = ld(s.add(16));
            let c = ld(s.add(n - 32));
            let e = ld(s.add(n - 16));
            st(d, a);
            st(d.add(16), b);
            st(d.add(n - 32), c);
            st(d.add(n - 16), e);
            return;
        }
        if (d as usize).wrapping_sub(s as usize) >= n {
            move_forward(d, s, n)
        } else {
            move_backward(d, s, n)
        }
    }

    /// mem_move for n > 64 with d before s or apart from it.
    #[target_feature(enable = "simd128")]
    unsafe fn move_forward(d: *mut u8, s: *const u8, n: usize) {
        let tail = ld(s.add(n - 16));
        let mut i = 0;
        while i + 64 <= n {
            let a = ld(s.add(i));
            let b = ld(s.add(i + 16));
            let c = ld(s.add(i + 32));
            let e = ld(s.add(i + 48));
            st(d.add(i), a);
            st(d.add(i + 16), b);
            st(d.add(i + 32), c);
            st(d.add(i + 48), e);
            i += 64;
        }
        if n - i > 16 {
            st(d.add(i), ld(s.add(i)));
            if n - i > 32 {
                st(d.add(i + 16), ld(s.add(i + 16)));
                if n - i > 48 {
                    st(d.add(i + 32), ld(s.add(i + 32)));
                }
            }
        }
        st(d.add(n - 16), tail);
    }

    /// mem_move for n > 64 with d after s, overlapping.
    #[target_feature(enable = "simd128")]
    unsafe fn move_backward(d: *mut u8, s: *const u8, n: usize) {
        let head = ld(s);
        let mut e = n;
        while e >= 64 {
            let a = ld(s.add(e - 16));
            let b = ld(s.add(e - 32));
            let c = ld(s.add(e - 48));
            let f = ld(s.add(e - 64));
            st(d.add(e - 16), a);
            st(d.add(e - 32), b);
            st(d.add(e - 48), c);
            st(d.add(e - 64), f);
            e -= 64;
        }
        if e > 16 {
            st(d.add(e - 16), ld(s.add(e - 16)));
            if e > 32 {
                st(d.add(e - 32), ld(s.add(e - 32)));
                if e > 48 {
                    st(d.add(e - 48), ld(s.add(e - 48)));
                }
            }
        }
        st(d, head);
    }

    #[target_feature(enable = "simd128")]
    unsafe fn mem_set(d: *mut u8, c: u8, n: usize) {
        if n < 16 {
            let w = u64::from_ne_bytes([c; 8]);
            if n >= 8 {
                wr(d as *mut u64, w);
                wr(d.add(n - 8) as *mut u64, w);
            } else if n >= 4 {
                wr(d as *mut u32, w as u32);
                wr(d.add(n - 4) as *mut u32, w as u32);
            } else if n > 0 {
                *d = c;
                *d.add(n / 2) = c;
                *d.add(n - 1) = c;
            }
            return;
        }
        let v = u8x16_splat(c);
        let mut i = 0;
        while i + 64 <= n {
            st(d.add(i), v);
            st(d.add(i + 16), v);
            st(d.add(i + 32), v);
            st(d.add(i + 48), v);
            i += 64;
        }
        if n - i > 16 {
            st(d.add(i), v);
            if n - i > 32 {
                st(d.add(i + 16), v);
                if n - i > 48 {
                    st(d.add(i + 32), v);
                }
            }
        }
        st(d.add(n - 16), v);
    }

    /// Index of the first byte where the n bytes at a and b differ, n when
    /// they are the same.
    #[target_feature(enable = "simd128")]
    unsafe fn first_difference(a: *const u8, b: *const u8, n: usize) -> usize {
        if n < 16 {
            if n >= 8 {
                let x = u64x2(rd(a as *const u64), rd(a.add(n - 8) as *const u64));
                let y = u64x2(rd(b as *const u64), rd(b.add(n - 8) as *const u64));
                let bits = !u8x16_bitmask(u8x16_eq(x, y)) as u32;
                if bits & 0xff != 0 {
                    return (bits & 0xff).trailing_zeros() as usize;
                }
                if bits & 0xff00 != 0 {
                    return n - 8 + ((bits >> 8) & 0xff).trailing_zeros() as usize;
                }
                return n;
            }
            if n >= 4 {
                let (a0, a1) = (rd(a as *const u32), rd(a.add(n - 4) as *const u32));
                let (b0, b1) = (rd(b as *const u32), rd(b.add(n - 4) as *const u32));
                let x = u32x4(a0, a1, a0, a1);
                let y = u32x4(b0, b1, b0, b1);
                let bits = !u8x16_bitmask(u8x16_eq(x, y)) as u32;
                if bits & 0xf != 0 {
                    return (bits & 0xf).trailing_zeros() as usize;
                }
                if bits & 0xf0 != 0 {
                    return n - 4 + ((bits >> 4) & 0xf).trailing_zeros() as usize;
                }
                return n;
            }
            if n > 0 && *a != *b {
                return 0;
            }
            if n > 1 && *a.add(1) != *b.add(1) {
                return 1;
            }
            if n > 2 && *a.add(2) != *b.add(2) {
                return 2;
            }
            return n;
        }
        let mut i = 0;
        while i + 16 <= n {
            let bits = !u8x16_bitmask(u8x16_eq(ld(a.add(i)), ld(b.add(i))));
            if bits != 0 {
                return i + bits.trailing_zeros() as usize;
            }
            i += 16;
        }
        if i < n {
            let bits = (!u8x16_bitmask(u8x16_eq(ld(a.add(n - 16)), ld(b.add(n - 16)))) as u32) >> (16 - (n - i));
            if bits != 0 {
                return i + bits.trailing_zeros() as usize;
            }
        }
        n
    }

    unsafe fn mem_compare(a: *const u8, b: *const u8, n: usize) -> i32 {
        let i = first_difference(a, b, n);
        if i == n {
            0
        } else {
            *a.add(i) as i32 - *b.add(i) as i32
        }
    }

    // The module's mem functions (the compiler's and the standard
    // library's copies and comparisons call these), replacing the
    // byte-at-a-time ones of compiler_builtins.

    #[no_mangle]
    pub unsafe extern "C" fn memcpy(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
        mem_move(d, s, n);
        d
    }

    #[no_mangle]
    pub unsafe extern "C" fn memmove(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
        mem_move(d, s, n);
        d
    }

    #[no_mangle]
    pub unsafe extern "C" fn memset(d: *mut u8, c: i32, n: usize) -> *mut u8 {
        mem_set(d, c as u8, n);
        d
    }

    // Two keys usually differ in their first byte.

    #[no_mangle]
    pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        if n == 0 {
            return 0;
        }
        if *a != *b {
            return *a as i32 - *b as i32;
        }
        mem_compare(a, b, n)
    }

    #[no_mangle]
    pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        if n == 0 {
            return 0;
        }
        if *a != *b {
            return 1;
        }
        mem_compare(a, b, n)
    }
}
