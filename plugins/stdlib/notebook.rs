//! The Jupyter notebook functions, on nbformat 4 files (.ipynb JSON):
//! compare_notebook_cells, compare_notebook_outputs, compare_ipynb_files,
//! is_jupyter_cell_executed, are_jupyter_outputs_cleared and
//! evaluate_multiple_notebooks.

use crate::*;

/// A cell as the functions see it.
pub struct Cell {
    /// Its position in the notebook, from 0.
    pub index: usize,
    pub kind: String,
    pub source: String,
    /// The execution_count's literal, None when null or absent.
    pub count: Option<String>,
    /// The text of each output (see output_text).
    pub outputs: Vec<String>,
}

/// A string or a list of strings (nbformat's multiline string), joined.
fn multiline(v: Option<&Value>, what: &str) -> Result<String, String> {
    match v {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(a)) => {
            let mut s = String::new();
            for (i, p) in a.iter().enumerate() {
                match p {
                    Value::String(p) => s.push_str(p),
                    v => return Err(format!("{}[{}] is {}, expected a string", what, i, kind(v))),
                }
            }
            Ok(s)
        }
        Some(v) => Err(format!("{} is {}, expected a string or a list of strings", what, kind(v))),
        None => Err(format!("{} is missing", what)),
    }
}

/// An output's text: a stream's text, the text/plain of a result or a
/// display (empty when it has none, as for an image), an error's
/// "ename: evalue".
fn output_text(o: &Value, what: &str) -> Result<String, String> {
    let m = match o {
        Value::Object(m) => m,
        v => return Err(format!("{} is {}, expected an object", what, kind(v))),
    };
    let t = match m.get("output_type") {
        Some(Value::String(t)) => t.as_str(),
        Some(v) => return Err(format!("{}'s output_type is {}, expected a string", what, kind(v))),
        None => return Err(format!("{} has no output_type", what)),
    };
    match t {
        "stream" => multiline(m.get("text"), &format!("{}'s text", what)),
        "execute_result" | "display_data" => match m.get("data") {
            Some(Value::Object(d)) => match d.get("text/plain") {
                None => Ok(String::new()),
                v => multiline(v, &format!("{}'s data[\"text/plain\"]", what)),
            },
            Some(v) => Err(format!("{}'s data is {}, expected an object", what, kind(v))),
            None => Err(format!("{} has no data", what)),
        },
        "error" => {
            let field = |k: &str| match m.get(k) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(v) => Err(format!("{}'s {} is {}, expected a string", what, k, kind(v))),
                None => Err(format!("{} has no {}", what, k)),
            };
            Ok(format!("{}: {}", field("ename")?, field("evalue")?))
        }
        t => Err(format!(
            "{}'s output_type is {}, expected stream, execute_result, display_data or error",
            what,
            quote(t)
        )),
    }
}

/// Reads an nbformat 4 notebook; Err names what is wrong, for a message
/// that starts with the file's label.
pub fn parse_notebook(text: &str) -> Result<Vec<Cell>, String> {
    let v = parse_str(text.strip_prefix('\u{feff}').unwrap_or(text)).map_err(|e| format!("not JSON ({})", e))?;
    let top = match v {
        Value::Object(m) => m,
        v => return Err(format!("the notebook is {}, expected an object", kind(&v))),
    };
    let cells = match top.get("cells") {
        Some(Value::Array(a)) => a,
        Some(v) => return Err(format!("cells is {}, expected a list", kind(v))),
        None => return Err("it has no cells list (not an nbformat 4 notebook)".into()),
    };
    if cells.len() > MAX_ITEMS {
        return Err(format!("it has {} cells, more than the {} a notebook may have here", cells.len(), MAX_ITEMS));
    }
    let mut out = Vec::with_capacity(cells.len());
    for (index, c) in cells.iter().enumerate() {
        let what = format!("cell {}", index);
        let m = match c {
            Value::Object(m) => m,
            v => return Err(format!("{} is {}, expected an object", what, kind(v))),
        };
        let kind_ = match m.get("cell_type") {
            Some(Value::String(t)) => t.clone(),
            Some(v) => return Err(format!("{}'s cell_type is {}, expected a string", what, kind(v))),
            None => return Err(format!("{} has no cell_type", what)),
        };
        let source = multiline(m.get("source"), &format!("{}'s source", what))?;
        let count = match m.get("execution_count") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => Some(n.clone()),
            Some(v) => return Err(format!("{}'s execution_count is {}, expected a number or null", what, kind(v))),
        };
        let outputs = match m.get("outputs") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => {
                let mut texts = Vec::with_capacity(a.len());
                for (k, o) in a.iter().enumerate() {
                    texts.push(output_text(o, &format!("{}'s output {}", what, k))?);
                }
                texts
            }
            Some(v) => return Err(format!("{}'s outputs is {}, expected a list", what, kind(v))),
        };
        out.push(Cell { index, kind: kind_, source, count, outputs });
    }
    Ok(out)
}

