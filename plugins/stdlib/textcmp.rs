//! Text comparisons: compare_text_file, compare_script_logs and
//! check_include_exclude.

use crate::pattern::Pattern;
use crate::*;

/// Reads the result and expected texts of a two-file function; Err(Ok) is
/// the score for a missing result file.
fn texts(input: &EvaluateInput, a: &Args) -> Result<Result<((String, String), (String, String)), Scored>, String> {
    let (rg, eg) = a.pair()?;
    let e = match text_of(input, eg, Side::Expected)? {
        Ok(t) => t,
        Err(s) => return Ok(Err(s)),
    };
    let r = match text_of(input, rg, Side::Result)? {
        Ok(t) => t,
        Err(s) => return Ok(Err(s)),
    };
    Ok(Ok((r, e)))
}

fn base(rlabel: &str, elabel: &str) -> Scored {
    Scored::new(0.0).with("result", rlabel.into()).with("expected", elabel.into())
}

pub fn compare_text_file(input: &EvaluateInput) -> Outcome {
    let a = args(input)?;
    let opts = Opts::new(&a.options, &["ignore_blanks", "ignore_case"])?;
    let ignore_blanks = opts.bool("ignore_blanks", false)?;
    let ignore_case = opts.bool("ignore_case", false)?;
    let ((rlabel, rtext), (elabel, etext)) = match texts(input, &a)? {
        Ok(t) => t,
        Err(s) => return Ok(s),
    };
    let (rtext, etext) = if ignore_case { (lower(&rtext), lower(&etext)) } else { (rtext, etext) };
    let out = base(&rlabel, &elabel);
    if ignore_blanks {
        // Spacing and line breaks do not count: the texts are compared as
        // sequences of whitespace-separated words.
        let w: Vec<&str> = etext.split_whitespace().collect();
        let g: Vec<&str> = rtext.split_whitespace().collect();
        return Ok(match (0..w.len().max(g.len())).find(|&i| w.get(i) != g.get(i)) {
            None => Scored { score: 1.0, ..out },
            Some(i) => {
                let reason = match (w.get(i), g.get(i)) {
                    (Some(x), Some(y)) => format!("word {}: expected {}, got {}", i + 1, quote(&clip(x)), quote(&clip(y))),
                    (Some(x), None) => format!("the result ends before word {} ({} expected)", i + 1, quote(&clip(x))),
                    (None, Some(y)) => format!("the result has more words than expected, from word {} ({})", i + 1, quote(&clip(y))),
                    (None, None) => String::new(),
                };
                out.with("reason", reason.into()).with(
                    "first_difference",
                    object(vec![
                        ("word", Value::int(i as i64 + 1)),
                        ("expected", text_or_null(w.get(i).copied())),
                        ("actual", text_or_null(g.get(i).copied())),
                    ]),
                )
            }
        });
    }
    let w = lines(&etext);
    let g = lines(&rtext);
    if w.len() > MAX_ITEMS {
        return Err(format!("the expected {} has more than {} lines", elabel, MAX_ITEMS));
    }
    let numbered = |l: &[&str]| l.iter().enumerate().map(|(i, s)| (i + 1, s.to_string())).collect::<Vec<_>>();
    Ok(first_line_difference(out, &numbered(&w), &numbered(&g)))
}

/// Compares two sequences of (line number in its file, text); the verdict
/// names the first pair that differs.
fn first_line_difference(out: Scored, want: &[(usize, String)], got: &[(usize, String)]) -> Scored {
    let out = out.with("lines_result", Value::int(got.len() as i64)).with("lines_expected", Value::int(want.len() as i64));
    let i = match (0..want.len().max(got.len())).find(|&i| want.get(i).map(|x| &x.1) != got.get(i).map(|x| &x.1)) {
        None => return Scored { score: 1.0, ..out },
        Some(i) => i,
    };
    let (w, g) = (want.get(i), got.get(i));
    let reason = match (w, g) {
        (Some(w), Some(g)) if w.0 == g.0 => {
            format!("line {}: expected {}, got {}", w.0, quote(&clip(&w.1)), quote(&clip(&g.1)))
        }
        (Some(w), Some(g)) => format!(
            "expected line {} is {}, result line {} is {}",
            w.0,
            quote(&clip(&w.1)),
            g.0,
            quote(&clip(&g.1))
        ),
        (Some(w), None) => format!("the result ends before expected line {} ({})", w.0, quote(&clip(&w.1))),
        (None, Some(g)) => format!("the result has more lines than expected, from line {} ({})", g.0, quote(&clip(&g.1))),
        (None, None) => String::new(),
    };
    let line = |x: Option<&(usize, String)>| x.map_or(Value::Null, |x| Value::int(x.0 as i64));
    out.with("reason", reason.into()).with(
        "first_difference",
        object(vec![
            ("expected_line", line(w)),
            ("actual_line", line(g)),
            ("expected", text_or_null(w.map(|x| x.1.as_str()))),
            ("actual", text_or_null(g.map(|x| x.1.as_str()))),
        ]),
    )
}

