//! compare_csv: two CSV files, row by row.

use crate::*;
use std::cmp::Ordering;

/// Parses CSV text leniently, the way spreadsheet exports are written:
/// RFC 4180 quoting ("" is a quote inside a quoted field), CRLF or LF line
/// ends, rows of any length; a quote inside an unquoted field is kept as
/// it is and an unterminated quoted field runs to the end of the text, so
/// no text fails to parse. Empty lines are no rows. Err when there are
/// more than MAX_ITEMS rows.
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field = String::new();
    // Whether the current row has anything in it: a quoted empty field
    // makes a row, an empty line does not.
    let mut started = false;
    let mut quoted = false;
    let mut chars = text.chars().peekable();
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
                field.push(c);
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => {
                quoted = true;
                started = true;
            }
            ',' => {
                row.push(std::mem::take(&mut field));
                started = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                if started || !field.is_empty() {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                    if rows.len() > MAX_ITEMS {
                        return Err(format!("it has more than {} rows", MAX_ITEMS));
                    }
                }
                started = false;
            }
            c => field.push(c),
        }
    }
    if started || !field.is_empty() {
        row.push(field);
        rows.push(row);
        if rows.len() > MAX_ITEMS {
            return Err(format!("it has more than {} rows", MAX_ITEMS));
        }
    }
    Ok(rows)
}

struct CsvOptions {
    ignore_case: bool,
    strip: bool,
    ordered: bool,
    tolerance: Option<f64>,
}

/// A cell as compared: its text after strip and ignore_case, and its
/// number when a tolerance is given and it reads as one.
struct Cell {
    text: String,
    number: Option<f64>,
}

fn number(s: &str) -> Option<f64> {
    let t = s.trim();
    // Rust's parser also reads "inf", "NaN" and "infinity": words, not
    // numbers, in a spreadsheet.
    if !t.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn cells(rows: Vec<Vec<String>>, o: &CsvOptions) -> Vec<Vec<Cell>> {
    rows.into_iter()
        .map(|r| {
            r.into_iter()
                .map(|c| {
                    let c = if o.strip { c.trim().to_string() } else { c };
                    let c = if o.ignore_case { lower(&c) } else { c };
                    let number = if o.tolerance.is_some() { number(&c) } else { None };
                    Cell { text: c, number }
                })
                .collect()
        })
        .collect()
}

fn same(a: &Cell, b: &Cell, tolerance: Option<f64>) -> bool {
    match (a.number, b.number, tolerance) {
        (Some(x), Some(y), Some(t)) => (x - y).abs() <= t + f64::EPSILON * x.abs().max(y.abs()),
        _ => a.text == b.text,
    }
}

/// The sort order of unordered comparison: numbers (when a tolerance is
/// given) by value before text, text by its bytes; a shorter row first
/// when one is a prefix of the other.
fn order(a: &[Cell], b: &[Cell]) -> Ordering {
    for (x, y) in a.iter().zip(b.iter()) {
        let o = match (x.number, y.number) {
            (Some(p), Some(q)) => p.total_cmp(&q),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => x.text.cmp(&y.text),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

fn row_value(r: Option<&Vec<Cell>>) -> Value {
    match r {
        Some(r) => Value::Array(r.iter().map(|c| Value::String(clip(&c.text))).collect()),
        None => Value::Null,
    }
}

pub fn compare_csv(input: &EvaluateInput) -> Outcome {
    let a = args(input)?;
    let opts = Opts::new(&a.options, &["ignore_case", "strip", "ordered", "tolerance"])?;
    let o = CsvOptions {
        ignore_case: opts.bool("ignore_case", false)?,
        strip: opts.bool("strip", false)?,
        ordered: opts.bool("ordered", true)?,
        tolerance: opts.number("tolerance")?,
    };
    let (rg, eg) = a.pair()?;
    // The expected side first: a task that cannot be evaluated is an error
    // whatever the agent did.
    let (elabel, etext) = match text_of(input, eg, Side::Expected)? {
        Ok(t) => t,
        Err(s) => return Ok(s),
    };
    let (rlabel, rtext) = match text_of(input, rg, Side::Result)? {
        Ok(t) => t,
        Err(s) => return Ok(s),
    };
    let want = parse_csv(&etext).map_err(|e| format!("the expected {}: {}", elabel, e))?;
    let got = match parse_csv(&rtext) {
        Ok(g) => g,
        Err(e) => return Ok(Scored::zero(format!("the result {}: {}", rlabel, e)).with("result", rlabel.into())),
    };
    let (nw, ng) = (want.len(), got.len());
    let mut want = cells(want, &o);
    let mut got = cells(got, &o);
    if !o.ordered {
        want.sort_by(|x, y| order(x, y));
        got.sort_by(|x, y| order(x, y));
    }
    let base = Scored::new(0.0)
        .with("result", rlabel.as_str().into())
        .with("expected", elabel.as_str().into())
        .with("rows_result", Value::int(ng as i64))
        .with("rows_expected", Value::int(nw as i64))
        .with("ordered", o.ordered.into());
    for i in 0..nw.max(ng) {
        let (w, g) = (want.get(i), got.get(i));
        let column = match (w, g) {
            (Some(w), Some(g)) => {
                let n = w.len().max(g.len());
                match (0..n).find(|&j| match (w.get(j), g.get(j)) {
                    (Some(x), Some(y)) => !same(x, y, o.tolerance),
                    _ => true,
                }) {
                    Some(j) => j,
                    None => continue,
                }
            }
            _ => 0,
        };
        let mut diff = Map::new();
        let reason = match (w, g) {
            (Some(w), Some(g)) => {
                diff.insert("column".into(), Value::int(column as i64 + 1));
                diff.insert("expected".into(), text_or_null(w.get(column).map(|c| c.text.as_str())));
                diff.insert("actual".into(), text_or_null(g.get(column).map(|c| c.text.as_str())));
                let at = if o.ordered { format!("row {}", i + 1) } else { format!("sorted row {}", i + 1) };
                if w.len() != g.len() {
                    format!("{} has {} cells in the result, {} expected", at, g.len(), w.len())
                } else {
                    format!(
                        "{}, column {}: expected {}, got {}",
                        at,
                        column + 1,
                        quote(&clip(&w[column].text)),
                        quote(&clip(&g[column].text))
                    )
                }
            }
            (Some(_), None) => format!("the result has {} rows, {} expected", ng, nw),
            _ => format!("the result has {} rows, only {} expected", ng, nw),
        };
        if o.ordered {
            diff.insert("row".into(), Value::int(i as i64 + 1));
        }
        diff.insert("expected_row".into(), row_value(w));
        diff.insert("actual_row".into(), row_value(g));
        return Ok(base.with("reason", reason.into()).with("first_difference", Value::Object(diff)));
    }
    Ok(Scored { score: 1.0, ..base })
}
