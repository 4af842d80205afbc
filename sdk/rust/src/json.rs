//! The shared JSON model: parse, canonical encoding, float formatting.

use std::collections::BTreeMap;
use std::fmt;

/// An object: keys in byte order, which is the canonical output order.
pub type Map = BTreeMap<String, Value>;

/// A JSON value. `Number` holds a number's literal text exactly as written
/// (integers beyond 2^53 survive); `Float` is a number the plugin computed,
/// written the way Go's encoding/json writes a float64.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(String),
    Float(f64),
    String(String),
    Array(Vec<Value>),
    Object(Map),
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
        Value::Number(i.to_string())
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
    if let Err(e) = std::str::from_utf8(data) {
        return Err(SyntaxError { offset: e.valid_up_to(), reason: "invalid UTF-8".to_string() });
    }
    let mut p = Parser { data, pos: 0 };
    p.skip();
    let v = p.value(0)?;
    p.skip();
    if p.pos < data.len() {
        return Err(p.fail("unexpected data after the value"));
    }
    Ok(v)
}

/// Parses a JSON document held in a string.
pub fn parse_str(s: &str) -> Result<Value, SyntaxError> {
    parse(s.as_bytes())
}

struct Parser<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn skip(&mut self) {
        while self.pos < self.data.len() {
            match self.data[self.pos] {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                _ => return,
            }
        }
    }
    fn fail(&self, reason: &str) -> SyntaxError {
        SyntaxError { offset: self.pos, reason: reason.to_string() }
    }
    fn unexpected(&self) -> SyntaxError {
        if self.pos >= self.data.len() {
            self.fail("unexpected end of input")
        } else {
            self.fail(&format!("unexpected byte 0x{:02x}", self.data[self.pos]))
        }
    }
    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }
    fn literal(&mut self, word: &[u8], v: Value) -> Result<Value, SyntaxError> {
        for &c in word {
            if self.peek() != Some(c) {
                return Err(self.unexpected());
            }
            self.pos += 1;
        }
        Ok(v)
    }
    fn value(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        let c = match self.peek() {
            Some(c) => c,
            None => return Err(self.unexpected()),
        };
        match c {
            b'{' | b'[' if depth >= MAX_DEPTH => Err(self.fail("nesting deeper than 1000")),
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => Ok(Value::String(self.string()?)),
            b't' => self.literal(b"true", Value::Bool(true)),
            b'f' => self.literal(b"false", Value::Bool(false)),
            b'n' => self.literal(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.unexpected()),
        }
    }
    fn object(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.pos += 1;
        let mut m = Map::new();
        self.skip();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(m));
        }
        loop {
            self.skip();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected());
            }
            let k = self.string()?;
            self.skip();
            if self.peek() != Some(b':') {
                return Err(self.unexpected());
            }
            self.pos += 1;
            self.skip();
            let v = self.value(depth + 1)?;
            m.insert(k, v);
            self.skip();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(m));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }
    fn array(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.pos += 1;
        let mut a = Vec::new();
        self.skip();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(a));
        }
        loop {
            self.skip();
            a.push(self.value(depth + 1)?);
            self.skip();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(a));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }
    fn digits(&mut self) -> usize {
        let mut n = 0;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
            n += 1;
        }
        n
    }
    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.pos;
        let bad = SyntaxError { offset: start, reason: "invalid number".to_string() };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if self.digits() == 0 {
            return Err(bad);
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(bad);
            }
        }
        if let Some(b'e') | Some(b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+') | Some(b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(bad);
            }
        }
        // The input was checked to be UTF-8 and a number is ASCII.
        Ok(Value::Number(String::from_utf8_lossy(&self.data[start..self.pos]).into_owned()))
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
    fn string(&mut self) -> Result<String, SyntaxError> {
        self.pos += 1;
        let mut buf: Vec<u8> = Vec::new();
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return Err(self.fail("unexpected end of input")),
            };
            if c == b'"' {
                self.pos += 1;
                // Valid: the input is UTF-8 and escapes add whole characters.
                return Ok(String::from_utf8(buf).unwrap_or_default());
            }
            if c < 0x20 {
                return Err(self.fail("control character in string"));
            }
            if c != b'\\' {
                buf.push(c);
                self.pos += 1;
                continue;
            }
            let esc = match self.data.get(self.pos + 1) {
                Some(&e) => e,
                None => {
                    self.pos += 1;
                    return Err(self.fail("unexpected end of input"));
                }
            };
            let simple = match esc {
                b'"' => Some(b'"'),
                b'\\' => Some(b'\\'),
                b'/' => Some(b'/'),
                b'b' => Some(8),
                b'f' => Some(12),
                b'n' => Some(b'\n'),
                b'r' => Some(b'\r'),
                b't' => Some(b'\t'),
                _ => None,
            };
            if let Some(b) = simple {
                buf.push(b);
                self.pos += 2;
                continue;
            }
            if esc != b'u' {
                return Err(self.fail("invalid escape"));
            }
            let mut r = match self.hex4(self.pos + 2) {
                Some(r) => r,
                None => return Err(self.fail("invalid escape")),
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
            buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
        }
    }
}

/// The message for a computed number JSON cannot hold, the same in every SDK.
pub const NON_FINITE: &str = "cannot encode a non-finite number as JSON";

/// Encodes v canonically into out.
pub fn encode(v: &Value, out: &mut String) -> Result<(), String> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(if n.is_empty() { "0" } else { n }),
        Value::Float(f) => {
            if !f.is_finite() {
                return Err(NON_FINITE.to_string());
            }
            out.push_str(&format_float(*f));
        }
        Value::String(s) => quote_into(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                encode(x, out)?;
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                quote_into(k, out);
                out.push(':');
                encode(x, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Formats a float as Go's encoding/json does: shortest round-trip digits,
/// plain notation for 1e-6 <= |f| < 1e21, exponent notation otherwise.
pub fn format_float(f: f64) -> String {
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
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<String> = match c {
            '"' => Some("\\\"".into()),
            '\\' => Some("\\\\".into()),
            '\n' => Some("\\n".into()),
            '\r' => Some("\\r".into()),
            '\t' => Some("\\t".into()),
            '\u{8}' => Some("\\b".into()),
            '\u{c}' => Some("\\f".into()),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => Some(format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => {
                let b = c as u32 as usize;
                Some(format!("\\u00{}{}", HEX[b >> 4] as char, HEX[b & 15] as char))
            }
            _ => None,
        };
        if let Some(e) = esc {
            out.push_str(&s[start..i]);
            out.push_str(&e);
            start = i + c.len_utf8();
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}
