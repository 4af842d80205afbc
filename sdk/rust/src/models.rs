//! Typed models of every ABI envelope, decoded from and encoded to the
//! shared JSON model with the ABI's rules: absent or null fields take the
//! zero value; a field of the wrong type is an error naming its path.

use crate::compare::child_path;
use crate::json::{byte, encode_bytes, parse_members, parse_members_at, quote_bytes, write_float, Map, Member, Members, Value};
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
    /// The requests the problem's mock services received during the case,
    /// in order (see `MockCall`).
    pub mock_calls: Vec<MockCall>,
}

/// One request a mock service received in a case, kept as evidence of what
/// the submission sent and what it got back. Header names are lowercase;
/// the body is `body` when it is UTF-8 text, else `body_base64`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MockCall {
    pub mock: String,
    pub method: String,
    pub path: String,
    pub query: BTreeMap<String, Vec<String>>,
    pub headers: BTreeMap<String, Vec<String>>,
    pub body: String,
    pub body_base64: String,
    /// What the submission got back.
    pub status: i64,
    /// The index of the declarative route that answered (-1: none
    /// matched, or a plugin answered).
    pub route: i64,
    /// No route matched, and the request was answered 501.
    pub unmatched: bool,
    /// Why the mock could not answer (its plugin faulted).
    pub fault: String,
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
    /// Why the plugin cannot judge this case at all (no reference answer,
    /// a case outside what it checks); empty when it judged it. When set,
    /// the case is unscored: neither passed nor failed, and left out of
    /// every denominator. Written as `unscored`, after `error`.
    pub unscored: String,
}

/// The group a loader is asked for: `checkpoint` and `group` are the group
/// being run, the `origin_*` fields and `dir` where its cases come from.
#[derive(Clone, Debug, Default)]
pub struct GroupInfo {
    pub checkpoint: String,
    pub group: String,
    pub group_type: String,
    pub case_group: String,
    pub case_order: Vec<String>,
    pub timeout_s: f64,
    /// The checkpoint whose cases the group runs: the earlier checkpoint
    /// for a regression group, `checkpoint` otherwise.
    pub origin_checkpoint: String,
    /// The group of `origin_checkpoint` whose cases the group runs: the
    /// earlier group for a regression group, `case_group` (the group's own
    /// name) otherwise.
    pub origin_group: String,
    /// The origin group's case directory relative to the problem directory,
    /// with `/` separators (`c1/core`; a group file is `dir` plus `.yaml`,
    /// `.yml` or `.json`), the path `read_asset` takes; empty when it is
    /// outside the problem directory.
    pub dir: String,
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
    /// The run's --seed, for loaders that generate cases (None without one).
    pub seed: Option<i64>,
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
    /// Why the function cannot judge this case, as VerifyOutput's
    /// `unscored`; empty when it judged it. The score is then not counted.
    pub unscored: String,
}

/// A tool invocation inside a message.
#[derive(Clone, Debug, Default)]
pub struct ToolCall {
    pub name: String,
    /// The parsed arguments; their text when they are not JSON.
    pub arguments: Value,
    /// The call's id; empty when the agent gave none.
    pub id: String,
    /// The arguments' text as the agent wrote it.
    pub raw_arguments: String,
    /// Why `raw_arguments` is not JSON; empty when it is.
    pub arguments_error: String,
}

/// What a tool returned for one call.
#[derive(Clone, Debug, Default)]
pub struct ToolResult {
    /// The id of the call answered.
    pub tool_call_id: String,
    /// The tool's name.
    pub name: String,
    /// The result's text.
    pub content: String,
    /// `content` parsed, when it is one JSON value; Null otherwise.
    pub json: Value,
    pub is_error: bool,
}

/// One turn of an agent's conversation.
#[derive(Clone, Debug, Default)]
pub struct Message {
    pub role: String,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub name: String,
    /// On a role "tool" message, the id of the call it answers.
    pub tool_call_id: String,
    /// The tool results the message carries.
    pub tool_results: Vec<ToolResult>,
}

/// An agent's answer and the rule that found it (see `find_answer`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    pub value: Value,
    /// One of the `RULE_…` names.
    pub rule: String,
}

/// The tokens and money an agent spent, as it reported them.
#[derive(Clone, Debug, Default)]
pub struct Usage {
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
    /// In US dollars; 0 when not reported.
    pub cost: f64,
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
    pub task_name: String,
    /// The answer the engine found; None from hosts that do not send it
    /// (`find_answer` then finds it by the same rule).
    pub answer: Option<Answer>,
    pub usage: Option<Usage>,
    /// The agent's wall time; 0 when not reported.
    pub elapsed_seconds: f64,
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
    /// Why the function cannot judge this run, as VerifyOutput's
    /// `unscored`; empty when it judged it. `passed` is then not counted.
    pub unscored: String,
}

/// The input of `setup`: a named setup function of a task spec with its
/// arguments, and the task it prepares the sandbox for.
#[derive(Clone, Debug, Default)]
pub struct SetupInput {
    pub abi_version: i64,
    pub config: Map,
    pub function: String,
    pub arguments: Map,
    pub task: SetupTask,
}

