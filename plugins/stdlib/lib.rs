//! wasmeval's evaluation standard library: the comparison functions that
//! computer-use and notebook benchmarks name in their task specs, as one
//! evaluator plugin. The call contract, every function's rule and its
//! options are in README.md next to this file.
//!
//! Inputs come from agents and task authors alike and are untrusted: no
//! function panics (a panic traps the plugin and the task loses its
//! detail), and the work of every function is bounded (MAX_ITEMS rows,
//! lines or cells; patterns capped in pattern.rs).
//!
//! Build: `task plugins` (Rust with rustc, see plugins/pluginbuild).

use wasmeval::*;

mod csvcmp;
mod notebook;
mod pattern;
mod textcmp;

/// The most rows, cells or lines a function looks at in one file: beyond
/// it the function refuses the file rather than spend the call's time.
pub const MAX_ITEMS: usize = 100_000;

/// The functions, in the order the describe output and messages list them.
const FUNCTIONS: &[&str] = &[
    "compare_csv",
    "compare_text_file",
    "compare_script_logs",
    "check_include_exclude",
    "compare_notebook_cells",
    "compare_notebook_outputs",
    "compare_ipynb_files",
    "is_jupyter_cell_executed",
    "are_jupyter_outputs_cleared",
    "evaluate_multiple_notebooks",
];

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn info() -> Describe {
    let mut d = Describe::new("wasmeval-stdlib", "1.0.0", &["evaluator"]);
    d.functions = FUNCTIONS.iter().map(|f| f.to_string()).collect();
    d.description = "The evaluation standard library: CSV, text, log and Jupyter notebook comparisons dispatched by name.".into();
    d
}

// The exports exist only in the Wasm build; natively the crate is plain
// code (the SDK's entry points are wasm32-only).
#[cfg(target_arch = "wasm32")]
mod exports {
    use wasmeval::*;
    describe!(super::info());
    evaluator!(super::evaluate);
}

/// A function's verdict: its score and what it compared.
pub struct Scored {
    pub score: f64,
    pub details: Map,
}

impl Scored {
    pub fn new(score: f64) -> Scored {
        Scored { score, details: Map::new() }
    }
    pub fn with(mut self, k: &str, v: Value) -> Scored {
        self.details.insert(k.to_string(), v);
        self
    }
    /// A zero with the reason why.
    pub fn zero(reason: String) -> Scored {
        Scored::new(0.0).with("reason", reason.into())
    }
}

/// Err is the evaluation could not run: the output's `error`.
pub type Outcome = Result<Scored, String>;

pub fn evaluate(input: EvaluateInput) -> Result<EvaluateOutput, String> {
    let function = input.function.clone();
    let r = match function.as_str() {
        "compare_csv" => csvcmp::compare_csv(&input),
        "compare_text_file" => textcmp::compare_text_file(&input),
        "compare_script_logs" => textcmp::compare_script_logs(&input),
        "check_include_exclude" => textcmp::check_include_exclude(&input),
        "compare_notebook_cells" => notebook::single(&input, notebook::Which::Cells),
        "compare_notebook_outputs" => notebook::single(&input, notebook::Which::Outputs),
        "compare_ipynb_files" => notebook::single(&input, notebook::Which::Both),
        "is_jupyter_cell_executed" => notebook::is_executed(&input),
        "are_jupyter_outputs_cleared" => notebook::are_cleared(&input),
        "evaluate_multiple_notebooks" => notebook::multiple(&input),
        f => Err(format!("unknown function {} (this library has {})", quote(f), FUNCTIONS.join(", "))),
    };
    Ok(match r {
        Ok(s) => {
            let score = if s.score.is_finite() { s.score.max(0.0).min(1.0) } else { 0.0 };
            EvaluateOutput { score, details: Value::Object(s.details), ..Default::default() }
        }
        Err(e) if function.is_empty() || e.starts_with("unknown function") => EvaluateOutput { error: e, ..Default::default() },
        Err(e) => EvaluateOutput { error: format!("{}: {}", function, e), ..Default::default() },
    })
}

/// The call's arguments: result and expected getters (a single getter is
/// a list of one) and the options.
pub struct Args<'a> {
    pub result: Vec<&'a Value>,
    pub expected: Vec<&'a Value>,
    pub options: Map,
}

pub fn args(input: &EvaluateInput) -> Result<Args<'_>, String> {
    for k in input.arguments.keys() {
        if k != "result" && k != "expected" && k != "options" {
            return Err(format!("unknown argument {} (the arguments are result, expected and options)", quote(k)));
        }
    }
    let list = |k: &str| -> Vec<&Value> {
        match input.arguments.get(k) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.iter().collect(),
            Some(v) => vec![v],
        }
    };
    let options = match input.arguments.get("options") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(v) => return Err(format!("arguments.options is {}, expected an object", kind(v))),
    };
    Ok(Args { result: list("result"), expected: list("expected"), options })
}

