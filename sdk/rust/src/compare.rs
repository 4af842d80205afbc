//! JSON deep compare with numeric tolerance, giving the structured diff
//! the engine's json check gives.

use crate::json::{quote, Value};
use crate::models::{Diff, DiffEntry};

/// Diffs keep at most this many entries, as the engine's checks do.
pub const MAX_DIFF_ENTRIES: usize = 50;

/// Options of `compare_json`; they mean what the json check's options mean.
#[derive(Clone, Debug, Default)]
pub struct JsonOptions {
    pub tolerance: f64,
    pub rel_tolerance: f64,
    pub ignore_keys: Vec<String>,
    pub unordered_lists: bool,
}

/// Deep-compares two values; None when they match, else every difference
/// with its path ("$.items[2].name"), capped at MAX_DIFF_ENTRIES, and a
/// one-line summary.
pub fn compare_json(expected: &Value, actual: &Value, opts: &JsonOptions) -> Option<Diff> {
    if let (Value::Canonical(a), Value::Canonical(b)) = (expected, actual) {
        if a == b {
            // The same encoding is the same value, and a value matches
            // itself whatever the options.
            return None;
        }
    }
    let (expected, actual) = (trees(expected), trees(actual));
    let mut c = Comparer { opts, path: Vec::new(), diff: Diff::default() };
    c.compare(&expected, &actual);
    if c.diff.entries.is_empty() && !c.diff.truncated {
        return None;
    }
    c.diff.summary = summarize(&c.diff.entries, c.diff.truncated);
    Some(c.diff)
}

/// v with every canonical value in it as a tree: the comparison walks
/// trees.
fn trees(v: &Value) -> std::borrow::Cow<'_, Value> {
    fn has_canonical(v: &Value) -> bool {
        match v {
            Value::Canonical(_) => true,
            Value::Array(a) => a.iter().any(has_canonical),
            Value::Object(m) => m.values().any(has_canonical),
            _ => false,
        }
    }
    fn convert(v: &Value) -> Value {
        match v {
            Value::Canonical(c) => c.to_tree(),
            Value::Array(a) => Value::Array(a.iter().map(convert).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), convert(x))).collect()),
            _ => v.clone(),
        }
    }
    if has_canonical(v) {
        std::borrow::Cow::Owned(convert(v))
    } else {
        std::borrow::Cow::Borrowed(v)
    }
}

/// One step of a path: an object's key or a list's index.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The comparison walks both values with the path so far as a stack of
/// steps, written out only for a difference; objects are walked side by
/// side in key order.
struct Comparer<'a> {
    opts: &'a JsonOptions,
    path: Vec<Step<'a>>,
    diff: Diff,
}

fn literal(v: &Value) -> Option<std::borrow::Cow<'_, str>> {
    match v {
        Value::Number(n) => Some(std::borrow::Cow::Borrowed(n.as_str())),
        Value::Float(f) => Some(std::borrow::Cow::Owned(crate::json::format_float(*f))),
        _ => None,
    }
}