/// The task a setup function prepares the sandbox for. `files` are the
/// task directory's files, relative to it with `/` separators, as
/// read_asset takes them.
#[derive(Clone, Debug, Default)]
pub struct SetupTask {
    pub id: String,
    pub instruction: String,
    pub files: Vec<String>,
}

/// The output of `setup`: the actions that prepare the sandbox, which
/// wasmeval performs in order (a setup plugin never touches the sandbox
/// itself). `error`, when set, says the function cannot prepare this task:
/// the task cannot run, and the message says why; it is not a fault of the
/// plugin.
#[derive(Clone, Debug, Default)]
pub struct SetupOutput {
    pub actions: Vec<SetupAction>,
    pub error: String,
}

/// One action of a setup output.
#[derive(Clone, Debug)]
pub enum SetupAction {
    /// Writes a file into the sandbox: `path` relative to its working
    /// directory, `/`-separated, inside it. The bytes are `content` (text)
    /// or, when set, `content_base64` (any bytes, base64).
    Write { path: String, content: String, content_base64: String },
    /// Runs a program with its arguments in the sandbox's working
    /// directory (no shell: `["sh", "-c", line]` for one); it must exit 0.
    Run { command: Vec<String> },
}

impl ToValue for SetupOutput {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        let actions = self
            .actions
            .iter()
            .map(|a| {
                let mut am = Map::new();
                match a {
                    SetupAction::Write { path, content, content_base64 } => {
                        let mut wm = Map::new();
                        wm.insert("path".into(), path.as_str().into());
                        if content_base64.is_empty() {
                            wm.insert("content".into(), content.as_str().into());
                        } else {
                            wm.insert("content_base64".into(), content_base64.as_str().into());
                        }
                        am.insert("write".into(), Value::Object(wm));
                    }
                    SetupAction::Run { command } => {
                        let mut rm = Map::new();
                        rm.insert("command".into(), strings(command));
                        am.insert("run".into(), Value::Object(rm));
                    }
                }
                Value::Object(am)
            })
            .collect();
        m.insert("actions".into(), Value::Array(actions));
        put_str(&mut m, "error", &self.error);
        Value::Object(m)
    }
}

/// The input of `mock`: one HTTP request a submission sent to a mock
/// service, with the state the mock's previous answer in the same group
/// left. A mock keeps no state of its own between calls (instances are
/// pooled, and the same calls must give the same answers in every run):
/// what it must remember goes out in `MockOutput::state` and comes back in
/// the next call's `state`.
#[derive(Clone, Debug, Default)]
pub struct MockInput {
    pub abi_version: i64,
    pub config: Map,
    /// The mock service's name in the problem (a plugin may serve several).
    pub mock: String,
    pub request: MockRequest,
    /// How many requests this mock answered before in the group.
    pub call: i64,
    /// What the mock's previous answer in the group left (null at first).
    pub state: Value,
}

/// An HTTP request as the mock received it. Header names are lowercase; a
/// header or query parameter given more than once has each value, in
/// order. The body is `body` when it is UTF-8 text, else `body_base64`.
#[derive(Clone, Debug, Default)]
pub struct MockRequest {
    pub method: String,
    pub path: String,
    pub query: BTreeMap<String, Vec<String>>,
    pub headers: BTreeMap<String, Vec<String>>,
    pub body: String,
    pub body_base64: String,
}

/// The output of `mock`: the response, and the state the next call of this
/// mock in the group gets (null for none). `error`, when set, says the
/// mock cannot answer this request: the case is an error, and the output
/// holds nothing else.
#[derive(Clone, Debug, Default)]
pub struct MockOutput {
    pub response: MockResponse,
    pub state: Value,
    pub error: String,
}

/// The HTTP response a mock sends: its body is `body` (text) or, when set,
/// `body_base64` (any bytes); `delay_ms` holds it back that long.
#[derive(Clone, Debug, Default)]
pub struct MockResponse {
    pub status: i64,
    pub headers: BTreeMap<String, String>,
    pub body: String,
    pub body_base64: String,
    pub delay_ms: i64,
}

impl ToValue for MockOutput {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        if !self.error.is_empty() {
            m.insert("error".into(), self.error.as_str().into());
            return Value::Object(m);
        }
        let r = &self.response;
        let mut rm = Map::new();
        rm.insert("status".into(), Value::int(r.status));
        let headers = r.headers.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        rm.insert("headers".into(), Value::Object(headers));
        if r.body_base64.is_empty() {
            rm.insert("body".into(), r.body.as_str().into());
        } else {
            rm.insert("body_base64".into(), r.body_base64.as_str().into());
        }
        if r.delay_ms != 0 {
            rm.insert("delay_ms".into(), Value::int(r.delay_ms));
        }
        m.insert("response".into(), Value::Object(rm));
        if !self.state.is_null() {
            m.insert("state".into(), self.state.clone());
        }
        Value::Object(m)
    }
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
        Value::Canonical(c) => c.type_name(),
    }
}

