//! The shared JSON model: parse, canonical encoding, float formatting.

use std::collections::BTreeMap;
use std::fmt;

/// An object: keys in byte order, which is the canonical output order.
pub type Map = BTreeMap<String, Value>;

/// A JSON value. `Number` holds a number's literal text exactly as written
/// (integers beyond 2^53 survive); `Float` is a number the plugin computed,
/// written the way Go's encoding/json writes a float64. `Canonical` is a
/// value held as its canonical encoding (`parse_canonical`), to be
/// compared and written rather than read: the accessors (`get`,
/// `as_object`, …) see nothing in it; `Canonical::to_tree` gives the tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(String),
    Float(f64),
    String(String),
    Array(Vec<Value>),
    Object(Map),
    Canonical(crate::canonical::Canonical),
}

impl Default for Value {
    fn default() -> Self {
        Value::Null
    }
}

impl Value {
    /// The value as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.parse::<f64>().ok(),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }
    /// The value as a bool, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The value as an object, if it is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    /// The value as an array, if it is one.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    /// Field k of an object (Null when absent or not an object).
    pub fn get(&self, k: &str) -> &Value {
        match self {
            Value::Object(m) => m.get(k).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    /// An integer value.
    pub fn int(i: i64) -> Value {
        let mut out = Vec::new();
        write_int(i, &mut out);
        // Digits and a sign are ASCII.
        Value::Number(unsafe { String::from_utf8_unchecked(out) })
    }
    /// Encodes the value canonically.
    pub fn to_json(&self) -> Result<String, String> {
        let mut out = String::new();
        encode(self, &mut out)?;
        Ok(out)
    }
}

pub(crate) static NULL: Value = Value::Null;

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Object(m)
    }
}
impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Value {
        Value::Array(a)
    }
}

/// Builds an object from key/value pairs.
pub fn object(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// Nesting deeper than this is refused, so hostile input cannot exhaust
/// the stack.
pub const MAX_DEPTH: usize = 1000;

/// Malformed JSON: what was wrong and at which byte.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub offset: usize,
    pub reason: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.reason)
    }
}

/// Parses one JSON document (surrounding whitespace allowed, nothing after).
pub fn parse(data: &[u8]) -> Result<Value, SyntaxError> {
    check_utf8(data)?;
    let mut p = Parser::new(data, 0);
    p.skip();
    let v = p.value(0);
    p.skip();
    match v {
        Some(v) if p.pos >= data.len() => Ok(v),
        Some(_) => Err(p.fail("unexpected data after the value")),
        None => Err(p.error()),
    }
}

/// Parses an input envelope: a JSON document in which a string value may
/// also be a raw string (docs/plugin-abi.md, "Raw strings"): `'`, the
/// byte length in decimal, `:`, and that many bytes of UTF-8, taken as
/// they are. The host writes a long string so when describe says
/// raw_strings, sparing both sides escaping it. Nothing that is JSON
/// parses differently.
pub(crate) fn parse_input(data: &[u8]) -> Result<Value, SyntaxError> {
    check_utf8(data)?;
    let mut p = Parser::new(data, 0);
    p.raw = true;
    p.skip();
    let v = p.value(0);
    p.skip();
    match v {
        Some(v) if p.pos >= data.len() => Ok(v),
        Some(_) => Err(p.fail("unexpected data after the value")),
        None => Err(p.error()),
    }
}

/// A member of an object read by parse_members: a value as parse_input
/// parses it, or an object's own members.
pub(crate) enum Member<'a> {
    Value(Value),
    Object(Members<'a>),
}

/// An object's members in the order they first came, keyed by their
/// text, a repeated key's last value kept: what a Map of them holds, with
/// no map built and no key copied.
pub(crate) type Members<'a> = Vec<(&'a str, Member<'a>)>;

/// Parses an input envelope (parse_input) whose document is an object,
/// as its members; a member whose key nested names and whose value is an
/// object is read as members too. None for anything else — a document
/// that is not an object, a key with an escape, malformed text — which
/// the caller then parses whole (parse_input), with its message. A
/// decoder takes a handful of fields out of the envelope and the objects
/// in it: building a map of each, with a copy of every key, and dropping
/// what was left cost more than taking the fields.
pub(crate) fn parse_members<'a>(data: &'a [u8], nested: &dyn Fn(&str) -> bool) -> Option<Members<'a>> {
    check_utf8(data).ok()?;
    let (m, end) = parse_members_at(data, crate::bytes::space_end(data, 0), nested)?;
    if crate::bytes::space_end(data, end) != data.len() {
        return None;
    }
    Some(m)
}