/// The most ignore_patterns one call takes.
const MAX_PATTERNS: usize = 100;

pub fn compare_script_logs(input: &EvaluateInput) -> Outcome {
    let a = args(input)?;
    let opts = Opts::new(&a.options, &["ignore_timestamps", "ignore_patterns", "ignore_case", "ignore_blank_lines"])?;
    let timestamps = opts.bool("ignore_timestamps", false)?;
    let ignore_case = opts.bool("ignore_case", false)?;
    let blank = opts.bool("ignore_blank_lines", true)?;
    let sources = opts.strings("ignore_patterns")?.unwrap_or_default();
    if sources.len() > MAX_PATTERNS {
        return Err(format!("option ignore_patterns lists {} patterns, at most {} are taken", sources.len(), MAX_PATTERNS));
    }
    let mut patterns = Vec::new();
    for (i, p) in sources.iter().enumerate() {
        patterns.push(Pattern::compile(p, ignore_case).map_err(|e| format!("option ignore_patterns[{}] {}: {}", i, quote(p), e))?);
    }
    let ((rlabel, rtext), (elabel, etext)) = match texts(input, &a)? {
        Ok(t) => t,
        Err(s) => return Ok(s),
    };
    // Each line: trailing spaces dropped, then its timestamp, then case
    // folded, then dropped when it is blank or a pattern occurs in it.
    let keep = |text: &str| -> Vec<(usize, String)> {
        let mut out = Vec::new();
        for (i, line) in lines(text).into_iter().enumerate() {
            let mut l = line.trim_end();
            if timestamps {
                l = strip_timestamp(l);
            }
            let l = if ignore_case { lower(l) } else { l.to_string() };
            if (blank && l.trim().is_empty()) || patterns.iter().any(|p| p.is_match(&l)) {
                continue;
            }
            out.push((i + 1, l));
        }
        out
    };
    let want = keep(&etext);
    if want.len() > MAX_ITEMS {
        return Err(format!("the expected {} has more than {} lines", elabel, MAX_ITEMS));
    }
    let got = keep(&rtext);
    Ok(first_line_difference(base(&rlabel, &elabel), &want, &got))
}

/// The line without a leading timestamp: an optional "[" or "(", then a
/// date (YYYY-MM-DD, YYYY/MM/DD or YYYY.MM.DD) and a time, or either
/// alone, the time H:MM or HH:MM[:SS] with an optional fraction (".123"
/// or ",123") and zone ("Z", "+02:00", "-0500", " UTC"), then the closing
/// bracket, then spaces and one separator ("-", "|" or ":") with the
/// spaces after it. A line that does not start so is kept whole.
pub fn strip_timestamp(line: &str) -> &str {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    let open = match b.get(i) {
        Some(b'[') => Some(b']'),
        Some(b'(') => Some(b')'),
        _ => None,
    };
    if open.is_some() {
        i += 1;
    }
    let digits = |i: usize, n: usize| i + n <= b.len() && b[i..i + n].iter().all(|c| c.is_ascii_digit());
    let mut found = false;
    if digits(i, 4)
        && matches!(b.get(i + 4), Some(b'-') | Some(b'/') | Some(b'.'))
        && digits(i + 5, 2)
        && b.get(i + 7) == b.get(i + 4)
        && digits(i + 8, 2)
    {
        i += 10;
        found = true;
        if matches!(b.get(i), Some(b'T') | Some(b' ')) {
            if let Some(j) = time(b, i + 1) {
                i = j;
            }
        }
    } else if let Some(j) = time(b, i) {
        i = j;
        found = true;
    }
    if !found {
        return line;
    }
    if let Some(close) = open {
        if b.get(i) != Some(&close) {
            return line;
        }
        i += 1;
    } else if i < b.len() && !matches!(b[i], b' ' | b'\t' | b'-' | b'|' | b':' | b',' | b']') {
        // "2024-01-02x" or "12:30abc" is no timestamp but text.
        return line;
    }
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if matches!(b.get(i), Some(b'-') | Some(b'|') | Some(b':')) {
        i += 1;
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
    }
    // Only ASCII was stepped over, so i is a character boundary.
    &line[i..]
}