/// Where a field is, written out only for a message.
enum Path<'p> {
    Root,
    Field(&'p Path<'p>, &'static str),
    Index(&'p Path<'p>, usize),
    Key(&'p Path<'p>, &'p str),
}

impl<'p> Path<'p> {
    fn text(&self) -> String {
        match self {
            Path::Root => "$".to_string(),
            Path::Field(p, f) => format!("{}.{}", p.text(), f),
            Path::Index(p, i) => format!("{}[{}]", p.text(), i),
            Path::Key(p, k) => child_path(&p.text(), k),
        }
    }
    fn field(&'p self, f: &'static str) -> Path<'p> {
        Path::Field(self, f)
    }
}

/// Decodes with the first shape error remembered, visiting fields in the
/// same order as every other SDK so the message is the same. The decoded
/// values are moved out of the parsed document, not copied.
struct Decoder {
    err: Option<String>,
}

/// Takes field k out of an object (Null when absent or no object).
fn take<F: Fields>(m: &mut Option<F>, k: &str) -> Value {
    match m {
        Some(m) => m.take_field(k),
        None => Value::Null,
    }
}

/// An object's fields, as the decoder takes them: a parsed Map, or the
/// members parse_members read.
trait Fields {
    /// Takes field k out (Null when absent).
    fn take_field(&mut self, k: &str) -> Value;
}

impl Fields for Map {
    fn take_field(&mut self, k: &str) -> Value {
        match self.get_mut(k) {
            Some(v) => std::mem::take(v),
            None => Value::Null,
        }
    }
}

impl Fields for Members<'_> {
    fn take_field(&mut self, k: &str) -> Value {
        match self.iter_mut().find(|(key, _)| *key == k) {
            Some((_, Member::Value(v))) => std::mem::take(v),
            // An object read as members is taken by take_member.
            _ => Value::Null,
        }
    }
}

/// Takes field k out of members: its own members when it is an object
/// read as such, its value otherwise.
fn take_member<'a>(m: &mut Option<Members<'a>>, k: &str) -> Member<'a> {
    let slot = m.as_mut().and_then(|m| m.iter_mut().find(|(key, _)| *key == k));
    match slot {
        Some((_, v)) => std::mem::replace(v, Member::Value(Value::Null)),
        None => Member::Value(Value::Null),
    }
}

