//! The Rust reference plugin of the SDK conformance suite
//! (docs/conformance.md): the same behaviour as the Go and AssemblyScript
//! reference plugins, which must answer every vector with the same bytes.

use wasmeval::*;

fn info() -> Describe {
    let mut d = Describe::new("conformance", "1.0.0", &["verifier", "loader", "evaluator", "test", "setup", "mock"]);
    d.functions = vec!["echo".into(), "json_equal".into(), "sum".into(), "text_equal".into()];
    d.config_schema = object(vec![("type", "object".into())]);
    d.description = "Reference plugin of the SDK conformance suite — ünïcödé ✓".into();
    d.with_setup_functions(SETUP)
}

describe!(info());
verifier!(verify_case);
loader!(load);
evaluator!(eval);
test_function!(judge);
setup!(SETUP);
mock!(answer_mock);

/// Mock "echo" answers with what it received and counts its calls in the
/// state, "bytes" answers with the request's body and two bytes that are
/// not UTF-8, "refuse" cannot answer; any other name is unknown.
fn answer_mock(input: MockInput) -> Result<MockOutput, String> {
    common(&input.config)?;
    let r = &input.request;
    match input.mock.as_str() {
        "echo" => {
            let calls = match &input.state {
                Value::Object(st) => num(st, "calls") as i64,
                _ => 0,
            };
            let body = object(vec![
                ("method", r.method.as_str().into()),
                ("path", r.path.as_str().into()),
                ("query", string_lists(&r.query)),
                ("headers", string_lists(&r.headers)),
                ("body", r.body.as_str().into()),
                ("body_base64", r.body_base64.as_str().into()),
                ("call", Value::int(input.call)),
                ("state", input.state.clone()),
            ]);
            let mut resp = json_response(200, &body)?;
            resp.headers.insert("x-call".into(), input.call.to_string());
            resp.delay_ms = num(&input.config, "delay_ms") as i64;
            Ok(MockOutput { response: resp, state: object(vec![("calls", Value::int(calls + 1))]), ..Default::default() })
        }
        "bytes" => {
            let mut body = r.body_bytes()?;
            body.extend_from_slice(&[0xff, 0x00]);
            Ok(MockOutput { response: bytes_response(201, "application/octet-stream", &body), ..Default::default() })
        }
        "refuse" => Ok(MockOutput { error: format!("cannot answer {}", quote(&format!("{} {}", r.method, r.path))), ..Default::default() }),
        _ => Ok(MockOutput { error: format!("unknown mock {}", quote(&input.mock)), ..Default::default() }),
    }
}

const SETUP: &[(&str, SetupFunction)] = &[("write_and_run", write_and_run), ("refuse", refuse_setup)];

/// Writes arguments.content at arguments.path, the same bytes followed by
/// two that are not UTF-8 at path + ".bin", a summary of the task at
/// task.txt, then runs arguments.command.
fn write_and_run(input: SetupInput) -> Result<SetupOutput, String> {
    common(&input.config)?;
    let (path, content) = (str_of(&input.arguments, "path"), str_of(&input.arguments, "content"));
    let command: Vec<String> = match get(&input.arguments, "command") {
        Value::Array(words) => words.iter().map(|w| w.as_str().unwrap_or("").to_string()).collect(),
        _ => Vec::new(),
    };
    let command: Vec<&str> = command.iter().map(|w| w.as_str()).collect();
    let mut bin = content.clone().into_bytes();
    bin.extend_from_slice(&[0xff, 0x00]);
    let task = &input.task;
    let summary = format!("{}\n{}\n{}", task.id, task.instruction, task.files.join("\n"));
    Ok(SetupOutput {
        actions: vec![
            write_file(&path, &content),
            write_bytes(&format!("{}.bin", path), &bin),
            write_file("task.txt", &summary),
            run_command(&command),
        ],
        ..Default::default()
    })
}

/// Cannot prepare any task, and says so.
fn refuse_setup(input: SetupInput) -> Result<SetupOutput, String> {
    Ok(SetupOutput { error: format!("cannot prepare task {}", quote(&input.task.id)), ..Default::default() })
}