/// The end of a time at b[i..], if one starts there.
fn time(b: &[u8], mut i: usize) -> Option<usize> {
    let digit = |i: usize| b.get(i).map_or(false, |c| c.is_ascii_digit());
    if !digit(i) {
        return None;
    }
    i += if digit(i + 1) { 2 } else { 1 };
    if b.get(i) != Some(&b':') || !digit(i + 1) || !digit(i + 2) {
        return None;
    }
    i += 3;
    if b.get(i) == Some(&b':') && digit(i + 1) && digit(i + 2) {
        i += 3;
        if matches!(b.get(i), Some(b'.') | Some(b',')) && digit(i + 1) {
            i += 1;
            while digit(i) {
                i += 1;
            }
        }
    }
    match b.get(i) {
        Some(b'Z') => i += 1,
        Some(b'+') | Some(b'-') if digit(i + 1) && digit(i + 2) => {
            let mut j = i + 3;
            if b.get(j) == Some(&b':') {
                j += 1;
            }
            if digit(j) && digit(j + 1) {
                i = j + 2;
            }
        }
        Some(b' ') if b.get(i + 1..i + 4) == Some(&b"UTC"[..]) => i += 4,
        _ => {}
    }
    Some(i)
}

pub fn check_include_exclude(input: &EvaluateInput) -> Outcome {
    let a = args(input)?;
    let opts = Opts::new(&a.options, &["ignore_case"])?;
    let ignore_case = opts.bool("ignore_case", false)?;
    let (rg, eg) = a.pair()?;
    let rules = match get(input, eg, Side::Expected)? {
        Got::Rule(Value::Object(m)) => m,
        _ => return Err("the expected getter must be a rule {\"include\": [...], \"exclude\": [...]}".into()),
    };
    for k in rules.keys() {
        if k != "include" && k != "exclude" {
            return Err(format!("the rule has an unknown key {} (it takes include and exclude)", quote(k)));
        }
    }
    let list = |k: &str| -> Result<Vec<String>, String> {
        match rules.get(k) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| v.as_str().map(String::from).ok_or_else(|| format!("rule {}[{}] is {}, expected a string", k, i, kind(v))))
                .collect(),
            Some(v) => Err(format!("rule {} is {}, expected a list of strings", k, kind(v))),
        }
    };
    let (include, exclude) = (list("include")?, list("exclude")?);
    let (rlabel, text) = match text_of(input, rg, Side::Result)? {
        Ok(t) => t,
        Err(s) => return Ok(s),
    };
    let fold = |s: &str| if ignore_case { lower(s) } else { s.to_string() };
    let text = fold(&text);
    let absent: Vec<Value> = include.iter().filter(|s| !text.contains(fold(s).as_str())).map(|s| Value::String(clip(s))).collect();
    let present: Vec<Value> = exclude.iter().filter(|s| text.contains(fold(s).as_str())).map(|s| Value::String(clip(s))).collect();
    let mut out = Scored::new(0.0).with("result", rlabel.into());
    let mut why = Vec::new();
    if let Some(Value::String(s)) = absent.first() {
        why.push(format!("{} of the included strings are missing, the first {}", absent.len(), quote(s)));
    }
    if let Some(Value::String(s)) = present.first() {
        why.push(format!("{} of the excluded strings are present, the first {}", present.len(), quote(s)));
    }
    if why.is_empty() {
        out.score = 1.0;
    } else {
        out = out.with("reason", why.join("; ").into());
    }
    Ok(out.with("missing", Value::Array(absent)).with("present", Value::Array(present)))
}
