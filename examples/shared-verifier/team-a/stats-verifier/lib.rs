//! Team A's shared verifier: it judges programs that print summary
//! statistics as JSON. Floating-point results are compared within a
//! relative tolerance, so every team that publishes a statistics benchmark
//! gets the same verdicts for the same outputs, whatever numeric library
//! the submission used.
//!
//! Config:
//!
//!   rel_tolerance  relative tolerance for numbers (default 1e-9)
//!
//! A case's expected values: `status_code` (the exit status) and `output`
//! (the JSON the program must print; keys in any order).
//!
//! Team A builds it (`task plugins`), publishes it with `wasmeval plugin
//! push` and signs it with `wasmeval plugin sign`; see ../../README.md.

use wasmeval::*;

fn info() -> Describe {
    let mut d = Describe::new("stats-verifier", "1.4.0", &["verifier"]);
    d.config_schema = parse_str(
        r#"{"type":"object","additionalProperties":false,
            "properties":{"rel_tolerance":{"type":"number","minimum":0}}}"#,
    )
    .unwrap_or_default();
    d.description = "Compares a program's JSON statistics with the expected ones, numbers within a relative tolerance.".into();
    d
}

describe!(info());
verifier!(check);

fn check(mut input: VerifyInput) -> Result<VerifyOutput, String> {
    let rel = match input.config.get("rel_tolerance") {
        Some(Value::Number(n)) => n.parse().unwrap_or(1e-9),
        _ => 1e-9,
    };
    let mut out = VerifyOutput::default();
    if let Some(want) = input.expected.get("status_code") {
        let got = input.actual.status_code;
        let ok = matches!(want, Value::Number(n) if n.parse::<f64>().ok() == Some(got as f64));
        out.attributes.push(Attribute {
            attribute: "status_code".into(),
            actual: Value::int(got),
            expected: want.clone(),
            is_correct: ok,
            weight: 1.0,
            diff: if ok {
                None
            } else {
                Some(Diff { summary: format!("expected exit status {}, got {}", brief(want), got), ..Default::default() })
            },
        });
    }
    if let Some(want) = input.expected.remove("output") {
        let mut a = Attribute { attribute: "output".into(), weight: 1.0, expected: want.clone(), ..Default::default() };
        match parse_canonical(&input.actual.output) {
            Err(e) => {
                a.actual = Value::String(input.actual.output.clone());
                a.diff = Some(Diff { summary: format!("output is not valid JSON: {}", e), ..Default::default() });
            }
            Ok(got) => {
                let opts = JsonOptions { rel_tolerance: rel, ..Default::default() };
                a.diff = compare_json(&want, &got, &opts);
                a.is_correct = a.diff.is_none();
                a.actual = got;
            }
        }
        out.attributes.push(a);
    }
    Ok(out)
}