fn get<'a>(m: &'a Map, k: &str) -> &'a Value {
    static NULL: Value = Value::Null;
    m.get(k).unwrap_or(&NULL)
}
fn str_of(m: &Map, k: &str) -> String {
    get(m, k).as_str().unwrap_or("").to_string()
}
fn flag(m: &Map, k: &str) -> bool {
    get(m, k).as_bool().unwrap_or(false)
}
fn num(m: &Map, k: &str) -> f64 {
    match get(m, k) {
        Value::Number(n) => n.parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

fn common(cfg: &Map) -> Result<(), String> {
    let s = str_of(cfg, "fail");
    if !s.is_empty() {
        return Err(s);
    }
    Ok(())
}

fn weight(cfg: &Map, attr: &str) -> f64 {
    if let Value::Object(w) = get(cfg, "weights") {
        if w.contains_key(attr) {
            return num(w, attr);
        }
    }
    1.0
}

fn verify_case(mut input: VerifyInput) -> Result<VerifyOutput, String> {
    common(&input.config)?;
    let refuse = str_of(&input.config, "refuse");
    let unscored = str_of(&input.config, "unscored");
    if !refuse.is_empty() || !unscored.is_empty() {
        return Ok(VerifyOutput { attributes: vec![], error: refuse, unscored });
    }
    let mut out = VerifyOutput::default();
    if !input.expected.contains_key("output") && flag(&input.config, "unscored_without_output") {
        out.unscored = format!("no expected output for case {}", quote(&input.case.id));
    }
    if let Some(want) = input.expected.get("status_code") {
        let mut a = Attribute {
            attribute: "status_code".into(),
            actual: Value::int(input.actual.status_code),
            expected: want.clone(),
            weight: weight(&input.config, "status_code"),
            ..Default::default()
        };
        a.is_correct = match want {
            Value::Number(n) => n.parse::<f64>().unwrap_or(f64::NAN) == input.actual.status_code as f64,
            _ => false,
        };
        if !a.is_correct {
            a.diff = Some(Diff {
                summary: format!("expected exit status {}, got {}", brief(want), input.actual.status_code),
                ..Default::default()
            });
        }
        out.attributes.push(a);
    }
    if let Some(want) = input.expected.remove("output") {
        out.attributes.push(compare_output(&input.config, want, &input.actual.output));
    }
    let mock = str_of(&input.config, "count_mock_calls");
    if !mock.is_empty() {
        out.attributes.push(count_mock_calls(&input, &mock));
    }
    Ok(out)
}

/// Judges how many calls the mock received against expected.mock_calls; a
/// wrong count lists every call the mock received ("POST /v1/charges 201",
/// with "unmatched" for a request no route took).
fn count_mock_calls(input: &VerifyInput, mock: &str) -> Attribute {
    let want = input.expected.get("mock_calls").cloned().unwrap_or(Value::Null);
    let mut calls = Vec::new();
    for c in input.actual.mock_calls.iter().filter(|c| c.mock == mock) {
        let mut s = format!("{} {} {}", c.method, c.path, c.status);
        if c.unmatched {
            s.push_str(" unmatched");
        }
        calls.push(s);
    }
    let n = calls.len() as i64;
    let mut a = Attribute {
        attribute: "mock_calls".into(),
        actual: Value::int(n),
        expected: want.clone(),
        weight: weight(&input.config, "mock_calls"),
        ..Default::default()
    };
    a.is_correct = match &want {
        Value::Number(w) => w.parse::<f64>().unwrap_or(f64::NAN) == n as f64,
        _ => false,
    };
    if !a.is_correct {
        let mut summary = format!("{}: {} calls, expected {}", mock, n, brief(&want));
        if n > 0 {
            summary.push_str(&format!(" ({})", calls.join(", ")));
        }
        a.diff = Some(Diff {
            summary,
            entries: vec![DiffEntry { path: "count".into(), op: "changed".into(), expected: want, actual: Value::int(n) }],
            ..Default::default()
        });
    }
    a
}

fn options(cfg: &Map) -> JsonOptions {
    JsonOptions {
        tolerance: num(cfg, "tolerance"),
        rel_tolerance: num(cfg, "rel_tolerance"),
        unordered_lists: flag(cfg, "unordered_lists"),
        ..Default::default()
    }
}

fn compare_output(cfg: &Map, want: Value, got: &str) -> Attribute {
    let mut a = Attribute { attribute: "output".into(), weight: weight(cfg, "output"), ..Default::default() };
    let mode = str_of(cfg, "output");
    if mode == "text" {
        let w = want.as_str().unwrap_or("");
        let (ws, ic) = (flag(cfg, "ignore_whitespace"), flag(cfg, "ignore_case"));
        let (nw, ng) = (normalize_text(w, ws, ic), normalize_text(got, ws, ic));
        a.is_correct = nw == ng;
        if !a.is_correct {
            a.diff = line_diff(&nw, &ng);
        }
        a.expected = Value::String(nw);
        a.actual = Value::String(ng);
        return a;
    }
    let parse = |s: &str| -> Result<Value, String> {
        if mode == "jsonl" {
            parse_jsonl(s).map(Value::Array)
        } else {
            parse_canonical(s).map_err(|e| e.to_string())
        }
    };
    // An expected text that is the output's own (a passing case) is
    // parsed once: the same text is the same value.
    let mut same_text = false;
    let want = match want {
        Value::String(s) => match parse(&s) {
            Ok(v) => {
                same_text = s == got;
                v
            }
            Err(_) => Value::String(s),
        },
        w => w,
    };
    let parsed = if same_text { Ok(want.clone()) } else { parse(got) };
    match parsed {
        Err(e) => {
            a.actual = Value::String(got.to_string());
            a.diff = Some(Diff {
                summary: format!("output is not valid JSON: {}", e),
                entries: vec![DiffEntry {
                    path: "$".into(),
                    op: "mismatch".into(),
                    expected: want.clone(),
                    actual: Value::String(clip(got, 200)),
                }],
                ..Default::default()
            });
        }
        Ok(v) => {
            a.diff = compare_json(&want, &v, &options(cfg));
            a.is_correct = a.diff.is_none();
            a.actual = v;
        }
    }
    a.expected = want;
    a
}

fn line_diff(want: &str, got: &str) -> Option<Diff> {
    let w: Vec<&str> = want.split('\n').collect();
    let g: Vec<&str> = got.split('\n').collect();
    for i in 0..w.len().max(g.len()) {
        let wl = w.get(i).copied().unwrap_or("");
        let gl = g.get(i).copied().unwrap_or("");
        if wl != gl || i >= w.len() || i >= g.len() {
            let path = format!("line {}", i + 1);
            let (wv, gv) = (Value::from(wl), Value::from(gl));
            return Some(Diff {
                summary: format!("{}: expected {}, got {}", path, brief(&wv), brief(&gv)),
                entries: vec![DiffEntry { path, op: "changed".into(), expected: wv, actual: gv }],
                ..Default::default()
            });
        }
    }
    None
}

fn load(input: LoadInput) -> Result<LoadOutput, String> {
    common(&input.config)?;
    if flag(&input.config, "echo_seed") {
        // One case telling the run's seed ("none" without one).
        let seed = input.seed.map(|n| n.to_string()).unwrap_or_else(|| "none".to_string());
        let c = Case { id: "seed".into(), arguments: vec![seed], ..Default::default() };
        return Ok(LoadOutput { cases: vec![c], done: true, ..Default::default() });
    }
    if flag(&input.config, "echo_group") {
        // One case telling where the group's cases come from.
        let g = input.group;
        let mut c = Case { id: format!("{}_origin", g.group), ..Default::default() };
        c.arguments = vec![g.origin_checkpoint, g.origin_group, g.dir];
        c.extra.insert("checkpoint".into(), Value::String(g.checkpoint));
        c.extra.insert("group".into(), Value::String(g.group));
        c.extra.insert("case_group".into(), Value::String(g.case_group));
        return Ok(LoadOutput { cases: vec![c], done: true, ..Default::default() });
    }
    let records = match parse_jsonl(&str_of(&input.config, "jsonl")) {
        Ok(r) => r,
        Err(e) => return Ok(LoadOutput { error: format!("jsonl: {}", e), ..Default::default() }),
    };
    let mut out = LoadOutput { done: true, ..Default::default() };
    for (i, r) in records.iter().enumerate() {
        let m = match r {
            Value::Object(m) => m,
            _ => {
                return Ok(LoadOutput {
                    error: format!("jsonl: record {} is {}, expected an object", i + 1, type_name(r)),
                    ..Default::default()
                })
            }
        };
        let mut c = Case { id: format!("{}_{}", input.group.group, input.history.len() + i + 1), ..Default::default() };
        if let Value::Array(args) = get(m, "arguments") {
            c.arguments = args.iter().map(|a| a.as_str().unwrap_or("").to_string()).collect();
        }
        if let Value::Object(e) = get(m, "expected") {
            c.expected = e.clone();
        }
        if let Value::String(s) = get(m, "stdin") {
            c.stdin = Some(s.clone());
        }
        c.extra.insert("history".into(), Value::int(input.history.len() as i64));
        c.extra.insert("checkpoint".into(), input.group.checkpoint.as_str().into());
        out.cases.push(c);
    }
    Ok(out)
}

fn eval(input: EvaluateInput) -> Result<EvaluateOutput, String> {
    common(&input.config)?;
    let unscored = str_of(&input.config, "unscored");
    if !unscored.is_empty() {
        let details = object(vec![("function", input.function.as_str().into())]);
        return Ok(EvaluateOutput { details, unscored, ..Default::default() });
    }
    let args = &input.arguments;
    match input.function.as_str() {
        "echo" => {
            let mut d = Map::new();
            d.insert("arguments".into(), Value::Object(args.clone()));
            d.insert("config".into(), Value::Object(input.config.clone()));
            d.insert("function".into(), input.function.as_str().into());
            if let Some(c) = &input.case {
                d.insert("case_id".into(), c.id.as_str().into());
            }
            Ok(EvaluateOutput { score: 1.0, details: Value::Object(d), ..Default::default() })
        }
        "json_equal" => match compare_json(get(args, "expected"), get(args, "actual"), &options(args)) {
            None => Ok(EvaluateOutput { score: 1.0, ..Default::default() }),
            Some(diff) => Ok(EvaluateOutput { score: 0.0, details: object(vec![("diff", diff.to_value())]), ..Default::default() }),
        },
        "text_equal" => {
            let (ws, ic) = (flag(args, "ignore_whitespace"), flag(args, "ignore_case"));
            let w = normalize_text(&str_of(args, "expected"), ws, ic);
            let g = normalize_text(&str_of(args, "actual"), ws, ic);
            let score = if w == g { 1.0 } else { 0.0 };
            Ok(EvaluateOutput { score, details: object(vec![("expected", w.into()), ("actual", g.into())]), ..Default::default() })
        }
        "sum" => {
            let mut total = 0.0f64;
            let mut n = 0;
            if let Value::Array(terms) = get(args, "terms") {
                n = terms.len();
                for t in terms {
                    if let Value::Number(s) = t {
                        total += s.parse::<f64>().unwrap_or(0.0);
                    }
                }
            }
            if flag(args, "as_text") {
                // The sum as the SDK's brief writes it, non-finite ones too.
                return Ok(EvaluateOutput {
                    details: object(vec![("text", brief(&Value::Float(total)).into()), ("terms", Value::int(n as i64))]),
                    ..Default::default()
                });
            }
            let score = total.max(0.0).min(1.0);
            Ok(EvaluateOutput {
                score,
                details: object(vec![("sum", Value::Float(total)), ("terms", Value::int(n as i64))]),
                ..Default::default()
            })
        }
        _ => Ok(EvaluateOutput { error: format!("unknown function {}", quote(&input.function)), ..Default::default() }),
    }
}

fn judge(input: TestInput) -> Result<TestOutput, String> {
    common(&input.config)?;
    let expected = str_of(&input.config, "expected");
    let run = &input.result;
    let found = find_answer(run);
    let answer = answer_text(&found.value);
    let results: usize = run.conversation.iter().map(|m| m.tool_results.len()).sum();
    let tokens = run.usage.as_ref().map_or(0, |u| u.total_tokens);
    let details = object(vec![
        ("answer", answer.as_str().into()),
        ("rule", found.rule.as_str().into()),
        ("value", found.value.clone()),
        ("expected", expected.as_str().into()),
        ("iterations", Value::int(run.iterations)),
        ("messages", Value::int(run.conversation.len() as i64)),
        ("steps", Value::int(run.execution_trace.len() as i64)),
        ("task_name", run.task_name.as_str().into()),
        ("tool_results", Value::int(results as i64)),
        ("tokens", Value::int(tokens)),
        ("elapsed_seconds", Value::Float(run.elapsed_seconds)),
    ]);
    let unscored = str_of(&input.config, "unscored");
    if !unscored.is_empty() {
        return Ok(TestOutput { passed: false, feedback: "not judged".into(), details, unscored });
    }
    if !found.found() {
        return Ok(TestOutput { passed: false, feedback: "no answer found".into(), details, ..Default::default() });
    }
    let passed = match str_of(&input.config, "match").as_str() {
        "number" => match (parse_number(&answer), parse_number(&expected)) {
            (Some(a), Some(e)) => (a - e).abs() <= num(&input.config, "tolerance"),
            _ => false,
        },
        "json" => match (parse_str(&answer), parse_str(&expected)) {
            (Ok(a), Ok(e)) => compare_json(&e, &a, &options(&input.config)).is_none(),
            _ => false,
        },
        _ => normalize_text(&answer, true, true) == normalize_text(&expected, true, true),
    };
    let verb = if passed { " matches " } else { " does not match " };
    Ok(TestOutput {
        passed,
        feedback: format!("answer {} (from {}){}{}", quote(&answer), found.rule, verb, quote(&expected)),
        details,
        ..Default::default()
    })
}