impl<'a> Args<'a> {
    /// The one result and the one expected getter of a function that
    /// compares two files.
    pub fn pair(&self) -> Result<(&'a Value, &'a Value), String> {
        Ok((self.one_result()?, one(&self.expected, "expected")?))
    }
    pub fn one_result(&self) -> Result<&'a Value, String> {
        one(&self.result, "result")
    }
}

fn one<'a>(list: &[&'a Value], what: &str) -> Result<&'a Value, String> {
    match list.len() {
        1 => Ok(list[0]),
        0 => Err(format!("arguments.{} is missing: this function takes one getter", what)),
        n => Err(format!("arguments.{} lists {} getters: this function takes one", what, n)),
    }
}

/// The JSON type of a value, for messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) | Value::Float(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        _ => "an object",
    }
}

/// Which side of the comparison a getter is on: a missing result file is
/// the agent's failure (score 0), a missing expected file the task's
/// (an error).
#[derive(Clone, Copy, PartialEq)]
pub enum Side {
    Result,
    Expected,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Result => "result",
            Side::Expected => "expected",
        }
    }
}

/// What a getter names once read.
pub enum Got {
    /// A file's text, with a label naming it (`vm_file "out.csv"`).
    Text(String, String),
    /// The result file the agent did not leave behind (its label).
    Missing(String),
    /// A rule's literal value.
    Rule(Value),
}

const GETTER_TYPES: &str = "vm_file, command_output, task_file, rule";

/// Reads one getter.
pub fn get(input: &EvaluateInput, g: &Value, side: Side) -> Result<Got, String> {
    let m = match g {
        Value::Object(m) => m,
        v => return Err(format!("the {} getter is {}, expected an object with a type", side.name(), kind(v))),
    };
    let t = match m.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(v) => return Err(format!("the {} getter's type is {}, expected one of {}", side.name(), kind(v), GETTER_TYPES)),
        None => return Err(format!("the {} getter has no type (one of {})", side.name(), GETTER_TYPES)),
    };
    if t == "rule" {
        return match m.get("rules") {
            Some(v) => Ok(Got::Rule(v.clone())),
            None => Err(format!("the {} rule getter has no rules", side.name())),
        };
    }
    let path = match m.get("path") {
        Some(Value::String(p)) if !p.is_empty() => p.as_str(),
        Some(v) if !v.is_null() => return Err(format!("the {} {} getter's path is {}, expected a string", side.name(), t, kind(v))),
        _ => return Err(format!("the {} {} getter has no path", side.name(), t)),
    };
    let label = format!("{} {}", t, quote(path));
    match t {
        "vm_file" | "command_output" => {
            let file = input.actual.as_ref().and_then(|a| a.files.get(path)).filter(|v| !v.is_null());
            match file {
                Some(Value::String(s)) => Ok(Got::Text(label, s.clone())),
                Some(v) => Err(format!("{} came back as {}, expected its text", label, kind(v))),
                None if side == Side::Result => Ok(Got::Missing(label)),
                None => Err(format!("the expected {} does not exist", label)),
            }
        }
        "task_file" => match read(path) {
            Some(bytes) => match String::from_utf8(bytes) {
                Ok(s) => Ok(Got::Text(label, s)),
                Err(_) => Err(format!("the {} {} is not UTF-8 text", side.name(), label)),
            },
            None => Err(format!(
                "the {} {} could not be read (it does not exist, or is outside the task's directory)",
                side.name(),
                label
            )),
        },
        t => Err(format!("the {} getter's type {} is unknown (one of {})", side.name(), quote(t), GETTER_TYPES)),
    }
}

#[cfg(target_arch = "wasm32")]
fn read(path: &str) -> Option<Vec<u8>> {
    read_asset(path)
}

#[cfg(not(target_arch = "wasm32"))]
fn read(_path: &str) -> Option<Vec<u8>> {
    None
}

/// A getter's text: a file's, or a rule's (`"rules": "text"` or
/// `"rules": {"expected": "text"}`). Ok(Err(scored)) is the score to give
/// when the result file is missing.
pub fn text_of(input: &EvaluateInput, g: &Value, side: Side) -> Result<Result<(String, String), Scored>, String> {
    match get(input, g, side)? {
        Got::Text(label, text) => Ok(Ok((label, text))),
        Got::Missing(label) => Ok(Err(missing(&label))),
        Got::Rule(v) => {
            let text = match &v {
                Value::String(s) => s.clone(),
                Value::Object(m) => match m.get("expected") {
                    Some(Value::String(s)) => s.clone(),
                    _ => return Err(format!("the {} rule gives no text (rules must be a string or {{\"expected\": string}})", side.name())),
                },
                _ => return Err(format!("the {} rule gives no text (rules must be a string or {{\"expected\": string}})", side.name())),
            };
            Ok(Ok(("rule".to_string(), text)))
        }
    }
}