impl<'a> Comparer<'a> {
    fn ignored(&self, k: &str) -> bool {
        self.opts.ignore_keys.iter().any(|i| i == k)
    }
    fn path_text(&self) -> String {
        let mut p = String::from("$");
        for s in &self.path {
            match s {
                Step::Key(k) => p = child_path(&p, k),
                Step::Index(i) => p = format!("{}[{}]", p, i),
            }
        }
        p
    }
    fn add(&mut self, op: &str, expected: &Value, actual: &Value) {
        if self.diff.entries.len() >= MAX_DIFF_ENTRIES {
            self.diff.truncated = true;
            return;
        }
        let e = DiffEntry { path: self.path_text(), op: op.to_string(), expected: expected.clone(), actual: actual.clone() };
        self.diff.entries.push(e);
    }
    fn add_at(&mut self, step: Step<'a>, op: &str, expected: &Value, actual: &Value) {
        self.path.push(step);
        self.add(op, expected, actual);
        self.path.pop();
    }
    fn compare(&mut self, want: &'a Value, got: &'a Value) {
        const NONE: Value = Value::Null;
        match want {
            Value::Object(w) => {
                let g = match got {
                    Value::Object(g) => g,
                    _ => return self.add("type", want, got),
                };
                // Both maps in key order: each key of want meets its
                // match in got, if any, on the way. While the keys are the
                // same in both (the usual case) they go in step, four to a
                // loop iteration.
                let mut wi = w.iter().peekable();
                let mut gi = g.iter().peekable();
                let mut matched = 0;
                if self.opts.ignore_keys.is_empty() {
                    macro_rules! same_key {
                        () => {
                            let (wk, wv, gv) = match (wi.peek(), gi.peek()) {
                                (Some(&(wk, wv)), Some(&(gk, gv))) if wk == gk => (wk, wv, gv),
                                _ => break,
                            };
                            wi.next();
                            gi.next();
                            matched += 1;
                            self.path.push(Step::Key(wk));
                            self.compare(wv, gv);
                            self.path.pop();
                        };
                    }
                    loop {
                        same_key!();
                        same_key!();
                        same_key!();
                        same_key!();
                    }
                }
                for (k, wv) in wi {
                    if self.ignored(k) {
                        continue;
                    }
                    while let Some((gk, _)) = gi.peek() {
                        if gk.as_str() < k.as_str() {
                            gi.next();
                        } else {
                            break;
                        }
                    }
                    match gi.peek() {
                        Some((gk, gv)) if *gk == k => {
                            let gv: &'a Value = gv;
                            matched += 1;
                            gi.next();
                            self.path.push(Step::Key(k));
                            self.compare(wv, gv);
                            self.path.pop();
                        }
                        _ => self.add_at(Step::Key(k), "missing", wv, &NONE),
                    }
                }
                if matched < g.len() {
                    for (k, gv) in g {
                        if !w.contains_key(k) && !self.ignored(k) {
                            self.add_at(Step::Key(k), "extra", &NONE, gv);
                        }
                    }
                }
            }
            Value::Array(w) => {
                let g = match got {
                    Value::Array(g) => g,
                    _ => return self.add("type", want, got),
                };
                if self.opts.unordered_lists {
                    return self.compare_unordered(w, g);
                }
                let both = w.len().min(g.len());
                let mut i = 0;
                while i + 4 <= both {
                    for j in [i, i + 1, i + 2, i + 3] {
                        self.path.push(Step::Index(j));
                        self.compare(&w[j], &g[j]);
                        self.path.pop();
                    }
                    i += 4;
                }
                let n = w.len().max(g.len());
                for i in i..n {
                    if i >= g.len() {
                        self.add_at(Step::Index(i), "missing", &w[i], &NONE);
                    } else if i >= w.len() {
                        self.add_at(Step::Index(i), "extra", &NONE, &g[i]);
                    } else {
                        self.path.push(Step::Index(i));
                        self.compare(&w[i], &g[i]);
                        self.path.pop();
                    }
                }
            }
            Value::Number(_) | Value::Float(_) => {
                let (a, b) = match (literal(want), literal(got)) {
                    (Some(a), Some(b)) => (a, b),
                    _ => return self.add("type", want, got),
                };
                if !numbers_equal(&a, &b, self.opts) {
                    self.add("changed", want, got);
                }
            }
            _ => {
                if type_of(want) != type_of(got) {
                    return self.add("type", want, got);
                }
                if want != got {
                    self.add("changed", want, got);
                }
            }
        }
    }
    fn compare_unordered(&mut self, want: &'a [Value], got: &'a [Value]) {
        const NONE: Value = Value::Null;
        let mut used = vec![false; got.len()];
        let mut missing = Vec::new();
        for (i, w) in want.iter().enumerate() {
            let mut found = false;
            for (j, g) in got.iter().enumerate() {
                if !used[j] && self.equal(w, g) {
                    used[j] = true;
                    found = true;
                    break;
                }
            }
            if !found {
                missing.push(i);
            }
        }
        for i in missing {
            self.add_at(Step::Index(i), "missing", &want[i], &NONE);
        }
        for (j, g) in got.iter().enumerate() {
            if !used[j] {
                self.add_at(Step::Index(j), "extra", &NONE, g);
            }
        }
    }
    /// Whether compare would find no difference between want and got.
    fn equal(&self, want: &Value, got: &Value) -> bool {
        match want {
            Value::Object(w) => {
                let g = match got {
                    Value::Object(g) => g,
                    _ => return false,
                };
                let mut wi = w.iter().peekable();
                let mut gi = g.iter().peekable();
                let mut matched = 0;
                if self.opts.ignore_keys.is_empty() {
                    macro_rules! same_key {
                        () => {
                            let (wv, gv) = match (wi.peek(), gi.peek()) {
                                (Some(&(wk, wv)), Some(&(gk, gv))) if wk == gk => (wv, gv),
                                _ => break,
                            };
                            wi.next();
                            gi.next();
                            matched += 1;
                            if !self.equal(wv, gv) {
                                return false;
                            }
                        };
                    }
                    loop {
                        same_key!();
                        same_key!();
                        same_key!();
                        same_key!();
                    }
                }
                for (k, wv) in wi {
                    if self.ignored(k) {
                        continue;
                    }
                    while let Some((gk, _)) = gi.peek() {
                        if gk.as_str() < k.as_str() {
                            gi.next();
                        } else {
                            break;
                        }
                    }
                    match gi.next() {
                        Some((gk, gv)) if gk == k => {
                            matched += 1;
                            if !self.equal(wv, gv) {
                                return false;
                            }
                        }
                        _ => return false,
                    }
                }
                matched == g.len() || g.keys().all(|k| w.contains_key(k) || self.ignored(k))
            }
            Value::Array(w) => {
                let g = match got {
                    Value::Array(g) => g,
                    _ => return false,
                };
                if w.len() != g.len() {
                    return false;
                }
                if self.opts.unordered_lists {
                    let mut used = vec![false; g.len()];
                    for x in w {
                        match (0..g.len()).find(|&j| !used[j] && self.equal(x, &g[j])) {
                            Some(j) => used[j] = true,
                            None => return false,
                        }
                    }
                    return true;
                }
                w.iter().zip(g.iter()).all(|(x, y)| self.equal(x, y))
            }
            Value::Number(_) | Value::Float(_) => match (literal(want), literal(got)) {
                (Some(a), Some(b)) => numbers_equal(&a, &b, self.opts),
                _ => false,
            },
            _ => type_of(want) == type_of(got) && want == got,
        }
    }
}

