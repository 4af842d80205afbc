//! Typed models of every ABI envelope, decoded from and encoded to the
//! shared JSON model with the ABI's rules: absent or null fields take the
//! zero value; a field of the wrong type is an error naming its path.

use crate::compare::child_path;
use crate::json::{parse, Map, Value};
use std::collections::BTreeMap;

pub const ABI_VERSION: i64 = 1;

/// What `describe` returns.
#[derive(Clone, Debug, Default)]
pub struct Describe {
    pub abi_version: i64,
    pub name: String,
    pub version: String,
    pub kinds: Vec<String>,
    pub functions: Vec<String>,
    pub stateful: bool,
    pub config_schema: Value,
    pub description: String,
    pub transport: String,
    /// The exports with a batch form (verify, evaluate, test). None (the
    /// default) announces the batch export of every such kind the plugin
    /// declares, which the kind macros (verifier!, evaluator!,
    /// test_function!) export; set it only for exports written by hand
    /// (Some(vec![]) for none).
    pub batch: Option<Vec<String>>,
}

impl Describe {
    pub fn new(name: &str, version: &str, kinds: &[&str]) -> Describe {
        Describe {
            abi_version: ABI_VERSION,
            name: name.to_string(),
            version: version.to_string(),
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
            ..Default::default()
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct InputFile {
    pub path: String,
    pub content: String,
    pub encoding: String,
}

/// A test case as plugins see it.
#[derive(Clone, Debug, Default)]
pub struct Case {
    pub id: String,
    pub checkpoint: String,
    pub group: String,
    pub group_type: String,
    pub arguments: Vec<String>,
    pub stdin: Option<String>,
    pub env: BTreeMap<String, String>,
    pub input_files: Vec<InputFile>,
    pub tracked_files: Vec<String>,
    pub expected: Map,
    pub timeout_s: f64,
    pub reset: bool,
    pub extra: Map,
}

/// What a case produced.
#[derive(Clone, Debug, Default)]
pub struct Actual {
    pub status_code: i64,
    pub output: String,
    pub stderr: String,
    pub files: Map,
    pub timed_out: bool,
}

#[derive(Clone, Debug, Default)]
pub struct VerifyInput {
    pub abi_version: i64,
    pub config: Map,
    pub case: Case,
    pub actual: Actual,
    pub expected: Map,
}

/// One difference at one location.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffEntry {
    pub path: String,
    pub op: String,
    /// Null means absent (as in the engine's diffs).
    pub expected: Value,
    pub actual: Value,
}

/// A structured difference: summary plus entries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diff {
    pub summary: String,
    pub entries: Vec<DiffEntry>,
    pub unified: String,
    pub truncated: bool,
}

/// One attribute verdict, the shape built-in checks give.
#[derive(Clone, Debug, Default)]
pub struct Attribute {
    pub attribute: String,
    pub actual: Value,
    pub expected: Value,
    pub diff: Option<Diff>,
    pub is_correct: bool,
    pub weight: f64,
}

#[derive(Clone, Debug, Default)]
pub struct VerifyOutput {
    pub attributes: Vec<Attribute>,
    /// A deliberate verdict: the case cannot be verified.
    pub error: String,
}

#[derive(Clone, Debug, Default)]
pub struct GroupInfo {
    pub checkpoint: String,
    pub group: String,
    pub group_type: String,
    pub case_group: String,
    pub case_order: Vec<String>,
    pub timeout_s: f64,
}

/// An earlier case with its actual result.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub case: Case,
    pub actual: Actual,
}

#[derive(Clone, Debug, Default)]
pub struct LoadInput {
    pub abi_version: i64,
    pub config: Map,
    pub group: GroupInfo,
    pub history: Vec<Outcome>,
}

#[derive(Clone, Debug, Default)]
pub struct LoadOutput {
    pub cases: Vec<Case>,
    pub done: bool,
    pub error: String,
}

#[derive(Clone, Debug, Default)]
pub struct EvaluateInput {
    pub abi_version: i64,
    pub config: Map,
    pub function: String,
    pub arguments: Map,
    pub case: Option<Case>,
    pub actual: Option<Actual>,
    pub expected: Map,
}