/// The cells of the notebook a getter names; Err(Ok) is the score for a
/// missing result file.
fn notebook(input: &EvaluateInput, g: &Value, side: Side) -> Result<Result<(String, Vec<Cell>), Scored>, String> {
    let (label, text) = match get(input, g, side)? {
        Got::Text(label, text) => (label, text),
        Got::Missing(label) => return Ok(Err(missing(&label))),
        Got::Rule(_) => return Err("a notebook getter must name a file (vm_file or task_file), not a rule".into()),
    };
    let side = if side == Side::Result { "result" } else { "expected" };
    match parse_notebook(&text) {
        Ok(cells) => Ok(Ok((label, cells))),
        Err(e) => Err(format!("the {} {} is not a valid notebook: {}", side, label, e)),
    }
}

#[derive(Clone, Copy, PartialEq)]
pub enum Which {
    Cells,
    Outputs,
    Both,
}

struct TextOptions {
    whitespace: String,
    ignore_case: bool,
}

const WHITESPACE: &[&str] = &["exact", "trim", "normalize"];

/// A source or output text as compared: exact; trim, the default (each
/// line's trailing whitespace and the blank lines at the start and end
/// dropped); normalize (runs of whitespace one space, lines trimmed,
/// blank lines dropped). Line ends are LF in every mode but exact.
fn normal(s: &str, o: &TextOptions) -> String {
    let s = match o.whitespace.as_str() {
        "exact" => s.to_string(),
        "normalize" => normalize_text(s, true, false),
        _ => {
            let mut ls: Vec<&str> = s.split('\n').map(|l| l.trim_end()).collect();
            while ls.last().map_or(false, |l| l.is_empty()) {
                ls.pop();
            }
            let first = ls.iter().position(|l| !l.is_empty()).unwrap_or(ls.len());
            ls[first..].join("\n")
        }
    };
    if o.ignore_case {
        lower(&s)
    } else {
        s
    }
}