fn is_integer(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
}

/// |a - b| for two decimal integers of any length, as decimal digits.
fn int_diff(a: &str, b: &str) -> String {
    let (an, ad) = match a.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, a),
    };
    let (bn, bd) = match b.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, b),
    };
    let ad = ad.trim_start_matches('0');
    let bd = bd.trim_start_matches('0');
    let digits = |s: &str| -> Vec<u8> { s.bytes().rev().map(|c| c - b'0').collect() };
    let (x, y) = (digits(ad), digits(bd));
    let mut out: Vec<u8> = Vec::new();
    if an != bn {
        let mut carry = 0u8;
        for i in 0..x.len().max(y.len()) {
            let s = x.get(i).copied().unwrap_or(0) + y.get(i).copied().unwrap_or(0) + carry;
            out.push(s % 10);
            carry = s / 10;
        }
        if carry > 0 {
            out.push(carry);
        }
    } else {
        let x_bigger = ad.len() > bd.len() || (ad.len() == bd.len() && ad >= bd);
        let (big, small) = if x_bigger { (&x, &y) } else { (&y, &x) };
        let mut borrow = 0i16;
        for i in 0..big.len() {
            let mut s = big[i] as i16 - small.get(i).copied().unwrap_or(0) as i16 - borrow;
            borrow = 0;
            if s < 0 {
                s += 10;
                borrow = 1;
            }
            out.push(s as u8);
        }
    }
    while out.len() > 1 && *out.last().unwrap() == 0 {
        out.pop();
    }
    if out.is_empty() {
        return "0".to_string();
    }
    out.iter().rev().map(|d| (d + b'0') as char).collect()
}

