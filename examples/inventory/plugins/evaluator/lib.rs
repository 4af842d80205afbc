//! The inventory problem's evaluator plugin, written with the Rust SDK. Its
//! functions, dispatched by name:
//!
//!   compare_csv {path, ordered?}   share of expected rows the tracked CSV
//!                                  file reproduces (by position when
//!                                  ordered, else as a multiset)
//!   row_count   {path, rows}       1 when the file has that many data rows
//!
//! Build: `task plugins` (or see docs/sdk-rust.md for cargo).

use wasmeval::*;

fn info() -> Describe {
    let mut d = Describe::new("inventory-evaluator", "1.0.0", &["evaluator"]);
    d.functions = vec!["compare_csv".into(), "row_count".into()];
    d.description = "CSV comparisons for files the inventory CLI writes.".into();
    d
}

describe!(info());
evaluator!(evaluate);

fn evaluate(input: EvaluateInput) -> Result<EvaluateOutput, String> {
    match input.function.as_str() {
        "compare_csv" => Ok(compare_csv(&input)),
        "row_count" => Ok(row_count(&input)),
        f => Ok(EvaluateOutput {
            error: format!("unknown function {} (this plugin has compare_csv, row_count)", quote(f)),
            ..Default::default()
        }),
    }
}

/// Parses CSV text (RFC 4180: quoted fields, "" escapes, CRLF or LF); every
/// record must have as many fields as the first.
fn table(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut line = 1;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    field.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            '"' => return Err(format!("line {}: bare \" in a field", line)),
            ',' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                line += 1;
            }
            c => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {}: unterminated quoted field", line));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows.retain(|r| !(r.len() == 1 && r[0].is_empty()));
    if let Some(first) = rows.first() {
        let n = first.len();
        if let Some(i) = rows.iter().position(|r| r.len() != n) {
            return Err(format!("record {}: wrong number of fields", i + 1));
        }
    }
    Ok(rows)
}

fn arg_str<'a>(m: &'a Map, k: &str) -> &'a str {
    m.get(k).and_then(|v| v.as_str()).unwrap_or("")
}

fn file_of<'a>(files: &'a Map, path: &str) -> Option<&'a Value> {
    files.get(path).filter(|v| !v.is_null())
}

fn reason(r: String) -> EvaluateOutput {
    EvaluateOutput { score: 0.0, details: object(vec![("reason", r.into())]), ..Default::default() }
}

fn compare_csv(input: &EvaluateInput) -> EvaluateOutput {
    let path = arg_str(&input.arguments, "path");
    let ordered = input.arguments.get("ordered").and_then(|v| v.as_bool()).unwrap_or(false);
    let want = match input.expected.get("files").and_then(|f| f.as_object()).and_then(|f| file_of(f, path)) {
        Some(w) => w,
        None => return EvaluateOutput { error: format!("the case has no expected file {}", path), ..Default::default() },
    };
    let got = match input.actual.as_ref().and_then(|a| file_of(&a.files, path)) {
        Some(g) => g,
        None => return reason(format!("{} was not produced", path)),
    };
    let w = match want.as_str().ok_or_else(|| "not a text file".to_string()).and_then(table) {
        Ok(t) => t,
        Err(e) => return EvaluateOutput { error: format!("expected {}: {}", path, e), ..Default::default() },
    };
    let g = match got.as_str().ok_or_else(|| "not a text file".to_string()).and_then(table) {
        Ok(t) => t,
        Err(e) => return reason(format!("not a CSV file: {}", e)),
    };
    if w.is_empty() {
        return EvaluateOutput { score: 1.0, ..Default::default() };
    }
    let mut matched = 0usize;
    let mut mismatched: Vec<Value> = Vec::new();
    if ordered {
        for (i, r) in w.iter().enumerate() {
            if g.get(i) == Some(r) {
                matched += 1;
            } else {
                mismatched.push(Value::int(i as i64 + 1));
            }
        }
    } else {
        let mut pool: Vec<Option<&Vec<String>>> = g.iter().map(Some).collect();
        for (i, r) in w.iter().enumerate() {
            match pool.iter().position(|p| *p == Some(r)) {
                Some(j) => {
                    pool[j] = None;
                    matched += 1;
                }
                None => mismatched.push(Value::int(i as i64 + 1)),
            }
        }
    }
    let extra = g.len().saturating_sub(w.len());
    let score = matched as f64 / (w.len() + extra) as f64;
    EvaluateOutput {
        score,
        details: object(vec![
            ("rows_expected", Value::int(w.len() as i64)),
            ("rows_actual", Value::int(g.len() as i64)),
            ("rows_matched", Value::int(matched as i64)),
            ("mismatched_rows", Value::Array(mismatched)),
        ]),
        ..Default::default()
    }
}

fn row_count(input: &EvaluateInput) -> EvaluateOutput {
    let path = arg_str(&input.arguments, "path");
    let rows = input.arguments.get("rows").and_then(|v| v.as_f64()).unwrap_or(0.0);
    let got = match input.actual.as_ref().and_then(|a| file_of(&a.files, path)) {
        Some(g) => g,
        None => return reason(format!("{} was not produced", path)),
    };
    let t = match got.as_str().map(table) {
        Some(Ok(t)) if !t.is_empty() => t,
        _ => return EvaluateOutput::default(),
    };
    if (t.len() - 1) as f64 == rows {
        return EvaluateOutput { score: 1.0, ..Default::default() };
    }
    EvaluateOutput { score: 0.0, details: object(vec![("rows", Value::int(t.len() as i64 - 1))]), ..Default::default() }
}