impl Decoder {
    #[cold]
    fn bad(&mut self, path: &Path, v: &Value, want: &str) {
        if self.err.is_none() {
            self.err = Some(format!("{} is {}, expected {}", path.text(), type_name(v), want));
        }
    }
    fn obj(&mut self, path: &Path, v: Value) -> Option<Map> {
        match v {
            Value::Null => None,
            Value::Object(m) => Some(m),
            _ => {
                self.bad(path, &v, "an object");
                None
            }
        }
    }
    fn map(&mut self, path: &Path, v: Value) -> Map {
        self.obj(path, v).unwrap_or_default()
    }
    fn string(&mut self, path: &Path, v: Value) -> String {
        match v {
            Value::Null => String::new(),
            Value::String(s) => s,
            _ => {
                self.bad(path, &v, "a string");
                String::new()
            }
        }
    }
    fn boolean(&mut self, path: &Path, v: &Value) -> bool {
        match v {
            Value::Null => false,
            Value::Bool(b) => *b,
            _ => {
                self.bad(path, v, "a boolean");
                false
            }
        }
    }
    fn float(&mut self, path: &Path, v: &Value) -> f64 {
        match v {
            Value::Null => 0.0,
            Value::Number(_) | Value::Float(_) => v.as_f64().unwrap_or(0.0),
            _ => {
                self.bad(path, v, "a number");
                0.0
            }
        }
    }
    fn integer(&mut self, path: &Path, v: &Value) -> i64 {
        let f = self.float(path, v);
        if f != f.trunc() || f.abs() > 9007199254740992.0 {
            if self.err.is_none() {
                self.err = Some(format!("{} is a number, expected an integer", path.text()));
            }
            return 0;
        }
        f as i64
    }
    fn arr(&mut self, path: &Path, v: Value) -> Vec<Value> {
        match v {
            Value::Null => Vec::new(),
            Value::Array(a) => a,
            _ => {
                self.bad(path, &v, "an array");
                Vec::new()
            }
        }
    }
    fn strs(&mut self, path: &Path, v: Value) -> Vec<String> {
        let a = self.arr(path, v);
        let mut out = Vec::with_capacity(a.len());
        for (i, x) in a.into_iter().enumerate() {
            out.push(self.string(&Path::Index(path, i), x));
        }
        out
    }
    /// An object whose values are lists of strings, its keys in order.
    fn strs_map(&mut self, path: &Path, v: Value) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        if let Some(m) = self.obj(path, v) {
            for (k, x) in m {
                let list = self.strs(&Path::Key(path, &k), x);
                out.insert(k, list);
            }
        }
        out
    }
    fn case(&mut self, path: &Path, v: Value) -> Case {
        match self.obj(path, v) {
            Some(m) => self.case_of(path, m),
            None => Case::default(),
        }
    }
    /// A case from its object's fields.
    fn case_of<F: Fields>(&mut self, path: &Path, m: F) -> Case {
        let mut c = Case::default();
        let mut m = Some(m);
        c.id = self.string(&path.field("id"), take(&mut m, "id"));
        c.checkpoint = self.string(&path.field("checkpoint"), take(&mut m, "checkpoint"));
        c.group = self.string(&path.field("group"), take(&mut m, "group"));
        c.group_type = self.string(&path.field("group_type"), take(&mut m, "group_type"));
        c.arguments = self.strs(&path.field("arguments"), take(&mut m, "arguments"));
        let stdin = take(&mut m, "stdin");
        if !stdin.is_null() {
            c.stdin = Some(self.string(&path.field("stdin"), stdin));
        }
        let env_path = path.field("env");
        if let Some(env) = self.obj(&env_path, take(&mut m, "env")) {
            let mut pairs = Vec::with_capacity(env.len());
            for (k, x) in env {
                let s = self.string(&Path::Key(&env_path, &k), x);
                pairs.push((k, s));
            }
            c.env = pairs.into_iter().collect();
        }
        let files_path = path.field("input_files");
        for (i, x) in self.arr(&files_path, take(&mut m, "input_files")).into_iter().enumerate() {
            let p = Path::Index(&files_path, i);
            let mut fm = self.obj(&p, x);
            c.input_files.push(InputFile {
                path: self.string(&p.field("path"), take(&mut fm, "path")),
                content: self.string(&p.field("content"), take(&mut fm, "content")),
                encoding: self.string(&p.field("encoding"), take(&mut fm, "encoding")),
            });
        }
        c.tracked_files = self.strs(&path.field("tracked_files"), take(&mut m, "tracked_files"));
        c.expected = self.map(&path.field("expected"), take(&mut m, "expected"));
        c.timeout_s = self.float(&path.field("timeout_s"), &take(&mut m, "timeout_s"));
        c.reset = self.boolean(&path.field("reset"), &take(&mut m, "reset"));
        c.extra = self.map(&path.field("extra"), take(&mut m, "extra"));
        c
    }
    fn actual(&mut self, path: &Path, v: Value) -> Actual {
        match self.obj(path, v) {
            Some(m) => self.actual_of(path, m),
            None => Actual::default(),
        }
    }
    /// An actual result from its object's fields.
    fn actual_of<F: Fields>(&mut self, path: &Path, m: F) -> Actual {
        let mut a = Actual::default();
        let mut m = Some(m);
        a.status_code = self.integer(&path.field("status_code"), &take(&mut m, "status_code"));
        a.output = self.string(&path.field("output"), take(&mut m, "output"));
        a.stderr = self.string(&path.field("stderr"), take(&mut m, "stderr"));
        a.files = self.map(&path.field("files"), take(&mut m, "files"));
        a.timed_out = self.boolean(&path.field("timed_out"), &take(&mut m, "timed_out"));
        a.mock_calls = self.mock_calls(&path.field("mock_calls"), take(&mut m, "mock_calls"));
        a
    }
    /// The calls a case's mocks received, each call's fields in the order
    /// every SDK visits them, so the first shape error is the same.
    fn mock_calls(&mut self, path: &Path, v: Value) -> Vec<MockCall> {
        let list = self.arr(path, v);
        let mut out = Vec::with_capacity(list.len());
        for (i, x) in list.into_iter().enumerate() {
            let p = Path::Index(path, i);
            let mut m = self.obj(&p, x);
            if m.is_none() {
                out.push(MockCall::default());
                continue;
            }
            out.push(MockCall {
                mock: self.string(&p.field("mock"), take(&mut m, "mock")),
                method: self.string(&p.field("method"), take(&mut m, "method")),
                path: self.string(&p.field("path"), take(&mut m, "path")),
                query: self.strs_map(&p.field("query"), take(&mut m, "query")),
                headers: self.strs_map(&p.field("headers"), take(&mut m, "headers")),
                body: self.string(&p.field("body"), take(&mut m, "body")),
                body_base64: self.string(&p.field("body_base64"), take(&mut m, "body_base64")),
                status: self.integer(&p.field("status"), &take(&mut m, "status")),
                route: self.integer(&p.field("route"), &take(&mut m, "route")),
                unmatched: self.boolean(&p.field("unmatched"), &take(&mut m, "unmatched")),
                fault: self.string(&p.field("fault"), take(&mut m, "fault")),
            });
        }
        out
    }
    fn top(&mut self, v: Value) -> Option<Map> {
        match v {
            Value::Object(m) => Some(m),
            _ => {
                self.bad(&Path::Root, &v, "an object");
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

/// An input envelope parsed: JSON, its long strings possibly raw.
fn parsed(data: &[u8]) -> Result<Value, String> {
    crate::json::parse_input(data).map_err(|e| e.to_string())
}

const ROOT: Path<'static> = Path::Root;

impl VerifyInput {
    /// Decodes a verify input envelope.
    pub fn decode(data: &[u8]) -> Result<VerifyInput, String> {
        // The envelope's members, and the case's and the actual result's,
        // read without maps (parse_members); anything that reads otherwise
        // is parsed whole, which gives the same input or the message.
        if let Some(members) = parse_members(data, &|k| k == "case" || k == "actual") {
            return VerifyInput::decode_members(members);
        }
        VerifyInput::decode_value(parsed(data)?)
    }

    /// Decodes the verify input envelope whose object starts at data[pos]
    /// (data is UTF-8), with the offset past it: a call in a batch. None
    /// when the call is not JSON.
    pub(crate) fn decode_at(data: &[u8], pos: usize) -> Option<(Result<VerifyInput, String>, usize)> {
        if let Some((members, end)) = parse_members_at(data, pos, &|k| k == "case" || k == "actual") {
            return Some((VerifyInput::decode_members(members), end));
        }
        let (call, end) = crate::json::parse_at(data, pos).ok()?;
        Some((VerifyInput::decode_value(call), end))
    }

    /// Decodes a verify input envelope read as members: what decode_value
    /// gives for the same document.
    fn decode_members(m: Members) -> Result<VerifyInput, String> {
        let mut d = Decoder { err: None };
        let mut m = Some(m);
        let abi_version = d.integer(&ROOT.field("abi_version"), &take(&mut m, "abi_version"));
        let config = d.map(&ROOT.field("config"), take(&mut m, "config"));
        let cp = ROOT.field("case");
        let case = match take_member(&mut m, "case") {
            Member::Object(c) => d.case_of(&cp, c),
            Member::Value(v) => d.case(&cp, v),
        };
        let ap = ROOT.field("actual");
        let actual = match take_member(&mut m, "actual") {
            Member::Object(a) => d.actual_of(&ap, a),
            Member::Value(v) => d.actual(&ap, v),
        };
        let expected = d.map(&ROOT.field("expected"), take(&mut m, "expected"));
        d.done(VerifyInput { abi_version, config, case, actual, expected })
    }

    /// Decodes a parsed verify input envelope.
    pub(crate) fn decode_value(v: Value) -> Result<VerifyInput, String> {
        let mut d = Decoder { err: None };
        let mut m = d.top(v);
        let in_ = VerifyInput {
            abi_version: d.integer(&ROOT.field("abi_version"), &take(&mut m, "abi_version")),
            config: d.map(&ROOT.field("config"), take(&mut m, "config")),
            case: d.case(&ROOT.field("case"), take(&mut m, "case")),
            actual: d.actual(&ROOT.field("actual"), take(&mut m, "actual")),
            expected: d.map(&ROOT.field("expected"), take(&mut m, "expected")),
        };
        d.done(in_)
    }
}

impl LoadInput {
    /// Decodes a load_cases input envelope.
    pub fn decode(data: &[u8]) -> Result<LoadInput, String> {
        LoadInput::decode_value(parsed(data)?)
    }

    /// Decodes a parsed load_cases input envelope.
    pub(crate) fn decode_value(v: Value) -> Result<LoadInput, String> {
        let mut d = Decoder { err: None };
        let mut m = d.top(v);
        let mut in_ = LoadInput {
            abi_version: d.integer(&ROOT.field("abi_version"), &take(&mut m, "abi_version")),
            config: d.map(&ROOT.field("config"), take(&mut m, "config")),
            ..Default::default()
        };
        let gp = ROOT.field("group");
        if let Some(g) = d.obj(&gp, take(&mut m, "group")) {
            let mut g = Some(g);
            in_.group = GroupInfo {
                checkpoint: d.string(&gp.field("checkpoint"), take(&mut g, "checkpoint")),
                group: d.string(&gp.field("group"), take(&mut g, "group")),
                group_type: d.string(&gp.field("group_type"), take(&mut g, "group_type")),
                case_group: d.string(&gp.field("case_group"), take(&mut g, "case_group")),
                case_order: d.strs(&gp.field("case_order"), take(&mut g, "case_order")),
                timeout_s: d.float(&gp.field("timeout_s"), &take(&mut g, "timeout_s")),
                origin_checkpoint: d.string(&gp.field("origin_checkpoint"), take(&mut g, "origin_checkpoint")),
                origin_group: d.string(&gp.field("origin_group"), take(&mut g, "origin_group")),
                dir: d.string(&gp.field("dir"), take(&mut g, "dir")),
            };
        }
        let hp = ROOT.field("history");
        for (i, h) in d.arr(&hp, take(&mut m, "history")).into_iter().enumerate() {
            let p = Path::Index(&hp, i);
            let mut hm = d.obj(&p, h);
            let case = d.case(&p.field("case"), take(&mut hm, "case"));
            let actual = d.actual(&p.field("actual"), take(&mut hm, "actual"));
            in_.history.push(Outcome { case, actual });
        }
        let seed = take(&mut m, "seed");
        if !matches!(seed, Value::Null) {
            in_.seed = Some(d.integer(&ROOT.field("seed"), &seed));
        }
        d.done(in_)
    }
}

impl EvaluateInput {
    /// Decodes an evaluate input envelope.
    pub fn decode(data: &[u8]) -> Result<EvaluateInput, String> {
        EvaluateInput::decode_value(parsed(data)?)
    }

    /// Decodes a parsed evaluate input envelope.
    pub(crate) fn decode_value(v: Value) -> Result<EvaluateInput, String> {
        let mut d = Decoder { err: None };
        let mut m = d.top(v);
        let mut in_ = EvaluateInput {
            abi_version: d.integer(&ROOT.field("abi_version"), &take(&mut m, "abi_version")),
            config: d.map(&ROOT.field("config"), take(&mut m, "config")),
            function: d.string(&ROOT.field("function"), take(&mut m, "function")),
            arguments: d.map(&ROOT.field("arguments"), take(&mut m, "arguments")),
            expected: d.map(&ROOT.field("expected"), take(&mut m, "expected")),
            ..Default::default()
        };
        let case = take(&mut m, "case");
        if !case.is_null() {
            in_.case = Some(d.case(&ROOT.field("case"), case));
        }
        let actual = take(&mut m, "actual");
        if !actual.is_null() {
            in_.actual = Some(d.actual(&ROOT.field("actual"), actual));
        }
        d.done(in_)
    }
}

impl SetupInput {
    /// Decodes a setup input envelope.
    pub fn decode(data: &[u8]) -> Result<SetupInput, String> {
        SetupInput::decode_value(parsed(data)?)
    }

    /// Decodes a parsed setup input envelope.
    pub(crate) fn decode_value(v: Value) -> Result<SetupInput, String> {
        let mut d = Decoder { err: None };
        let mut m = d.top(v);
        let mut in_ = SetupInput {
            abi_version: d.integer(&ROOT.field("abi_version"), &take(&mut m, "abi_version")),
            config: d.map(&ROOT.field("config"), take(&mut m, "config")),
            function: d.string(&ROOT.field("function"), take(&mut m, "function")),
            arguments: d.map(&ROOT.field("arguments"), take(&mut m, "arguments")),
            ..Default::default()
        };
        let tp = ROOT.field("task");
        if let Some(t) = d.obj(&tp, take(&mut m, "task")) {
            let mut t = Some(t);
            in_.task = SetupTask {
                id: d.string(&tp.field("id"), take(&mut t, "id")),
                instruction: d.string(&tp.field("instruction"), take(&mut t, "instruction")),
                files: d.strs(&tp.field("files"), take(&mut t, "files")),
            };
        }
        d.done(in_)
    }
}

impl MockInput {
    /// Decodes a mock input envelope.
    pub fn decode(data: &[u8]) -> Result<MockInput, String> {
        MockInput::decode_value(parsed(data)?)
    }

    /// Decodes a parsed mock input envelope, its fields in the order every
    /// SDK visits them, so the first shape error is the same.
    pub(crate) fn decode_value(v: Value) -> Result<MockInput, String> {
        let mut d = Decoder { err: None };
        let mut m = d.top(v);
        let mut in_ = MockInput {
            abi_version: d.integer(&ROOT.field("abi_version"), &take(&mut m, "abi_version")),
            config: d.map(&ROOT.field("config"), take(&mut m, "config")),
            mock: d.string(&ROOT.field("mock"), take(&mut m, "mock")),
            ..Default::default()
        };
        let rp = ROOT.field("request");
        if let Some(r) = d.obj(&rp, take(&mut m, "request")) {
            let mut r = Some(r);
            in_.request = MockRequest {
                method: d.string(&rp.field("method"), take(&mut r, "method")),
                path: d.string(&rp.field("path"), take(&mut r, "path")),
                query: d.strs_map(&rp.field("query"), take(&mut r, "query")),
                headers: d.strs_map(&rp.field("headers"), take(&mut r, "headers")),
                body: d.string(&rp.field("body"), take(&mut r, "body")),
                body_base64: d.string(&rp.field("body_base64"), take(&mut r, "body_base64")),
            };
        }
        in_.call = d.integer(&ROOT.field("call"), &take(&mut m, "call"));
        in_.state = take(&mut m, "state");
        d.done(in_)
    }
}

impl TestInput {
    /// Decodes a test input envelope.
    pub fn decode(data: &[u8]) -> Result<TestInput, String> {
        TestInput::decode_value(parsed(data)?)
    }

    /// Decodes a parsed test input envelope.
    pub(crate) fn decode_value(v: Value) -> Result<TestInput, String> {
        let mut d = Decoder { err: None };
        let mut m = d.top(v);
        let mut in_ = TestInput {
            abi_version: d.integer(&ROOT.field("abi_version"), &take(&mut m, "abi_version")),
            config: d.map(&ROOT.field("config"), take(&mut m, "config")),
            ..Default::default()
        };
        let rp = ROOT.field("result");
        if let Some(r) = d.obj(&rp, take(&mut m, "result")) {
            let mut r = Some(r);
            let run = &mut in_.result;
            run.task_result = take(&mut r, "task_result");
            run.status = d.string(&rp.field("status"), take(&mut r, "status"));
            run.instruction = d.string(&rp.field("instruction"), take(&mut r, "instruction"));
            run.iterations = d.integer(&rp.field("iterations"), &take(&mut r, "iterations"));
            run.sandbox = take(&mut r, "sandbox");
            run.execution_trace = d.arr(&rp.field("execution_trace"), take(&mut r, "execution_trace"));
            let cp = rp.field("conversation");
            for (i, msg) in d.arr(&cp, take(&mut r, "conversation")).into_iter().enumerate() {
                let m = d.message(&Path::Index(&cp, i), msg);
                run.conversation.push(m);
            }
            run.task_name = d.string(&rp.field("task_name"), take(&mut r, "task_name"));
            let ap = rp.field("answer");
            if let Some(a) = d.obj(&ap, take(&mut r, "answer")) {
                let mut a = Some(a);
                let value = take(&mut a, "value");
                let rule = d.string(&ap.field("rule"), take(&mut a, "rule"));
                run.answer = Some(Answer { value, rule });
            }
            let up = rp.field("usage");
            if let Some(u) = d.obj(&up, take(&mut r, "usage")) {
                let mut u = Some(u);
                run.usage = Some(Usage {
                    input_tokens: d.integer(&up.field("input_tokens"), &take(&mut u, "input_tokens")),
                    output_tokens: d.integer(&up.field("output_tokens"), &take(&mut u, "output_tokens")),
                    total_tokens: d.integer(&up.field("total_tokens"), &take(&mut u, "total_tokens")),
                    cost: d.float(&up.field("cost"), &take(&mut u, "cost")),
                });
            }
            run.elapsed_seconds = d.float(&rp.field("elapsed_seconds"), &take(&mut r, "elapsed_seconds"));
        }
        d.done(in_)
    }
}

impl Decoder {
    /// Decodes one message of a run's conversation, its fields in the
    /// same order as every other SDK.
    fn message(&mut self, p: &Path, msg: Value) -> Message {
        let mut mm = self.obj(p, msg);
        let mut out = Message {
            role: self.string(&p.field("role"), take(&mut mm, "role")),
            content: self.string(&p.field("content"), take(&mut mm, "content")),
            name: self.string(&p.field("name"), take(&mut mm, "name")),
            ..Default::default()
        };
        let tp = p.field("tool_calls");
        for (j, tc) in self.arr(&tp, take(&mut mm, "tool_calls")).into_iter().enumerate() {
            let p = Path::Index(&tp, j);
            let mut tm = self.obj(&p, tc);
            out.tool_calls.push(ToolCall {
                name: self.string(&p.field("name"), take(&mut tm, "name")),
                arguments: take(&mut tm, "arguments"),
                id: self.string(&p.field("id"), take(&mut tm, "id")),
                raw_arguments: self.string(&p.field("raw_arguments"), take(&mut tm, "raw_arguments")),
                arguments_error: self.string(&p.field("arguments_error"), take(&mut tm, "arguments_error")),
            });
        }
        out.tool_call_id = self.string(&p.field("tool_call_id"), take(&mut mm, "tool_call_id"));
        let rp = p.field("tool_results");
        for (j, tr) in self.arr(&rp, take(&mut mm, "tool_results")).into_iter().enumerate() {
            let p = Path::Index(&rp, j);
            let mut rm = self.obj(&p, tr);
            out.tool_results.push(ToolResult {
                tool_call_id: self.string(&p.field("tool_call_id"), take(&mut rm, "tool_call_id")),
                name: self.string(&p.field("name"), take(&mut rm, "name")),
                content: self.string(&p.field("content"), take(&mut rm, "content")),
                json: take(&mut rm, "json"),
                is_error: self.boolean(&p.field("is_error"), &take(&mut rm, "is_error")),
            });
        }
        out
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
    /// Appends the canonical JSON of to_value() to out. The SDK's verify,
    /// evaluate and test outputs write it directly, without building the
    /// value (and copying what it holds) first.
    fn write_json(&self, out: &mut String) -> Result<(), String> {
        crate::json::encode(&self.to_value(), out)
    }
}

/// Writes an object's members in the order they are given (the caller
/// gives them in key order) straight into the output.
struct ObjectWriter<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
}

impl<'o> ObjectWriter<'o> {
    fn new(out: &'o mut Vec<u8>) -> ObjectWriter<'o> {
        byte(out, b'{');
        ObjectWriter { out, first: true }
    }
    /// Starts member k (a plain ASCII key) and returns the output for its
    /// value.
    fn key(&mut self, k: &str) -> &mut Vec<u8> {
        if !self.first {
            byte(self.out, b',');
        }
        self.first = false;
        byte(self.out, b'"');
        crate::bytes::extend(self.out, k.as_bytes());
        crate::bytes::extend(self.out, b"\":");
        self.out
    }
    fn value(&mut self, k: &str, v: &Value) -> Result<(), String> {
        encode_bytes(v, self.key(k))
    }
    fn string(&mut self, k: &str, s: &str) {
        quote_bytes(s.as_bytes(), self.key(k))
    }
    fn boolean(&mut self, k: &str, b: bool) {
        crate::bytes::extend(self.key(k), if b { b"true" } else { b"false" })
    }
    fn float(&mut self, k: &str, f: f64) -> Result<(), String> {
        write_float(f, self.key(k))
    }
    fn end(self) {
        byte(self.out, b'}')
    }
}

/// Whether a value is an object or a list, whose encoding is worth
/// copying rather than making again.
fn is_large(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Array(_))
}

/// Whether two values have the same encoding because they are the same
/// (Value's == takes 0.0 and -0.0 for equal; their encodings differ).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) | (Value::String(x), Value::String(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => false,
    }
}

fn write_diff(d: &Diff, out: &mut Vec<u8>) -> Result<(), String> {
    let mut o = ObjectWriter::new(out);
    if !d.entries.is_empty() {
        let out = o.key("entries");
        byte(out, b'[');
        for (i, e) in d.entries.iter().enumerate() {
            if i > 0 {
                byte(out, b',');
            }
            let mut eo = ObjectWriter::new(out);
            if !e.actual.is_null() {
                eo.value("actual", &e.actual)?;
            }
            if !e.expected.is_null() {
                eo.value("expected", &e.expected)?;
            }
            eo.string("op", &e.op);
            eo.string("path", &e.path);
            eo.end();
        }
        byte(out, b']');
    }
    o.string("summary", &d.summary);
    if d.truncated {
        o.boolean("truncated", true);
    }
    if !d.unified.is_empty() {
        o.string("unified", &d.unified);
    }
    o.end();
    Ok(())
}

fn write_attribute(a: &Attribute, out: &mut Vec<u8>) -> Result<(), String> {
    let mut o = ObjectWriter::new(out);
    let start = o.key("actual").len();
    encode_bytes(&a.actual, o.out)?;
    let end = o.out.len();
    o.string("attribute", &a.attribute);
    if let Some(d) = &a.diff {
        write_diff(d, o.key("diff"))?;
    }
    if is_large(&a.expected) && same(&a.expected, &a.actual) {
        // A passing verdict's expected value is its actual one: the same
        // value has the same encoding, copied rather than made again
        // (comparing costs a fraction of encoding).
        o.key("expected").extend_from_within(start..end);
    } else {
        o.value("expected", &a.expected)?;
    }
    o.boolean("is_correct", a.is_correct);
    o.float("weight", a.weight)?;
    o.end();
    Ok(())
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
    fn write_json(&self, out: &mut String) -> Result<(), String> {
        // Only whole UTF-8 encodings are appended.
        write_diff(self, unsafe { out.as_mut_vec() })
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
    fn write_json(&self, out: &mut String) -> Result<(), String> {
        // Only whole UTF-8 encodings are appended.
        write_attribute(self, unsafe { out.as_mut_vec() })
    }
}

impl ToValue for VerifyOutput {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("attributes".into(), Value::Array(self.attributes.iter().map(|a| a.to_value()).collect()));
        put_str(&mut m, "error", &self.error);
        put_str(&mut m, "unscored", &self.unscored);
        Value::Object(m)
    }
    fn write_json(&self, out: &mut String) -> Result<(), String> {
        // Only whole UTF-8 encodings are appended.
        let out = unsafe { out.as_mut_vec() };
        crate::bytes::reserve(out, 256);
        let mut o = ObjectWriter::new(out);
        let out = o.key("attributes");
        byte(out, b'[');
        for (i, a) in self.attributes.iter().enumerate() {
            if i > 0 {
                byte(out, b',');
            }
            write_attribute(a, out)?;
        }
        byte(out, b']');
        if !self.error.is_empty() {
            o.string("error", &self.error);
        }
        if !self.unscored.is_empty() {
            o.string("unscored", &self.unscored);
        }
        o.end();
        Ok(())
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
        put_str(&mut m, "unscored", &self.unscored);
        Value::Object(m)
    }
    fn write_json(&self, out: &mut String) -> Result<(), String> {
        // Only whole UTF-8 encodings are appended.
        let mut o = ObjectWriter::new(unsafe { out.as_mut_vec() });
        if !self.details.is_null() {
            o.value("details", &self.details)?;
        }
        if !self.error.is_empty() {
            o.string("error", &self.error);
        }
        o.float("score", self.score)?;
        if !self.unscored.is_empty() {
            o.string("unscored", &self.unscored);
        }
        o.end();
        Ok(())
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
        put_str(&mut m, "unscored", &self.unscored);
        Value::Object(m)
    }
    fn write_json(&self, out: &mut String) -> Result<(), String> {
        // Only whole UTF-8 encodings are appended.
        let mut o = ObjectWriter::new(unsafe { out.as_mut_vec() });
        if !self.details.is_null() {
            o.value("details", &self.details)?;
        }
        o.string("feedback", &self.feedback);
        o.boolean("passed", self.passed);
        if !self.unscored.is_empty() {
            o.string("unscored", &self.unscored);
        }
        o.end();
        Ok(())
    }
}
