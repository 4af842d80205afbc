//! Text normalisation, JSON Lines, number literals.

use crate::json::{parse_str, Value};

/// Lowercases one character with Unicode's simple mapping (one character
/// to one), as Go's unicode.ToLower does.
pub fn lower_char(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// The engine's text normalisations: line endings become \n; ignoring case
/// lowercases every character; ignoring whitespace collapses runs of
/// whitespace inside a line to one space, trims each line and drops blank
/// lines.
pub fn normalize_text(s: &str, ignore_whitespace: bool, ignore_case: bool) -> String {
    let mut s = s.replace("\r\n", "\n");
    if ignore_case {
        s = s.chars().map(lower_char).collect();
    }
    if !ignore_whitespace {
        return s;
    }
    let lines: Vec<String> = s
        .split('\n')
        .map(|line| line.split(char::is_whitespace).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("\n")
}

/// Decodes JSON Lines: blank lines skipped, a bad line named by number.
pub fn parse_jsonl(s: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for (i, line) in s.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_str(line) {
            Ok(v) => out.push(v),
            Err(e) => return Err(format!("line {}: {}", i + 1, e)),
        }
    }
    Ok(out)
}

/// Reads s (surrounding whitespace ignored) as a JSON number literal; only
/// the JSON grammar is accepted, as in every SDK.
pub fn parse_number(s: &str) -> Option<f64> {
    match parse_str(s.trim()) {
        Ok(Value::Number(n)) => n.parse::<f64>().ok(),
        _ => None,
    }
}