/// The score for a result file the agent did not leave.
pub fn missing(label: &str) -> Scored {
    Scored::zero(format!("the result {} does not exist", label)).with("result", label.into())
}

/// A function's options, checked against the names it takes.
pub struct Opts<'a> {
    m: &'a Map,
}

impl<'a> Opts<'a> {
    pub fn new(m: &'a Map, known: &[&str]) -> Result<Opts<'a>, String> {
        for k in m.keys() {
            if !known.contains(&k.as_str()) {
                let takes = if known.is_empty() { "no options".to_string() } else { format!("the options {}", known.join(", ")) };
                return Err(format!("unknown option {} (this function takes {})", quote(k), takes));
            }
        }
        Ok(Opts { m })
    }
    fn present(&self, k: &str) -> Option<&'a Value> {
        self.m.get(k).filter(|v| !v.is_null())
    }
    pub fn bool(&self, k: &str, default: bool) -> Result<bool, String> {
        match self.present(k) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(format!("option {} is {}, expected true or false", k, kind(v))),
        }
    }
    /// A number of at least 0, when given.
    pub fn number(&self, k: &str) -> Result<Option<f64>, String> {
        match self.present(k) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(f) if f.is_finite() && f >= 0.0 => Ok(Some(f)),
                _ => Err(format!("option {} is {}, expected a number of at least 0", k, brief_value(v))),
            },
        }
    }
    pub fn choice(&self, k: &str, allowed: &[&str], default: &str) -> Result<String, String> {
        match self.present(k) {
            None => Ok(default.to_string()),
            Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(s.clone()),
            Some(v) => Err(format!("option {} is {}, expected one of {}", k, brief_value(v), allowed.join(", "))),
        }
    }
    pub fn strings(&self, k: &str) -> Result<Option<Vec<String>>, String> {
        match self.present(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
            Some(Value::Array(a)) => {
                let mut out = Vec::new();
                for (i, v) in a.iter().enumerate() {
                    match v {
                        Value::String(s) => out.push(s.clone()),
                        v => return Err(format!("option {}[{}] is {}, expected a string", k, i, kind(v))),
                    }
                }
                Ok(Some(out))
            }
            Some(v) => Err(format!("option {} is {}, expected a list of strings", k, kind(v))),
        }
    }
    pub fn indices(&self, k: &str) -> Result<Option<Vec<usize>>, String> {
        let a = match self.present(k) {
            None => return Ok(None),
            Some(Value::Array(a)) => a,
            Some(v) => return Err(format!("option {} is {}, expected a list of cell indices", k, kind(v))),
        };
        let mut out = Vec::new();
        for (i, v) in a.iter().enumerate() {
            match v.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= MAX_ITEMS as f64 => out.push(f as usize),
                _ => return Err(format!("option {}[{}] is {}, expected a cell index (an integer from 0)", k, i, brief_value(v))),
            }
        }
        Ok(Some(out))
    }
}

/// A short rendering of a value for messages.
pub fn brief_value(v: &Value) -> String {
    match v {
        Value::String(s) => quote(&clip(s)),
        Value::Number(n) => clip(n),
        Value::Float(f) => f.to_string(),
        v => kind(v).to_string(),
    }
}

/// The most characters of a compared string that details quote.
const CLIP: usize = 200;

/// s cut to CLIP bytes (on a character boundary), marked when cut.
pub fn clip(s: &str) -> String {
    if s.len() <= CLIP {
        return s.to_string();
    }
    let mut cut = CLIP;
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &s[..cut])
}

/// A clipped string, or null for nothing (a line past the end).
pub fn text_or_null(s: Option<&str>) -> Value {
    match s {
        Some(s) => Value::String(clip(s)),
        None => Value::Null,
    }
}

/// Text as lines: a CRLF line end is read as LF, a leading byte order
/// mark is dropped, and one line break at the very end ends the last line
/// rather than starting another (so "a\n" and "a" are both one line).
pub fn lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.strip_suffix('\n').unwrap_or(text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()
}

/// Lowercases with Unicode's simple mapping, as the engine does.
pub fn lower(s: &str) -> String {
    s.chars().map(lower_char).collect()
}