#[derive(Clone, Debug, Default)]
pub struct EvaluateOutput {
    pub score: f64,
    /// Null means no details.
    pub details: Value,
    pub error: String,
}

#[derive(Clone, Debug, Default)]
pub struct ToolCall {
    pub name: String,
    pub arguments: Value,
}

/// One turn of an agent's conversation.
#[derive(Clone, Debug, Default)]
pub struct Message {
    pub role: String,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub name: String,
}

/// An agent run, judged by a test function.
#[derive(Clone, Debug, Default)]
pub struct AgentRun {
    pub task_result: Value,
    pub conversation: Vec<Message>,
    pub execution_trace: Vec<Value>,
    pub status: String,
    pub instruction: String,
    pub iterations: i64,
    pub sandbox: Value,
}

#[derive(Clone, Debug, Default)]
pub struct TestInput {
    pub abi_version: i64,
    pub config: Map,
    pub result: AgentRun,
}

#[derive(Clone, Debug, Default)]
pub struct TestOutput {
    pub passed: bool,
    pub feedback: String,
    pub details: Value,
}

/// The JSON type of a value with its article, as messages name it.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::String(_) => "a string",
        Value::Number(_) | Value::Float(_) => "a number",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Decodes with the first shape error remembered, visiting fields in the
/// same order as every other SDK so the message is the same.
struct Decoder {
    err: Option<String>,
}

impl Decoder {
    fn bad(&mut self, path: &str, v: &Value, want: &str) {
        if self.err.is_none() {
            self.err = Some(format!("{} is {}, expected {}", path, type_name(v), want));
        }
    }
    fn obj<'a>(&mut self, path: &str, v: &'a Value) -> Option<&'a Map> {
        match v {
            Value::Null => None,
            Value::Object(m) => Some(m),
            _ => {
                self.bad(path, v, "an object");
                None
            }
        }
    }
    fn map(&mut self, path: &str, v: &Value) -> Map {
        self.obj(path, v).cloned().unwrap_or_default()
    }
    fn string(&mut self, path: &str, v: &Value) -> String {
        match v {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            _ => {
                self.bad(path, v, "a string");
                String::new()
            }
        }
    }
    fn boolean(&mut self, path: &str, v: &Value) -> bool {
        match v {
            Value::Null => false,
            Value::Bool(b) => *b,
            _ => {
                self.bad(path, v, "a boolean");
                false
            }
        }
    }
    fn float(&mut self, path: &str, v: &Value) -> f64 {
        match v {
            Value::Null => 0.0,
            Value::Number(_) | Value::Float(_) => v.as_f64().unwrap_or(0.0),
            _ => {
                self.bad(path, v, "a number");
                0.0
            }
        }
    }
    fn integer(&mut self, path: &str, v: &Value) -> i64 {
        let f = self.float(path, v);
        if f != f.trunc() || f.abs() > 9007199254740992.0 {
            if self.err.is_none() {
                self.err = Some(format!("{} is a number, expected an integer", path));
            }
            return 0;
        }
        f as i64
    }
    fn arr<'a>(&mut self, path: &str, v: &'a Value) -> &'a [Value] {
        match v {
            Value::Null => &[],
            Value::Array(a) => a,
            _ => {
                self.bad(path, v, "an array");
                &[]
            }
        }
    }
    fn strs(&mut self, path: &str, v: &Value) -> Vec<String> {
        let a = self.arr(path, v);
        let mut out = Vec::with_capacity(a.len());
        for (i, x) in a.iter().enumerate() {
            out.push(self.string(&format!("{}[{}]", path, i), x));
        }
        out
    }
    fn case(&mut self, path: &str, v: &Value) -> Case {
        let mut c = Case::default();
        let m = match self.obj(path, v) {
            Some(m) => m,
            None => return c,
        };
        let f = |k: &str| m.get(k).unwrap_or(&crate::json::NULL);
        c.id = self.string(&format!("{}.id", path), f("id"));
        c.checkpoint = self.string(&format!("{}.checkpoint", path), f("checkpoint"));
        c.group = self.string(&format!("{}.group", path), f("group"));
        c.group_type = self.string(&format!("{}.group_type", path), f("group_type"));
        c.arguments = self.strs(&format!("{}.arguments", path), f("arguments"));
        if !f("stdin").is_null() {
            c.stdin = Some(self.string(&format!("{}.stdin", path), f("stdin")));
        }
        let env_path = format!("{}.env", path);
        if let Some(env) = self.obj(&env_path, f("env")) {
            for (k, x) in env {
                let s = self.string(&child_path(&env_path, k), x);
                c.env.insert(k.clone(), s);
            }
        }
        let files_path = format!("{}.input_files", path);
        for (i, x) in self.arr(&files_path, f("input_files")).iter().enumerate() {
            let p = format!("{}[{}]", files_path, i);
            let fm = self.obj(&p, x);
            let g = |k: &str| field(fm, k);
            c.input_files.push(InputFile {
                path: self.string(&format!("{}.path", p), g("path")),
                content: self.string(&format!("{}.content", p), g("content")),
                encoding: self.string(&format!("{}.encoding", p), g("encoding")),
            });
        }
        c.tracked_files = self.strs(&format!("{}.tracked_files", path), f("tracked_files"));
        c.expected = self.map(&format!("{}.expected", path), f("expected"));
        c.timeout_s = self.float(&format!("{}.timeout_s", path), f("timeout_s"));
        c.reset = self.boolean(&format!("{}.reset", path), f("reset"));
        c.extra = self.map(&format!("{}.extra", path), f("extra"));
        c
    }
    fn actual(&mut self, path: &str, v: &Value) -> Actual {
        let mut a = Actual::default();
        let m = match self.obj(path, v) {
            Some(m) => m,
            None => return a,
        };
        let f = |k: &str| m.get(k).unwrap_or(&crate::json::NULL);
        a.status_code = self.integer(&format!("{}.status_code", path), f("status_code"));
        a.output = self.string(&format!("{}.output", path), f("output"));
        a.stderr = self.string(&format!("{}.stderr", path), f("stderr"));
        a.files = self.map(&format!("{}.files", path), f("files"));
        a.timed_out = self.boolean(&format!("{}.timed_out", path), f("timed_out"));
        a
    }
    fn top<'a>(&mut self, v: &'a Value) -> Option<&'a Map> {
        match v {
            Value::Object(m) => Some(m),
            _ => {
                self.bad("$", v, "an object");
                None
            }
        }
    }
    fn done<T>(self, t: T) -> Result<T, String> {
        match self.err {
            Some(e) => Err(e),
            None => Ok(t),
        }
    }
}