/// One compared cell: its notebook index, type and named texts.
struct Item {
    index: usize,
    kind: String,
    parts: Vec<(&'static str, String)>,
}

fn items(cells: &[Cell], which: Which, types: &Option<Vec<String>>, o: &TextOptions) -> Vec<Item> {
    let mut out = Vec::new();
    for c in cells {
        let code = c.kind == "code";
        let wanted = match which {
            Which::Outputs => code,
            _ => types.as_ref().map_or(true, |t| t.iter().any(|t| *t == c.kind)),
        };
        if !wanted {
            continue;
        }
        let mut parts = Vec::new();
        if which != Which::Outputs {
            parts.push(("source", normal(&c.source, o)));
        }
        if code && which != Which::Cells {
            // Each output ends its own line, so a stream's "2\n" followed
            // by a result "3" reads "2\n3\n" whether or not the stream
            // ended its line.
            let mut text = String::new();
            for t in &c.outputs {
                text.push_str(t);
                if !text.ends_with('\n') {
                    text.push('\n');
                }
            }
            parts.push(("outputs", normal(&text, o)));
        }
        out.push(Item { index: c.index, kind: c.kind.clone(), parts });
    }
    out
}

/// The lines of a compared text; an empty text has none, so a cleared
/// output reads "got nothing" rather than "got \"\"".
fn text_lines(t: &str) -> Vec<&str> {
    if t.is_empty() {
        Vec::new()
    } else {
        t.split('\n').collect()
    }
}

fn a_kind(k: &str) -> String {
    format!("{} {} cell", if k.starts_with(|c: char| "aeiou".contains(c)) { "an" } else { "a" }, k)
}

/// Compares one result notebook with one expected notebook.
pub fn compare_pair(input: &EvaluateInput, rg: &Value, eg: &Value, which: Which, options: &Map) -> Outcome {
    let opts = match which {
        Which::Cells => Opts::new(options, &["cell_types", "whitespace", "ignore_case"])?,
        _ => Opts::new(options, &["whitespace", "ignore_case"])?,
    };
    let types = opts.strings("cell_types")?;
    let o = TextOptions { whitespace: opts.choice("whitespace", WHITESPACE, "trim")?, ignore_case: opts.bool("ignore_case", false)? };
    let (elabel, ecells) = match notebook(input, eg, Side::Expected)? {
        Ok(n) => n,
        Err(s) => return Ok(s),
    };
    let (rlabel, rcells) = match notebook(input, rg, Side::Result)? {
        Ok(n) => n,
        Err(s) => return Ok(s),
    };
    let want = items(&ecells, which, &types, &o);
    let got = items(&rcells, which, &types, &o);
    let what = match which {
        Which::Cells => "cells",
        Which::Outputs => "code cells' outputs",
        Which::Both => "cells and code cells' outputs",
    };
    let out = Scored::new(0.0)
        .with("result", rlabel.into())
        .with("expected", elabel.into())
        .with("compared", what.into())
        .with("cells_result", Value::int(got.len() as i64))
        .with("cells_expected", Value::int(want.len() as i64));
    let noun = if which == Which::Outputs { "code cells" } else { "cells" };
    for k in 0..want.len().max(got.len()) {
        let (w, g) = match (want.get(k), got.get(k)) {
            (Some(w), Some(g)) => (w, g),
            (Some(w), None) => {
                let reason = format!(
                    "the result has {} {}, {} expected: it has none for expected cell {} ({})",
                    got.len(),
                    noun,
                    want.len(),
                    w.index,
                    a_kind(&w.kind)
                );
                let d = object(vec![("expected_cell", Value::int(w.index as i64)), ("actual_cell", Value::Null)]);
                return Ok(out.with("reason", reason.into()).with("first_difference", d));
            }
            (None, Some(g)) => {
                let reason = format!(
                    "the result has {} {}, only {} expected: cell {} ({}) is extra",
                    got.len(),
                    noun,
                    want.len(),
                    g.index,
                    a_kind(&g.kind)
                );
                let d = object(vec![("expected_cell", Value::Null), ("actual_cell", Value::int(g.index as i64))]);
                return Ok(out.with("reason", reason.into()).with("first_difference", d));
            }
            (None, None) => break,
        };
        let at = if w.index == g.index {
            format!("cell {}", w.index)
        } else {
            format!("result cell {} (expected cell {})", g.index, w.index)
        };
        let mut d = Map::new();
        d.insert("expected_cell".into(), Value::int(w.index as i64));
        d.insert("actual_cell".into(), Value::int(g.index as i64));
        if w.kind != g.kind {
            d.insert("part".into(), "cell_type".into());
            d.insert("expected".into(), w.kind.as_str().into());
            d.insert("actual".into(), g.kind.as_str().into());
            let reason = format!("{} is {}, expected {}", at, a_kind(&g.kind), a_kind(&w.kind));
            return Ok(out.with("reason", reason.into()).with("first_difference", Value::Object(d)));
        }
        for ((part, wt), (_, gt)) in w.parts.iter().zip(g.parts.iter()) {
            if wt == gt {
                continue;
            }
            let (wl, gl) = (text_lines(wt), text_lines(gt));
            let n = (0..wl.len().max(gl.len())).find(|&i| wl.get(i) != gl.get(i)).unwrap_or(0);
            let (x, y) = (wl.get(n).copied(), gl.get(n).copied());
            d.insert("part".into(), (*part).into());
            d.insert("line".into(), Value::int(n as i64 + 1));
            d.insert("expected".into(), text_or_null(x));
            d.insert("actual".into(), text_or_null(y));
            let show = |s: Option<&str>| s.map_or("nothing (the text ends)".to_string(), |s| quote(&clip(s)));
            let reason = format!("{}'s {}, line {}: expected {}, got {}", at, part, n + 1, show(x), show(y));
            return Ok(out.with("reason", reason.into()).with("first_difference", Value::Object(d)));
        }
    }
    Ok(Scored { score: 1.0, ..out })
}

pub fn single(input: &EvaluateInput, which: Which) -> Outcome {
    let a = args(input)?;
    let (rg, eg) = a.pair()?;
    compare_pair(input, rg, eg, which, &a.options)
}

/// The most indices a details list quotes.
const LIST: usize = 50;

fn indices_value(v: &[usize]) -> Value {
    Value::Array(v.iter().take(LIST).map(|&i| Value::int(i as i64)).collect())
}

pub fn is_executed(input: &EvaluateInput) -> Outcome {
    let a = args(input)?;
    let opts = Opts::new(&a.options, &["indices", "require_outputs"])?;
    let indices = opts.indices("indices")?;
    let require_outputs = opts.bool("require_outputs", true)?;
    let (label, cells) = match notebook(input, a.one_result()?, Side::Result)? {
        Ok(n) => n,
        Err(s) => return Ok(s),
    };
    let out = Scored::new(0.0).with("result", label.into());
    let targets: Vec<&Cell> = match &indices {
        Some(ix) => {
            let mut t = Vec::new();
            for &i in ix {
                match cells.get(i) {
                    None => return Ok(out.with("reason", format!("the notebook has {} cells, no cell {}", cells.len(), i).into())),
                    Some(c) if c.kind != "code" => {
                        return Ok(out.with("reason", format!("cell {} is {}, not a code cell", i, a_kind(&c.kind)).into()))
                    }
                    Some(c) => t.push(c),
                }
            }
            t
        }
        None => cells.iter().filter(|c| c.kind == "code" && !c.source.trim().is_empty()).collect(),
    };
    if targets.is_empty() {
        let why = if indices.is_some() { "no cell indices were given" } else { "the notebook has no code cells with code in them" };
        return Ok(out.with("reason", why.into()));
    }
    let mut not_run = Vec::new();
    let mut first = String::new();
    for c in &targets {
        let why = if c.count.is_none() {
            "has not been run (its execution_count is null)"
        } else if require_outputs && c.outputs.is_empty() {
            "has no outputs"
        } else {
            continue;
        };
        if first.is_empty() {
            first = format!("cell {} {}", c.index, why);
        }
        not_run.push(c.index);
    }
    let out = out.with("checked", Value::int(targets.len() as i64)).with("not_executed", indices_value(&not_run));
    if not_run.is_empty() {
        return Ok(Scored { score: 1.0, ..out });
    }
    let reason = format!("{} of {} checked code cells are not executed; {}", not_run.len(), targets.len(), first);
    Ok(out.with("reason", reason.into()))
}

pub fn are_cleared(input: &EvaluateInput) -> Outcome {
    let a = args(input)?;
    Opts::new(&a.options, &[])?;
    let (label, cells) = match notebook(input, a.one_result()?, Side::Result)? {
        Ok(n) => n,
        Err(s) => return Ok(s),
    };
    let mut left = Vec::new();
    let mut first = String::new();
    for c in cells.iter().filter(|c| c.kind == "code") {
        let why = match (&c.count, c.outputs.len()) {
            (None, 0) => continue,
            (Some(n), 0) => format!("keeps its execution_count {}", n),
            (_, k) => format!("keeps {} output{}", k, if k == 1 { "" } else { "s" }),
        };
        if first.is_empty() {
            first = format!("cell {} {}", c.index, why);
        }
        left.push(c.index);
    }
    let out = Scored::new(0.0).with("result", label.into()).with("not_cleared", indices_value(&left));
    if left.is_empty() {
        return Ok(Scored { score: 1.0, ..out });
    }
    let reason = format!("{} code cells are not cleared; {}", left.len(), first);
    Ok(out.with("reason", reason.into()))
}

const PAIR_FUNCTIONS: &[&str] = &["compare_ipynb_files", "compare_notebook_cells", "compare_notebook_outputs"];

pub fn multiple(input: &EvaluateInput) -> Outcome {
    let a = args(input)?;
    // conj and compare are this function's; the rest go to the function
    // that compares each pair, which checks them.
    let mut rest = a.options.clone();
    let mine: Map = ["conj", "compare"].iter().filter_map(|k| rest.remove(*k).map(|v| (k.to_string(), v))).collect();
    let opts = Opts::new(&mine, &["conj", "compare"])?;
    let conj = opts.choice("conj", &["and", "or"], "and")?;
    let compare = opts.choice("compare", PAIR_FUNCTIONS, "compare_ipynb_files")?;
    let which = match compare.as_str() {
        "compare_notebook_cells" => Which::Cells,
        "compare_notebook_outputs" => Which::Outputs,
        _ => Which::Both,
    };
    if a.result.is_empty() {
        return Err("arguments.result is missing: this function takes a list of getters".into());
    }
    if a.result.len() != a.expected.len() {
        return Err(format!(
            "arguments.result lists {} getters and arguments.expected {}: they are compared in pairs",
            a.result.len(),
            a.expected.len()
        ));
    }
    if a.result.len() > MAX_ITEMS {
        return Err(format!("more than {} pairs", MAX_ITEMS));
    }
    let mut scores = Vec::new();
    let mut pairs = Vec::new();
    for (i, (rg, eg)) in a.result.iter().zip(a.expected.iter()).enumerate() {
        let s = compare_pair(input, rg, eg, which, &rest).map_err(|e| format!("pair {}: {}", i, e))?;
        scores.push(s.score);
        let mut d = s.details;
        d.insert("score".into(), Value::Float(s.score));
        pairs.push(Value::Object(d));
    }
    let score = if conj == "or" {
        scores.iter().cloned().fold(0.0, f64::max)
    } else if scores.iter().any(|&s| s == 0.0) {
        0.0
    } else {
        scores.iter().sum::<f64>() / scores.len() as f64
    };
    let mut out = Scored::new(score).with("conj", conj.as_str().into()).with("compare", compare.as_str().into());
    if score < 1.0 {
        let failed: Vec<String> = scores.iter().enumerate().filter(|(_, &s)| s < 1.0).map(|(i, _)| i.to_string()).collect();
        let reason = if failed.len() == 1 {
            format!("pair {} does not match", failed[0])
        } else {
            format!("pairs {} do not match", failed.join(", "))
        };
        out = out.with("reason", reason.into());
    }
    Ok(out.with("pairs", Value::Array(pairs)))
}