/// parse_members for the object at data[start] (as parse_at parses the
/// value there; data must be UTF-8), with the offset just past it.
pub(crate) fn parse_members_at<'a>(data: &'a [u8], start: usize, nested: &dyn Fn(&str) -> bool) -> Option<(Members<'a>, usize)> {
    let mut p = Parser::new(data, start);
    p.raw = true;
    let m = p.members(0, nested)?;
    Some((m, p.pos))
}

/// Where the raw string at data[at] (its `'`) ends, with its bytes' start;
/// None when it is not one: a length without leading zeros, `:`, and that
/// many bytes ending at a character's boundary. data must be UTF-8.
pub(crate) fn raw_string_at(data: &[u8], at: usize) -> Option<(usize, usize)> {
    let mut i = at + 1;
    let mut n: usize = 0;
    while i < data.len() && data[i].is_ascii_digit() {
        if (i > at + 1 && n == 0) || i - at > 9 {
            return None; // a leading zero, or more digits than any length
        }
        n = n * 10 + (data[i] - b'0') as usize;
        i += 1;
    }
    if i == at + 1 || data.get(i) != Some(&b':') {
        return None;
    }
    let start = i + 1;
    if n > data.len() - start {
        return None;
    }
    let end = start + n;
    // The bytes are UTF-8 (all of data is) and start after an ASCII ':';
    // they are whole characters when they do not end inside one.
    if end < data.len() && data[end] & 0xc0 == 0x80 {
        return None;
    }
    Some((start, end))
}

/// Parses the value that starts at data[start] (no whitespace before it)
/// and returns it with the offset just past it; whatever follows is left
/// to the caller. data must be UTF-8 (check_utf8) and is an input
/// envelope's: a string value may be raw (parse_input). Offsets in errors
/// are data's.
pub(crate) fn parse_at(data: &[u8], start: usize) -> Result<(Value, usize), SyntaxError> {
    let mut p = Parser::new(data, start);
    p.raw = true;
    match p.value(0) {
        Some(v) => Ok((v, p.pos)),
        None => Err(p.error()),
    }
}

/// Fails as parse does on data that is not UTF-8.
pub(crate) fn check_utf8(data: &[u8]) -> Result<(), SyntaxError> {
    let ascii = crate::bytes::ascii_len(data);
    if ascii < data.len() {
        if let Err(e) = std::str::from_utf8(&data[ascii..]) {
            return Err(SyntaxError { offset: ascii + e.valid_up_to(), reason: "invalid UTF-8".to_string() });
        }
    }
    Ok(())
}

/// Parses a JSON document held in a string.
pub fn parse_str(s: &str) -> Result<Value, SyntaxError> {
    parse(s.as_bytes())
}

/// The parser. Strings are found and copied a block of bytes at a time;
/// an array's elements are gathered on a stack shared by the whole
/// document and the array made once, at its size, from its part of it.
/// A failure is kept in err and its steps return None.
struct Parser<'a> {
    data: &'a [u8],
    pos: usize,
    err: Option<SyntaxError>,
    /// A string with escapes, unescaped.
    buf: Vec<u8>,
    /// The elements of the arrays being parsed, innermost last.
    values: Vec<Value>,
    /// The last long string with escapes: its text (quotes included,
    /// where in data) and its value. A verify input holds a passing
    /// case's output twice, as the actual and the expected one, and a
    /// JSON output held in JSON has an escape every few bytes.
    last: (usize, usize),
    last_value: String,
    /// Raw strings are taken (parse_input).
    raw: bool,
}

/// Strings with escapes at least this long (their text) are remembered.
const REMEMBER: usize = 256;