fn field<'a>(m: Option<&'a Map>, k: &str) -> &'a Value {
    m.and_then(|m| m.get(k)).unwrap_or(&crate::json::NULL)
}

fn parsed(data: &[u8]) -> Result<Value, String> {
    parse(data).map_err(|e| e.to_string())
}

impl VerifyInput {
    /// Decodes a verify input envelope.
    pub fn decode(data: &[u8]) -> Result<VerifyInput, String> {
        let v = parsed(data)?;
        let mut d = Decoder { err: None };
        let m = d.top(&v);
        let in_ = VerifyInput {
            abi_version: d.integer("$.abi_version", field(m, "abi_version")),
            config: d.map("$.config", field(m, "config")),
            case: d.case("$.case", field(m, "case")),
            actual: d.actual("$.actual", field(m, "actual")),
            expected: d.map("$.expected", field(m, "expected")),
        };
        d.done(in_)
    }
}

impl LoadInput {
    /// Decodes a load_cases input envelope.
    pub fn decode(data: &[u8]) -> Result<LoadInput, String> {
        let v = parsed(data)?;
        let mut d = Decoder { err: None };
        let m = d.top(&v);
        let mut in_ = LoadInput {
            abi_version: d.integer("$.abi_version", field(m, "abi_version")),
            config: d.map("$.config", field(m, "config")),
            ..Default::default()
        };
        if let Some(g) = d.obj("$.group", field(m, "group")).map(Some) {
            in_.group = GroupInfo {
                checkpoint: d.string("$.group.checkpoint", field(g, "checkpoint")),
                group: d.string("$.group.group", field(g, "group")),
                group_type: d.string("$.group.group_type", field(g, "group_type")),
                case_group: d.string("$.group.case_group", field(g, "case_group")),
                case_order: d.strs("$.group.case_order", field(g, "case_order")),
                timeout_s: d.float("$.group.timeout_s", field(g, "timeout_s")),
            };
        }
        for (i, h) in d.arr("$.history", field(m, "history")).iter().enumerate() {
            let p = format!("$.history[{}]", i);
            let hm = d.obj(&p, h);
            let case = d.case(&format!("{}.case", p), field(hm, "case"));
            let actual = d.actual(&format!("{}.actual", p), field(hm, "actual"));
            in_.history.push(Outcome { case, actual });
        }
        d.done(in_)
    }
}