/// Integers compare exactly (no float rounding for large IDs), everything
/// else as floats, within the tolerances either way.
pub fn numbers_equal(a: &str, b: &str, opts: &JsonOptions) -> bool {
    if a == b {
        return true;
    }
    let (d, scale);
    if is_integer(a) && is_integer(b) {
        let diff = int_diff(a, b);
        if diff == "0" {
            return true;
        }
        d = diff.parse::<f64>().unwrap_or(f64::INFINITY);
        let af: f64 = a.parse().unwrap_or(f64::INFINITY);
        let bf: f64 = b.parse().unwrap_or(f64::INFINITY);
        scale = af.abs().max(bf.abs());
    } else {
        let af: f64 = match a.parse() {
            Ok(f) if f64::is_finite(f) => f,
            _ => return false,
        };
        let bf: f64 = match b.parse() {
            Ok(f) if f64::is_finite(f) => f,
            _ => return false,
        };
        if af == bf {
            return true;
        }
        d = (af - bf).abs();
        scale = af.abs().max(bf.abs());
    }
    d <= opts.tolerance || d <= opts.rel_tolerance * scale
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::String(_) => "string",
        Value::Number(_) | Value::Float(_) => "number",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Canonical(c) => c.type_of(),
    }
}

fn is_identifier(k: &str) -> bool {
    !k.is_empty()
        && k.bytes().enumerate().all(|(i, c)| c == b'_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
}

/// Extends a JSON path with an object key, quoting keys that are not plain
/// identifiers.
pub fn child_path(path: &str, key: &str) -> String {
    if is_identifier(key) {
        format!("{}.{}", path, key)
    } else {
        format!("{}[{}]", path, quote(key))
    }
}

/// Says what differs in one line: the first difference and how many more.
pub fn summarize(entries: &[DiffEntry], truncated: bool) -> String {
    let e = match entries.first() {
        Some(e) => e,
        None => return String::new(),
    };
    let first = match e.op.as_str() {
        "missing" => format!("{} missing (expected {})", e.path, brief(&e.expected)),
        "extra" => format!("{} unexpected ({})", e.path, brief(&e.actual)),
        "type" => format!("{} is {}, expected {}", e.path, type_of(&e.actual), type_of(&e.expected)),
        _ => format!("{}: expected {}, got {}", e.path, brief(&e.expected), brief(&e.actual)),
    };
    let more = entries.len() - 1;
    if truncated {
        format!("{}; and more than {} other differences", first, more)
    } else if more == 1 {
        format!("{}; and 1 other difference", first)
    } else if more > 1 {
        format!("{}; and {} other differences", first, more)
    } else {
        first
    }
}

/// Renders a value compactly for a summary line: containers by kind,
/// strings quoted as Go's %q quotes them and clipped to 60 bytes, numbers as
/// written.
pub fn brief(v: &Value) -> String {
    match v {
        Value::Object(_) => "an object".to_string(),
        Value::Array(_) => "a list".to_string(),
        Value::String(s) => go_quote(&clip(s, 60)),
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => clip(n, 60),
        Value::Float(f) => clip(&crate::json::format_float(*f), 60),
        Value::Canonical(c) => brief(&c.to_tree()),
    }
}

/// Shortens s to at most n bytes at a character boundary, marking the cut
/// with "…".
pub fn clip(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_string();
    }
    let mut cut = n;
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &s[..cut])
}

/// Whether Go's unicode.IsPrint holds for c, for every assigned character
/// class a summary is likely to meet (controls, separators, format and
/// private-use characters are not printable).
fn go_printable(c: char) -> bool {
    let u = c as u32;
    !(u < 0x20
        || (0x7f..=0xa0).contains(&u)
        || u == 0xad
        || (0x600..=0x605).contains(&u)
        || u == 0x61c
        || u == 0x6dd
        || u == 0x70f
        || u == 0x8e2
        || u == 0x1680
        || u == 0x180e
        || (0x2000..=0x200f).contains(&u)
        || (0x2028..=0x202f).contains(&u)
        || (0x205f..=0x2064).contains(&u)
        || (0x2066..=0x206f).contains(&u)
        || u == 0x3000
        || (0xd800..=0xf8ff).contains(&u)
        || u == 0xfeff
        || (0xfff9..=0xfffb).contains(&u)
        || u == 0xfffe
        || u == 0xffff
        || u == 0x110bd
        || (0x1bca0..=0x1bca3).contains(&u)
        || (0x1d173..=0x1d17a).contains(&u)
        || u == 0xe0001
        || (0xe0020..=0xe007f).contains(&u)
        || u >= 0xf0000)
}

/// Quotes s the way Go's strconv.Quote does.
pub fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}