impl<'a> Parser<'a> {
    fn new(data: &'a [u8], pos: usize) -> Parser<'a> {
        Parser { data, pos, err: None, buf: Vec::new(), values: Vec::new(), last: (0, 0), last_value: String::new(), raw: false }
    }
    fn error(&mut self) -> SyntaxError {
        self.err.take().unwrap_or_else(|| SyntaxError { offset: self.pos, reason: "invalid JSON".to_string() })
    }
    #[inline]
    fn skip(&mut self) {
        if let Some(&c) = self.data.get(self.pos) {
            if c <= b' ' {
                self.pos = crate::bytes::space_end(self.data, self.pos);
            }
        }
    }
    fn fail(&self, reason: &str) -> SyntaxError {
        SyntaxError { offset: self.pos, reason: reason.to_string() }
    }
    /// Fails with reason at offset.
    #[cold]
    #[inline(never)]
    fn fail_at<T>(&mut self, offset: usize, reason: &str) -> Option<T> {
        self.err = Some(SyntaxError { offset, reason: reason.to_string() });
        None
    }
    /// Fails at the byte where the parser is.
    #[cold]
    #[inline(never)]
    fn unexpected<T>(&mut self) -> Option<T> {
        let e = if self.pos >= self.data.len() {
            self.fail("unexpected end of input")
        } else {
            self.fail(&format!("unexpected byte 0x{:02x}", self.data[self.pos]))
        };
        self.err = Some(e);
        None
    }
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }
    fn literal(&mut self, word: &[u8], v: Value) -> Option<Value> {
        if self.data.len() - self.pos >= word.len() && &self.data[self.pos..self.pos + word.len()] == word {
            self.pos += word.len();
            return Some(v);
        }
        for &c in word {
            if self.peek() != Some(c) {
                return self.unexpected();
            }
            self.pos += 1;
        }
        Some(v)
    }
    fn value(&mut self, depth: usize) -> Option<Value> {
        let c = match self.peek() {
            Some(c) => c,
            None => return self.unexpected(),
        };
        match c {
            b'"' => Some(Value::String(self.string()?)),
            b'-' | b'0'..=b'9' => self.number(),
            b'{' | b'[' if depth >= MAX_DEPTH => self.fail_at(self.pos, "nesting deeper than 1000"),
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b't' => self.literal(b"true", Value::Bool(true)),
            b'f' => self.literal(b"false", Value::Bool(false)),
            b'n' => self.literal(b"null", Value::Null),
            b'\'' if self.raw => match raw_string_at(self.data, self.pos) {
                Some((start, end)) => {
                    self.pos = end;
                    Some(Value::String(crate::bytes::string_of(&self.data[start..end])))
                }
                None => self.fail_at(self.pos, "invalid raw string"),
            },
            _ => self.unexpected(),
        }
    }
    /// The object at pos, at depth, as members (parse_members); None,
    /// with no error kept, where the caller parses it whole instead.
    fn members(&mut self, depth: usize, nested: &dyn Fn(&str) -> bool) -> Option<Members<'a>> {
        if self.peek() != Some(b'{') || depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip();
        let mut m: Members<'a> = Vec::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Some(m);
        }
        let data = self.data;
        loop {
            self.skip();
            if self.peek() != Some(b'"') {
                return None;
            }
            let start = self.pos + 1;
            let stop = crate::bytes::string_stop(data, start);
            if stop >= data.len() || data[stop] != b'"' {
                return None; // an escape, or no end
            }
            // Valid: the input is UTF-8 and '"' is ASCII.
            let key = unsafe { std::str::from_utf8_unchecked(&data[start..stop]) };
            self.pos = stop + 1;
            self.skip();
            if self.peek() != Some(b':') {
                return None;
            }
            self.pos += 1;
            self.skip();
            let v = if self.peek() == Some(b'{') && nested(key) {
                Member::Object(self.members(depth + 1, &|_| false)?)
            } else {
                Member::Value(self.value(depth + 1)?)
            };
            match m.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = v,
                None => m.push((key, v)),
            }
            self.skip();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Some(m);
                }
                _ => return None,
            }
        }
    }
    fn object(&mut self, depth: usize) -> Option<Value> {
        self.pos += 1;
        self.skip();
        let mut m = Map::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Some(Value::Object(m));
        }
        // Four members a loop iteration. Inserted as they come, a repeated
        // key counts the last time.
        loop {
            if self.member(depth, &mut m)? {
                break;
            }
            if self.member(depth, &mut m)? {
                break;
            }
            if self.member(depth, &mut m)? {
                break;
            }
            if self.member(depth, &mut m)? {
                break;
            }
        }
        Some(Value::Object(m))
    }
    /// One member of an object and the comma or brace after it; true at
    /// the object's end.
    #[inline]
    fn member(&mut self, depth: usize, m: &mut Map) -> Option<bool> {
        self.skip();
        if self.peek() != Some(b'"') {
            return self.unexpected();
        }
        let k = self.string()?;
        self.skip();
        if self.peek() != Some(b':') {
            return self.unexpected();
        }
        self.pos += 1;
        self.skip();
        let v = self.value(depth + 1)?;
        m.insert(k, v);
        self.after(b'}')
    }
    /// Past the comma or the closing bracket after a member or an
    /// element; true at the closing bracket.
    #[inline]
    fn after(&mut self, close: u8) -> Option<bool> {
        self.skip();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Some(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Some(true)
            }
            _ => self.unexpected(),
        }
    }
    fn array(&mut self, depth: usize) -> Option<Value> {
        self.pos += 1;
        self.skip();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Some(Value::Array(Vec::new()));
        }
        let base = self.values.len();
        // Four elements a loop iteration.
        loop {
            if self.element(depth)? {
                break;
            }
            if self.element(depth)? {
                break;
            }
            if self.element(depth)? {
                break;
            }
            if self.element(depth)? {
                break;
            }
        }
        let n = self.values.len() - base;
        // The elements move out of the stack into the array; the stack
        // forgets them.
        let a = unsafe {
            let v = crate::bytes::vec_from_raw(self.values.as_ptr().add(base), n);
            self.values.set_len(base);
            v
        };
        Some(Value::Array(a))
    }
    /// One element of an array and the comma or bracket after it; true at
    /// the array's end.
    #[inline]
    fn element(&mut self, depth: usize) -> Option<bool> {
        self.skip();
        let v = self.value(depth + 1)?;
        self.values.push(v);
        self.after(b']')
    }
    /// Past a run of digits; false when there is none.
    #[inline]
    fn digits(&mut self) -> bool {
        let end = crate::bytes::digits_end(self.data, self.pos);
        let some = end > self.pos;
        self.pos = end;
        some
    }
    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if !self.digits() {
            return self.fail_at(start, "invalid number");
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !self.digits() {
                return self.fail_at(start, "invalid number");
            }
        }
        if let Some(b'e') | Some(b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+') | Some(b'-') = self.peek() {
                self.pos += 1;
            }
            if !self.digits() {
                return self.fail_at(start, "invalid number");
            }
        }
        // A number is ASCII.
        Some(Value::Number(crate::bytes::string_of(&self.data[start..self.pos])))
    }
    fn hex4(&self, at: usize) -> Option<u32> {
        if at + 4 > self.data.len() {
            return None;
        }
        let mut r = 0u32;
        for &c in &self.data[at..at + 4] {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => return None,
            };
            r = r << 4 | d as u32;
        }
        Some(r)
    }
    /// A string; a lone surrogate escape becomes U+FFFD (as in Go).
    #[inline]
    fn string(&mut self) -> Option<String> {
        let start = self.pos + 1;
        let stop = crate::bytes::string_stop(self.data, start);
        if stop < self.data.len() && self.data[stop] == b'"' {
            self.pos = stop + 1;
            // Valid: the input is UTF-8 and '"' is ASCII.
            return Some(crate::bytes::string_of(&self.data[start..stop]));
        }
        self.escaped(start, stop)
    }
    /// The rest of a string that does not end at stop, its first byte
    /// that is not plain: from start, unescaped into buf.
    #[inline(never)]
    fn escaped(&mut self, start: usize, stop: usize) -> Option<String> {
        let (ls, le) = self.last;
        let quote = start - 1;
        if le > ls && self.data.len() - quote >= le - ls && self.data[quote..quote + (le - ls)] == self.data[ls..le] {
            // The text of the string remembered comes again: a string
            // ends at its first unescaped quote, so this is the same
            // string, with the same value.
            self.pos = quote + (le - ls);
            return Some(self.last_value.clone());
        }
        let r = self.unescaped(start, stop);
        if let Some(v) = &r {
            if self.pos - quote >= REMEMBER {
                self.last = (quote, self.pos);
                self.last_value.clear();
                self.last_value.push_str(v);
            }
        }
        r
    }
    /// escaped's work when the string is not the one remembered.
    #[inline]
    fn unescaped(&mut self, start: usize, stop: usize) -> Option<String> {
        let mut buf = core::mem::take(&mut self.buf);
        buf.clear();
        crate::bytes::extend(&mut buf, &self.data[start..stop]);
        self.pos = stop;
        let r = loop {
            self.pos = crate::bytes::unescape(self.data, self.pos, &mut buf);
            if let Some(r) = self.escape(&mut buf) {
                break r;
            }
        };
        // Valid: the input is UTF-8 and escapes add whole characters.
        let r = r.map(|()| unsafe { String::from_utf8_unchecked(crate::bytes::vec_from_raw(buf.as_ptr(), buf.len())) });
        self.buf = buf;
        r
    }
    /// At the byte that ended a plain run: the string's end (Some(Some)),
    /// a failure (Some(None)), or an escape, which goes into buf with the
    /// plain run after it (None).
    #[inline]
    fn escape(&mut self, buf: &mut Vec<u8>) -> Option<Option<()>> {
        let c = match self.peek() {
            Some(c) => c,
            None => return Some(self.fail_at(self.pos, "unexpected end of input")),
        };
        if c == b'"' {
            self.pos += 1;
            return Some(Some(()));
        }
        if c < 0x20 {
            return Some(self.fail_at(self.pos, "control character in string"));
        }
        let esc = match self.data.get(self.pos + 1) {
            Some(&e) => e,
            None => {
                self.pos += 1;
                return Some(self.fail_at(self.pos, "unexpected end of input"));
            }
        };
        if let Some(b) = crate::bytes::simple_escape(esc) {
            crate::bytes::reserve(buf, 1);
            buf.push(b);
            self.pos += 2;
        } else {
            if esc != b'u' {
                return Some(self.fail_at(self.pos, "invalid escape"));
            }
            let mut r = match self.hex4(self.pos + 2) {
                Some(r) => r,
                None => return Some(self.fail_at(self.pos, "invalid escape")),
            };
            self.pos += 6;
            if (0xD800..0xE000).contains(&r) {
                let mut paired = false;
                if r < 0xDC00 && self.data.get(self.pos) == Some(&b'\\') && self.data.get(self.pos + 1) == Some(&b'u') {
                    if let Some(r2) = self.hex4(self.pos + 2) {
                        if (0xDC00..0xE000).contains(&r2) {
                            r = 0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00);
                            self.pos += 6;
                            paired = true;
                        }
                    }
                }
                if !paired {
                    r = 0xFFFD;
                }
            }
            let ch = char::from_u32(r).unwrap_or('\u{FFFD}');
            let mut tmp = [0u8; 4];
            crate::bytes::extend(buf, ch.encode_utf8(&mut tmp).as_bytes());
        }
        let stop = crate::bytes::string_stop(self.data, self.pos);
        crate::bytes::extend(buf, &self.data[self.pos..stop]);
        self.pos = stop;
        None
    }
}