impl EvaluateInput {
    /// Decodes an evaluate input envelope.
    pub fn decode(data: &[u8]) -> Result<EvaluateInput, String> {
        let v = parsed(data)?;
        let mut d = Decoder { err: None };
        let m = d.top(&v);
        let mut in_ = EvaluateInput {
            abi_version: d.integer("$.abi_version", field(m, "abi_version")),
            config: d.map("$.config", field(m, "config")),
            function: d.string("$.function", field(m, "function")),
            arguments: d.map("$.arguments", field(m, "arguments")),
            expected: d.map("$.expected", field(m, "expected")),
            ..Default::default()
        };
        if !field(m, "case").is_null() {
            in_.case = Some(d.case("$.case", field(m, "case")));
        }
        if !field(m, "actual").is_null() {
            in_.actual = Some(d.actual("$.actual", field(m, "actual")));
        }
        d.done(in_)
    }
}

impl TestInput {
    /// Decodes a test input envelope.
    pub fn decode(data: &[u8]) -> Result<TestInput, String> {
        let v = parsed(data)?;
        let mut d = Decoder { err: None };
        let m = d.top(&v);
        let mut in_ = TestInput {
            abi_version: d.integer("$.abi_version", field(m, "abi_version")),
            config: d.map("$.config", field(m, "config")),
            ..Default::default()
        };
        if let Some(r) = d.obj("$.result", field(m, "result")).map(Some) {
            let run = &mut in_.result;
            run.task_result = field(r, "task_result").clone();
            run.status = d.string("$.result.status", field(r, "status"));
            run.instruction = d.string("$.result.instruction", field(r, "instruction"));
            run.iterations = d.integer("$.result.iterations", field(r, "iterations"));
            run.sandbox = field(r, "sandbox").clone();
            run.execution_trace = d.arr("$.result.execution_trace", field(r, "execution_trace")).to_vec();
            for (i, msg) in d.arr("$.result.conversation", field(r, "conversation")).iter().enumerate() {
                let p = format!("$.result.conversation[{}]", i);
                let mm = d.obj(&p, msg);
                let mut out = Message {
                    role: d.string(&format!("{}.role", p), field(mm, "role")),
                    content: d.string(&format!("{}.content", p), field(mm, "content")),
                    name: d.string(&format!("{}.name", p), field(mm, "name")),
                    ..Default::default()
                };
                for (j, tc) in d.arr(&format!("{}.tool_calls", p), field(mm, "tool_calls")).iter().enumerate() {
                    let tp = format!("{}.tool_calls[{}]", p, j);
                    let tm = d.obj(&tp, tc);
                    out.tool_calls.push(ToolCall {
                        name: d.string(&format!("{}.name", tp), field(tm, "name")),
                        arguments: field(tm, "arguments").clone(),
                    });
                }
                run.conversation.push(out);
            }
        }
        d.done(in_)
    }
}

fn put_str(m: &mut Map, k: &str, v: &str) {
    if !v.is_empty() {
        m.insert(k.to_string(), Value::String(v.to_string()));
    }
}

fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::String(s.clone())).collect())
}

/// Conversion of the output envelopes to the JSON model, with the ABI's
/// omission rules (optional fields left out when empty).
pub trait ToValue {
    fn to_value(&self) -> Value;
}

impl ToValue for Describe {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("abi_version".into(), Value::int(self.abi_version));
        m.insert("name".into(), self.name.as_str().into());
        m.insert("version".into(), self.version.as_str().into());
        m.insert("kinds".into(), strings(&self.kinds));
        if !self.functions.is_empty() {
            m.insert("functions".into(), strings(&self.functions));
        }
        if self.stateful {
            m.insert("stateful".into(), Value::Bool(true));
        }
        if let Some(b) = &self.batch {
            if !b.is_empty() {
                m.insert("batch".into(), strings(b));
            }
        }
        if !self.config_schema.is_null() {
            m.insert("config_schema".into(), self.config_schema.clone());
        }
        put_str(&mut m, "description", &self.description);
        put_str(&mut m, "transport", &self.transport);
        Value::Object(m)
    }
}

