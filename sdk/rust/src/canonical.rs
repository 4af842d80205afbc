//! JSON held as its canonical encoding, made from the text directly.
//!
//! A verifier's verdict holds the output it checked, canonically encoded,
//! and most outputs are checked against an expected text that is the same
//! or encodes the same. Parsing such a text into a tree of maps, strings
//! and lists, comparing two trees and encoding them again costs an
//! allocation or more per value; writing the canonical encoding straight
//! from the text costs a pass over it, and two equal encodings are equal
//! values. The tree is made only where a comparison needs it (the
//! encodings differ: numbers within a tolerance, lists in any order, a
//! real difference).

use crate::json::{parse, parse_at, quote_bytes, SyntaxError, Value, MAX_DEPTH};

/// A JSON value held as its canonical encoding (keys sorted, a repeated key
/// the last time, no whitespace, strings escaped as encoding/json escapes
/// them, numbers as written): what `encode` writes for the value it
/// stands for. Only the SDK makes one, from valid JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Canonical(String);

impl Canonical {
    /// The canonical JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// The value as a tree (of the kinds parse gives).
    pub fn to_tree(&self) -> Value {
        // The text is valid JSON: it was made from some.
        parse(self.0.as_bytes()).unwrap_or(Value::Null)
    }
    /// The JSON type with its article, as type_name names it.
    pub(crate) fn type_name(&self) -> &'static str {
        match self.type_of() {
            "object" => "an object",
            "array" => "an array",
            "string" => "a string",
            "boolean" => "a boolean",
            "null" => "null",
            _ => "a number",
        }
    }
    /// The JSON type, as compare's messages name it.
    pub(crate) fn type_of(&self) -> &'static str {
        match self.0.as_bytes().first() {
            Some(b'{') => "object",
            Some(b'[') => "array",
            Some(b'"') => "string",
            Some(b't') | Some(b'f') => "boolean",
            Some(b'n') => "null",
            _ => "number",
        }
    }
}

/// Parses a JSON document as `parse_str` does, the value held as its
/// canonical encoding (`Value::Canonical`) rather than a tree: a value
/// that is checked against another and written into a verdict, not read
/// field by field. `compare_json` takes two such values as they are when
/// their encodings are the same, and reads them as trees otherwise.
/// Malformed text fails with parse_str's error.
pub fn parse_canonical(s: &str) -> Result<Value, SyntaxError> {
    if let Some(out) = canonical_text(s.as_bytes()) {
        // Only whole UTF-8 encodings were written: copies of the input's
        // text (a str) and quote_bytes's.
        return Ok(Value::Canonical(Canonical(unsafe { String::from_utf8_unchecked(out) })));
    }
    // Anything the quick pass does not take (malformed text, nesting too
    // deep) is parse's, with parse's message.
    crate::json::parse_str(s)
}

/// One member of an object being written: where its key is (in out, or
/// in keys when the key's text is not its bytes) and where the member is
/// in out, its comma left out.
#[derive(Clone, Copy)]
struct Member {
    key: (usize, usize),
    /// The key's first eight bytes, big-endian (zeros after a shorter
    /// key): most keys are ordered by it alone.
    prefix: u64,
    aux: bool,
    start: usize,
    end: usize,
}

// Most tokens of a JSON text are a few bytes long, and a WebAssembly
// engine's call costs more than scanning them: the scan of a string and
// the copy of a token are inline, on words of eight bytes.

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/// High bit set in each byte of x that is zero, exactly.
#[inline(always)]
fn zeros(x: u64) -> u64 {
    !(((x & !HIGHS) + !HIGHS) | x) & HIGHS
}