/// The message for a computed number JSON cannot hold, the same in every SDK.
pub const NON_FINITE: &str = "cannot encode a non-finite number as JSON";

/// Encodes v canonically into out.
pub fn encode(v: &Value, out: &mut String) -> Result<(), String> {
    // Only whole UTF-8 encodings of values are appended.
    encode_bytes(v, unsafe { out.as_mut_vec() })
}

/// encode, into bytes.
pub(crate) fn encode_bytes(v: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    use crate::bytes::extend;
    match v {
        Value::Null => extend(out, b"null"),
        Value::Bool(b) => extend(out, if *b { b"true" } else { b"false" }),
        Value::Number(n) => extend(out, if n.is_empty() { b"0" } else { n.as_bytes() }),
        Value::Float(f) => write_float(*f, out)?,
        Value::String(s) => quote_bytes(s.as_bytes(), out),
        Value::Canonical(c) => extend(out, c.as_str().as_bytes()),
        // Four elements or members a loop iteration.
        Value::Array(a) => {
            byte(out, b'[');
            if let Some(x) = a.first() {
                encode_bytes(x, out)?;
            }
            let mut i = 1;
            while i + 4 <= a.len() {
                for x in [&a[i], &a[i + 1], &a[i + 2], &a[i + 3]] {
                    byte(out, b',');
                    encode_bytes(x, out)?;
                }
                i += 4;
            }
            for x in a.iter().skip(i) {
                byte(out, b',');
                encode_bytes(x, out)?;
            }
            byte(out, b']');
        }
        Value::Object(m) => {
            byte(out, b'{');
            let mut members = m.iter();
            if let Some((k, x)) = members.next() {
                quote_bytes(k.as_bytes(), out);
                byte(out, b':');
                encode_bytes(x, out)?;
            }
            macro_rules! member {
                () => {
                    let (k, x) = match members.next() {
                        Some(kx) => kx,
                        None => break,
                    };
                    byte(out, b',');
                    quote_bytes(k.as_bytes(), out);
                    byte(out, b':');
                    encode_bytes(x, out)?;
                };
            }
            loop {
                member!();
                member!();
                member!();
                member!();
            }
            byte(out, b'}');
        }
    }
    Ok(())
}