impl ToValue for Diff {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("summary".into(), self.summary.as_str().into());
        if !self.entries.is_empty() {
            let es = self
                .entries
                .iter()
                .map(|e| {
                    let mut em = Map::new();
                    em.insert("path".into(), e.path.as_str().into());
                    em.insert("op".into(), e.op.as_str().into());
                    if !e.expected.is_null() {
                        em.insert("expected".into(), e.expected.clone());
                    }
                    if !e.actual.is_null() {
                        em.insert("actual".into(), e.actual.clone());
                    }
                    Value::Object(em)
                })
                .collect();
            m.insert("entries".into(), Value::Array(es));
        }
        put_str(&mut m, "unified", &self.unified);
        if self.truncated {
            m.insert("truncated".into(), Value::Bool(true));
        }
        Value::Object(m)
    }
}

impl ToValue for Attribute {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("attribute".into(), self.attribute.as_str().into());
        m.insert("actual".into(), self.actual.clone());
        m.insert("expected".into(), self.expected.clone());
        if let Some(d) = &self.diff {
            m.insert("diff".into(), d.to_value());
        }
        m.insert("is_correct".into(), Value::Bool(self.is_correct));
        m.insert("weight".into(), Value::Float(self.weight));
        Value::Object(m)
    }
}

impl ToValue for VerifyOutput {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("attributes".into(), Value::Array(self.attributes.iter().map(|a| a.to_value()).collect()));
        put_str(&mut m, "error", &self.error);
        Value::Object(m)
    }
}

impl ToValue for Case {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), self.id.as_str().into());
        m.insert("arguments".into(), strings(&self.arguments));
        put_str(&mut m, "checkpoint", &self.checkpoint);
        put_str(&mut m, "group", &self.group);
        put_str(&mut m, "group_type", &self.group_type);
        if let Some(s) = &self.stdin {
            m.insert("stdin".into(), s.as_str().into());
        }
        if !self.env.is_empty() {
            let env = self.env.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
            m.insert("env".into(), Value::Object(env));
        }
        if !self.input_files.is_empty() {
            let fs = self
                .input_files
                .iter()
                .map(|f| {
                    let mut fm = Map::new();
                    fm.insert("path".into(), f.path.as_str().into());
                    fm.insert("content".into(), f.content.as_str().into());
                    put_str(&mut fm, "encoding", &f.encoding);
                    Value::Object(fm)
                })
                .collect();
            m.insert("input_files".into(), Value::Array(fs));
        }
        if !self.tracked_files.is_empty() {
            m.insert("tracked_files".into(), strings(&self.tracked_files));
        }
        if !self.expected.is_empty() {
            m.insert("expected".into(), Value::Object(self.expected.clone()));
        }
        if self.timeout_s != 0.0 {
            m.insert("timeout_s".into(), Value::Float(self.timeout_s));
        }
        if self.reset {
            m.insert("reset".into(), Value::Bool(true));
        }
        if !self.extra.is_empty() {
            m.insert("extra".into(), Value::Object(self.extra.clone()));
        }
        Value::Object(m)
    }
}

impl ToValue for LoadOutput {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("cases".into(), Value::Array(self.cases.iter().map(|c| c.to_value()).collect()));
        m.insert("done".into(), Value::Bool(self.done));
        put_str(&mut m, "error", &self.error);
        Value::Object(m)
    }
}

impl ToValue for EvaluateOutput {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("score".into(), Value::Float(self.score));
        if !self.details.is_null() {
            m.insert("details".into(), self.details.clone());
        }
        put_str(&mut m, "error", &self.error);
        Value::Object(m)
    }
}

impl ToValue for TestOutput {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("passed".into(), Value::Bool(self.passed));
        m.insert("feedback".into(), self.feedback.as_str().into());
        if !self.details.is_null() {
            m.insert("details".into(), self.details.clone());
        }
        Value::Object(m)
    }
}