/// Index of the first byte at or after i that is '"', '\\', a control
/// character, '<', '>', '&' or not ASCII: the end of a plain string's run
/// that encoding/json writes as it is; s.len() when there is none.
#[inline]
fn plain_end(s: &[u8], mut i: usize) -> usize {
    // Most strings end in their first word, read before any loop (see
    // digits).
    if i + 8 <= s.len() {
        let m = quote_special(s, i);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
        while i + 8 <= s.len() {
            let m = quote_special(s, i);
            if m != 0 {
                return i + (m.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
    }
    while i < s.len() {
        match s[i] {
            b'"' | b'\\' | b'<' | b'>' | b'&' | 0..=0x1f | 0x80..=0xff => return i,
            _ => i += 1,
        }
    }
    i
}

/// The high bit set in each byte of the word at s[i] that plain_end stops
/// at (the lowest mark is exact); s[i..i + 8] must be in bounds.
#[inline(always)]
fn quote_special(s: &[u8], i: usize) -> u64 {
    let x = u64::from_le(unsafe { (s.as_ptr().add(i) as *const u64).read_unaligned() });
    // Below 0x20: adding 0x60 to the low seven bits leaves the high bit
    // clear, and the high bit is clear.
    zeros(x ^ (ONES * b'"' as u64))
        | zeros(x ^ (ONES * b'\\' as u64))
        | zeros(x ^ (ONES * b'<' as u64))
        | zeros(x ^ (ONES * b'>' as u64))
        | zeros(x ^ (ONES * b'&' as u64))
        | (!((x & !HIGHS) + 0x6060606060606060) & !x & HIGHS)
        | (x & HIGHS)
}

/// Copies s, at most 16 bytes, to d: two overlapping words cover 8 to 16
/// bytes, two half words 4 to 8, two quarter words 2 to 4, with no loop
/// (see digits).
#[inline(always)]
unsafe fn put_short(d: *mut u8, s: &[u8]) {
    let n = s.len();
    let p = s.as_ptr();
    if n >= 8 {
        (d as *mut u64).write_unaligned((p as *const u64).read_unaligned());
        (d.add(n - 8) as *mut u64).write_unaligned((p.add(n - 8) as *const u64).read_unaligned());
    } else if n >= 4 {
        (d as *mut u32).write_unaligned((p as *const u32).read_unaligned());
        (d.add(n - 4) as *mut u32).write_unaligned((p.add(n - 4) as *const u32).read_unaligned());
    } else if n >= 2 {
        (d as *mut u16).write_unaligned((p as *const u16).read_unaligned());
        (d.add(n - 2) as *mut u16).write_unaligned((p.add(n - 2) as *const u16).read_unaligned());
    } else if n == 1 {
        *d = *p;
    }
}

/// The canonical text being written: a Vec<u8> taken apart into its
/// pointer, length and capacity, which the pass keeps in locals. A Vec
/// that is pushed to gives its address to the function that grows it, so
/// it lives in memory; under an engine that checks the bounds of every
/// access to memory (wazero), each push then cost checked loads of its
/// pointer, length and capacity and a checked store of its length. Only
/// growing and dropping leave these locals, by value.
struct Out {
    ptr: *mut u8,
    len: usize,
    cap: usize,
}

impl Out {
    fn with_capacity(n: usize) -> Out {
        let (ptr, cap) = grow_out(core::ptr::NonNull::dangling().as_ptr(), 0, 0, n);
        Out { ptr, len: 0, cap }
    }
    /// Makes room for n more bytes.
    #[inline(always)]
    fn room(&mut self, n: usize) {
        if self.cap - self.len < n {
            let (ptr, cap) = grow_out(self.ptr, self.len, self.cap, n);
            self.ptr = ptr;
            self.cap = cap;
        }
    }
    #[inline(always)]
    fn push(&mut self, b: u8) {
        self.room(1);
        // In bounds: room.
        unsafe { *self.ptr.add(self.len) = b };
        self.len += 1;
    }
    /// Appends s; a short s with stores inline.
    #[inline(always)]
    fn put(&mut self, s: &[u8]) {
        let n = s.len();
        self.room(n);
        // In bounds: room.
        unsafe {
            if n > 16 {
                crate::bytes::copy_to(self.ptr.add(self.len), s);
            } else {
                put_short(self.ptr.add(self.len), s);
            }
        }
        self.len += n;
    }
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
    #[inline(always)]
    fn bytes_mut(&mut self) -> &mut [u8] {
        unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
    fn into_vec(self) -> Vec<u8> {
        let o = core::mem::ManuallyDrop::new(self);
        unsafe { Vec::from_raw_parts(o.ptr, o.len, o.cap) }
    }
}

impl Drop for Out {
    #[inline(always)]
    fn drop(&mut self) {
        free_out(self.ptr, self.len, self.cap)
    }
}

/// Out's growth: the Vec its parts make, with room for n more bytes,
/// taken apart again.
#[cold]
#[inline(never)]
fn grow_out(ptr: *mut u8, len: usize, cap: usize, n: usize) -> (*mut u8, usize) {
    let mut v = unsafe { Vec::from_raw_parts(ptr, len, cap) };
    crate::bytes::reserve(&mut v, n);
    let mut v = core::mem::ManuallyDrop::new(v);
    (v.as_mut_ptr(), v.capacity())
}

#[inline(never)]
fn free_out(ptr: *mut u8, len: usize, cap: usize) {
    drop(unsafe { Vec::from_raw_parts(ptr, len, cap) })
}

/// A key's first eight bytes as a big-endian number, zeros after a
/// shorter key: a key ordered before another has a prefix no greater.
#[inline]
fn prefix(k: &[u8]) -> u64 {
    if k.len() >= 8 {
        // In bounds: k has eight bytes or more.
        return u64::from_be(unsafe { (k.as_ptr() as *const u64).read_unaligned() });
    }
    let mut p = 0u64;
    for (i, &c) in k.iter().enumerate() {
        p |= (c as u64) << (56 - 8 * i);
    }
    p
}

/// prefix of the key whose n bytes are data[at..at + n]: a word read and
/// masked where data has eight bytes from at, rather than a byte at a
/// time (each a checked load under wazero).
#[inline(always)]
fn prefix_at(data: &[u8], at: usize, n: usize) -> u64 {
    if at + 8 > data.len() {
        return prefix(&data[at..at + n]);
    }
    // In bounds: data has eight bytes from at.
    let w = u64::from_le(unsafe { (data.as_ptr().add(at) as *const u64).read_unaligned() });
    let w = if n >= 8 { w } else { w & ((1u64 << (8 * n)) - 1) };
    w.swap_bytes()
}

/// An object or a list being written.
#[derive(Clone, Copy)]
struct Open {
    object: bool,
    /// Where its opening bracket is in out.
    at: usize,
    /// Its first member in members and its first key's place in keys.
    members: usize,
    keys: usize,
    /// Whether every key so far is greater than the one before (a
    /// repeated key is not).
    ordered: bool,
}

/// The pass: the input is validated as parse validates it and its
/// canonical encoding written as it goes; an object's members are put in
/// key order (and a repeated key's earlier members dropped) when it ends,
/// only if they were not in order already. None for anything parse would
/// refuse. It is one loop with the open objects and lists on a stack of
/// its own, not a recursion, so that the position and the output stay in
/// locals (a WebAssembly engine keeps a call's state in memory).
fn canonical_text(data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Out::with_capacity(data.len() + 2);
    let mut members: Vec<Member> = Vec::new();
    // Keys whose bytes differ from their encoding (escapes), unescaped.
    let mut keys: Vec<u8> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut scratch = Scratch { order: Vec::new(), text: Vec::new(), last: Vec::new() };
    let mut pos = skip(data, 0);
    'value: loop {
        // A value starts at pos.
        let c = *data.get(pos)?;
        match c {
            b'"' => pos = string(data, pos, &mut out)?.0,
            b'-' | b'0'..=b'9' => pos = number(data, pos, &mut out)?,
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                let close = c + 2; // '}' and ']'
                out.push(c);
                pos = skip(data, pos + 1);
                if data.get(pos) == Some(&close) {
                    out.push(close);
                    pos += 1;
                } else {
                    let object = c == b'{';
                    stack.push(Open { object, at: out.len - 1, members: members.len(), keys: keys.len(), ordered: true });
                    if object {
                        pos = key(data, pos, &mut out, &mut members, &mut keys, stack.last_mut()?)?;
                    }
                    continue 'value;
                }
            }
            b't' => pos = literal(data, pos, b"true", &mut out)?,
            b'f' => pos = literal(data, pos, b"false", &mut out)?,
            b'n' => pos = literal(data, pos, b"null", &mut out)?,
            _ => return None,
        }
        // A value ended: what follows it, and the objects and lists that
        // end there. Most often a comma and the next value in the same
        // object or list, taken before any loop (see digits).
        pos = skip(data, pos);
        if let Some(top) = stack.last_mut() {
            if data.get(pos) == Some(&b',') {
                if top.object {
                    let end = out.len;
                    members.last_mut()?.end = end;
                }
                out.push(b',');
                pos = skip(data, pos + 1);
                if top.object {
                    pos = key(data, pos, &mut out, &mut members, &mut keys, top)?;
                }
                continue 'value;
            }
        }
        loop {
            pos = skip(data, pos);
            let top = match stack.last_mut() {
                Some(top) => top,
                None => return if pos == data.len() { Some(out.into_vec()) } else { None },
            };
            if top.object {
                let end = out.len;
                members.last_mut()?.end = end;
            }
            match *data.get(pos)? {
                b',' => {
                    out.push(b',');
                    pos = skip(data, pos + 1);
                    if top.object {
                        pos = key(data, pos, &mut out, &mut members, &mut keys, top)?;
                    }
                    continue 'value;
                }
                b'}' if top.object => {
                    let o = *top;
                    stack.pop();
                    if !o.ordered {
                        out.len = reorder(out.bytes_mut(), &members[o.members..], &keys, o.at, &mut scratch);
                    }
                    out.push(b'}');
                    members.truncate(o.members);
                    keys.truncate(o.keys);
                    pos += 1;
                }
                b']' if !top.object => {
                    stack.pop();
                    out.push(b']');
                    pos += 1;
                }
                _ => return None,
            }
        }
    }
}

/// Past JSON whitespace from i.
#[inline(always)]
fn skip(data: &[u8], i: usize) -> usize {
    match data.get(i) {
        Some(&c) if c <= b' ' => crate::bytes::space_end(data, i),
        _ => i,
    }
}

#[inline(always)]
fn literal(data: &[u8], pos: usize, word: &[u8], out: &mut Out) -> Option<usize> {
    if data.len() - pos >= word.len() && &data[pos..pos + word.len()] == word {
        out.put(word);
        return Some(pos + word.len());
    }
    None
}

/// Past a run of digits from i: a word of eight bytes at a time. Most runs
/// end in the first word, which is read before any loop: a host that
/// checks for termination at every loop (wasmeval in process) charges for
/// entering one, however soon it ends.
#[inline(always)]
fn digits(data: &[u8], mut i: usize) -> usize {
    if i + 8 <= data.len() {
        let m = non_digits(data, i);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
        while i + 8 <= data.len() {
            let m = non_digits(data, i);
            if m != 0 {
                return i + (m.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
    }
    while i < data.len() && data[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// The high bit set in each byte of the word at data[i] that is not a
/// digit (the lowest mark is exact); data[i..i + 8] must be in bounds.
#[inline(always)]
fn non_digits(data: &[u8], i: usize) -> u64 {
    let w = u64::from_le(unsafe { (data.as_ptr().add(i) as *const u64).read_unaligned() });
    // A byte minus '0' is a digit's value below 10; adding 0x76 sets the
    // high bit of any other.
    let x = w.wrapping_sub(ONES * b'0' as u64);
    (x.wrapping_add(ONES * 0x76) | x) & HIGHS
}

/// A number, written as it is.
#[inline(always)]
fn number(data: &[u8], start: usize, out: &mut Out) -> Option<usize> {
    let mut pos = start;
    if data.get(pos) == Some(&b'-') {
        pos += 1;
    }
    if data.get(pos) == Some(&b'0') {
        pos += 1;
    } else {
        let end = digits(data, pos);
        if end == pos {
            return None;
        }
        pos = end;
    }
    if data.get(pos) == Some(&b'.') {
        let end = digits(data, pos + 1);
        if end == pos + 1 {
            return None;
        }
        pos = end;
    }
    if let Some(b'e') | Some(b'E') = data.get(pos) {
        pos += 1;
        if let Some(b'+') | Some(b'-') = data.get(pos) {
            pos += 1;
        }
        let end = digits(data, pos);
        if end == pos {
            return None;
        }
        pos = end;
    }
    out.put(&data[start..pos]);
    Some(pos)
}

/// A string at data[start], written encoded, and the offset past it; with
/// None when its encoding is its text as it was (its bytes are then the
/// encoding's, between the quotes), its value when it was unescaped and
/// quoted again.
#[inline(always)]
fn string(data: &[u8], start: usize, out: &mut Out) -> Option<(usize, Option<String>)> {
    let mut i = plain_end(data, start + 1);
    if data.get(i) == Some(&b'"') {
        // No escape and nothing encoding/json escapes, the usual case,
        // taken before any loop (see digits): the text is its encoding.
        out.put(&data[start..i + 1]);
        return Some((i + 1, None));
    }
    loop {
        if i < data.len() && data[i] >= 0x80 {
            // Text beyond ASCII: the SDK's scan, a block at a time.
            i = crate::bytes::quote_stop(data, i);
        }
        match data.get(i) {
            Some(b'"') => {
                // No escape and nothing encoding/json escapes: the text
                // is its encoding.
                out.put(&data[start..i + 1]);
                return Some((i + 1, None));
            }
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9; other
            // characters starting with E2 are written as they are.
            Some(0xE2) if !(i + 2 < data.len() && data[i + 1] == 0x80 && (data[i + 2] == 0xA8 || data[i + 2] == 0xA9)) => {
                i = crate::bytes::quote_stop(data, i + 1)
            }
            _ => {
                let (end, v, encoded) = quoted_again(data, start)?;
                out.put(&encoded);
                return Some((end, Some(v)));
            }
        }
    }
}

/// string's work for a string with escapes, or characters encoding/json
/// writes escaped: its value, quoted again.
#[inline(never)]
fn quoted_again(data: &[u8], start: usize) -> Option<(usize, String, Vec<u8>)> {
    let (v, end) = parse_at(data, start).ok()?;
    match v {
        Value::String(s) => {
            let mut encoded = Vec::new();
            quote_bytes(s.as_bytes(), &mut encoded);
            Some((end, s, encoded))
        }
        _ => None,
    }
}

/// The key of an object's member at pos, written with its colon; the
/// member is started in members (its end is set when its value ends) and
/// its key's order against the one before noted in o. Returns the offset
/// of the member's value.
#[inline(always)]
fn key(data: &[u8], pos: usize, out: &mut Out, members: &mut Vec<Member>, keys: &mut Vec<u8>, o: &mut Open) -> Option<usize> {
    if data.get(pos) != Some(&b'"') {
        return None;
    }
    let start = out.len;
    let (end, unescaped) = string(data, pos, out)?;
    let m = match unescaped {
        None => {
            let k = (start + 1, out.len - 1);
            Member { key: k, prefix: prefix_at(data, pos + 1, k.1 - k.0), aux: false, start, end: 0 }
        }
        Some(k) => {
            let at = keys.len();
            crate::bytes::extend(keys, k.as_bytes());
            Member { key: (at, keys.len()), prefix: prefix(k.as_bytes()), aux: true, start, end: 0 }
        }
    };
    if o.ordered && members.len() > o.members && order_of(out.bytes(), keys, &members[members.len() - 1], &m).is_ge() {
        o.ordered = false;
    }
    members.push(m);
    let pos = skip(data, end);
    if data.get(pos) != Some(&b':') {
        return None;
    }
    out.push(b':');
    Some(skip(data, pos + 1))
}

/// The bytes of a member's key.
#[inline]
fn key_of<'k>(out: &'k [u8], keys: &'k [u8], m: &Member) -> &'k [u8] {
    if m.aux {
        &keys[m.key.0..m.key.1]
    } else {
        &out[m.key.0..m.key.1]
    }
}

/// How two members' keys are ordered.
#[inline(always)]
fn order_of(out: &[u8], keys: &[u8], a: &Member, b: &Member) -> core::cmp::Ordering {
    match a.prefix.cmp(&b.prefix) {
        core::cmp::Ordering::Equal => key_of(out, keys, a).cmp(key_of(out, keys, b)),
        o => o,
    }
}

/// Buffers of reorder, kept for the pass.
struct Scratch {
    order: Vec<usize>,
    text: Vec<u8>,
    /// The keys of the last object reordered, as (prefix, length), when
    /// each is at most eight bytes long (so that the pair is the key) and
    /// none repeats; order is then that object's order. The objects of a
    /// list of records most often have the same keys in the same order.
    last: Vec<(u64, usize)>,
}

/// The length of a member's key.
#[inline(always)]
fn key_len(m: &Member) -> usize {
    m.key.1 - m.key.0
}

/// Rewrites the members of the object opened at out[open] in key order,
/// each repeated key's last member only: the object a map makes of them,
/// inserted in turn.
#[inline(never)]
fn reorder(out: &mut [u8], members: &[Member], keys: &[u8], open: usize, s: &mut Scratch) -> usize {
    let order = &mut s.order;
    // The same keys as the object before, in the same order: the same
    // order, and no key repeats. No comparison of keys is made.
    let same = members.len() == s.last.len() && members.iter().zip(s.last.iter()).all(|(m, &(p, n))| m.prefix == p && key_len(m) == n);
    let mut unique = same;
    if !same {
        order.clear();
        // Stable: members with the same key stay in their order, the last
        // one last. An object has a few members, most often: an
        // insertion sort, each member put in place as it is taken, with no
        // loop entered for one that goes last (see digits).
        if members.len() <= 16 {
            for x in 0..members.len() {
                let mut j = order.len();
                order.push(x);
                if j > 0 && order_of(out, keys, &members[order[j - 1]], &members[x]).is_gt() {
                    while j > 0 && order_of(out, keys, &members[order[j - 1]], &members[x]).is_gt() {
                        order[j] = order[j - 1];
                        j -= 1;
                    }
                    order[j] = x;
                }
            }
        } else {
            order.extend(0..members.len());
            order.sort_by(|&a, &b| order_of(out, keys, &members[a], &members[b]));
        }
        unique = (1..order.len()).all(|n| !order_of(out, keys, &members[order[n - 1]], &members[order[n]]).is_eq());
        s.last.clear();
        if unique && members.iter().all(|m| key_len(m) <= 8) {
            s.last.extend(members.iter().map(|m| (m.prefix, key_len(m))));
        }
    }
    // The members in order, with commas between them, are no longer than
    // the object's text after its brace (a repeated key's earlier members
    // are dropped): written into text there, through a pointer held in a
    // local (see Out), then back over the object.
    let room = out.len() - open - 1;
    let text = &mut s.text;
    text.clear();
    crate::bytes::reserve(text, room);
    let t = text.as_mut_ptr();
    let mut w = 0;
    for (n, &i) in order.iter().enumerate() {
        if !unique && n + 1 < order.len() && order_of(out, keys, &members[i], &members[order[n + 1]]).is_eq() {
            continue;
        }
        let m = members[i];
        let src = &out[m.start..m.end];
        let comma = (w > 0) as usize;
        assert!(w + comma + src.len() <= room);
        // In bounds: text has room for the object's text, which holds
        // each member and a comma before each but the first.
        unsafe {
            if comma == 1 {
                *t.add(w) = b',';
                w += 1;
            }
            if src.len() <= 16 {
                put_short(t.add(w), src);
            } else {
                crate::bytes::copy_to(t.add(w), src);
            }
        }
        w += src.len();
    }
    assert!(w <= room);
    unsafe { crate::bytes::copy_to(out.as_mut_ptr().add(open + 1), core::slice::from_raw_parts(t, w)) };
    open + 1 + w
}