#[inline]
pub(crate) fn byte(out: &mut Vec<u8>, b: u8) {
    crate::bytes::reserve(out, 1);
    out.push(b);
}

/// Writes a computed number as format_float does; a non-finite one fails
/// with NON_FINITE.
pub(crate) fn write_float(f: f64, out: &mut Vec<u8>) -> Result<(), String> {
    if !f.is_finite() {
        return Err(NON_FINITE.to_string());
    }
    if f == f.trunc() && f.abs() < 9007199254740992.0 {
        // An integer below 2^53: its digits are its shortest form.
        if f == 0.0 {
            crate::bytes::extend(out, if f.is_sign_negative() { b"-0" } else { b"0" });
        } else {
            write_int(f as i64, out);
        }
        return Ok(());
    }
    crate::bytes::extend(out, format_float(f).as_bytes());
    Ok(())
}

/// Writes an integer in decimal.
pub(crate) fn write_int(i: i64, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut u = i.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if i < 0 {
        at -= 1;
        digits[at] = b'-';
    }
    crate::bytes::extend(out, &digits[at..]);
}

/// Formats a float as Go's encoding/json does: shortest round-trip digits,
/// plain notation for 1e-6 <= |f| < 1e21, exponent notation otherwise;
/// non-finite ones, which JSON cannot hold, as `+Inf`, `-Inf`, `NaN` (as
/// every SDK writes them in text).
pub fn format_float(f: f64) -> String {
    if !f.is_finite() {
        return (if f.is_nan() { "NaN" } else if f > 0.0 { "+Inf" } else { "-Inf" }).to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".to_string() } else { "0".to_string() };
    }
    let abs = f.abs();
    if abs < 1e-6 || abs >= 1e21 {
        let s = format!("{:e}", f);
        match s.find('e') {
            Some(i) => {
                let (mant, exp) = (&s[..i], &s[i + 1..]);
                if let Some(stripped) = exp.strip_prefix('-') {
                    format!("{}e-{}", mant, stripped)
                } else {
                    format!("{}e+{}", mant, exp)
                }
            }
            None => s,
        }
    } else {
        format!("{}", f)
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Quotes s as a JSON string, escaped the way Go's encoding/json escapes
/// (HTML characters and U+2028/U+2029 included).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(s, &mut out);
    out
}

pub(crate) fn quote_into(s: &str, out: &mut String) {
    // Only whole UTF-8 encodings are appended.
    quote_bytes(s.as_bytes(), unsafe { out.as_mut_vec() })
}

/// quote_into for the bytes of a str: the plain runs found and copied a
/// block at a time.
pub(crate) fn quote_bytes(s: &[u8], out: &mut Vec<u8>) {
    use crate::bytes::{extend, quote_stop};
    if crate::bytes::quote_plain(s, out) {
        return;
    }
    crate::bytes::reserve(out, s.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = quote_stop(s, 0);
    while i < s.len() {
        let mut u = [b'\\', b'u', b'0', b'0', 0, 0];
        let mut len = 1;
        let esc: &[u8] = match s[i] {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            8 => b"\\b",
            12 => b"\\f",
            b'<' => b"\\u003c",
            b'>' => b"\\u003e",
            b'&' => b"\\u0026",
            0xE2 => {
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9; other
                // characters starting with E2 stay as they are.
                if i + 2 < s.len() && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9) {
                    len = 3;
                    if s[i + 2] == 0xA8 {
                        b"\\u2028"
                    } else {
                        b"\\u2029"
                    }
                } else {
                    i = quote_stop(s, i + 1);
                    continue;
                }
            }
            c => {
                u[4] = HEX[(c >> 4) as usize];
                u[5] = HEX[(c & 15) as usize];
                &u
            }
        };
        extend(out, &s[start..i]);
        extend(out, esc);
        start = i + len;
        i = quote_stop(s, start);
    }
    extend(out, &s[start..]);
    byte(out, b'"');
}
