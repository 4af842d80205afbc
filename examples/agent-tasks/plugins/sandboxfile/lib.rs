//! The agent-tasks example's test function in Rust: it passes an agent run
//! that left the expected file in its sandbox. The file is read with the
//! host's read_asset, which for a test function reads the sandbox the
//! agent worked in (read-only), as the agent left it.
//!
//! Config:
//!
//!   path      the file, relative to the sandbox (required)
//!   expected  its expected text, compared line by line ignoring
//!             surrounding blanks (required)
//!
//! A result scored with `wasmeval run --results` (recorded by another
//! framework) comes without the sandbox it was produced in: when the file
//! is missing but the agent's conversation records writing it, the run
//! cannot be judged, and the case is unscored rather than failed.
//!
//! Build: `task plugins` (or cargo, see Cargo.toml).

use wasmeval::*;

fn info() -> Describe {
    let mut d = Describe::new("agent-sandbox-file", "1.0.0", &["test"]);
    d.config_schema = parse_str(
        r#"{"type":"object","required":["path","expected"],"additionalProperties":false,
            "properties":{"path":{"type":"string","minLength":1},"expected":{"type":"string"}}}"#,
    )
    .unwrap_or_default();
    d.description = "Passes an agent run that wrote the expected file into its sandbox.".into();
    d
}

describe!(info());
test_function!(judge);

fn config_str(m: &Map, k: &str) -> String {
    m.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string()
}

fn judge(input: TestInput) -> Result<TestOutput, String> {
    let path = config_str(&input.config, "path");
    let expected = config_str(&input.config, "expected");
    let bytes = match read_asset(&path) {
        Some(b) => b,
        None if wrote(&input.result, &path) => {
            return Ok(TestOutput {
                feedback: format!("{} is not in the sandbox, though the agent's conversation records writing it", quote(&path)),
                details: object(vec![("path", path.as_str().into()), ("written", false.into())]),
                unscored: format!("{} is not in the sandbox, though the agent records writing it: a recorded result without its sandbox cannot be judged", quote(&path)),
                ..Default::default()
            })
        }
        None => {
            return Ok(TestOutput {
                passed: false,
                feedback: format!("{} is not in the sandbox: the agent did not write it", quote(&path)),
                details: object(vec![("path", path.as_str().into()), ("written", false.into())]),
                ..Default::default()
            })
        }
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let passed = normalize_text(&text, true, false) == normalize_text(&expected, true, false);
    let verb = if passed { "holds" } else { "does not hold" };
    Ok(TestOutput {
        passed,
        feedback: format!("{} {} the expected text {} (it holds {})", quote(&path), verb, quote(&expected), quote(text.trim())),
        details: object(vec![
            ("path", path.as_str().into()),
            ("written", true.into()),
            ("content", text.as_str().into()),
            ("expected", expected.as_str().into()),
        ]),
        ..Default::default()
    })
}

/// Whether the conversation records a write_file call for path that its
/// result does not report as an error.
fn wrote(run: &AgentRun, path: &str) -> bool {
    let mut ids: Vec<&str> = Vec::new();
    for m in &run.conversation {
        for c in &m.tool_calls {
            if c.name == "write_file" && c.arguments.get("path").as_str() == Some(path) {
                ids.push(&c.id);
            }
        }
    }
    run.conversation
        .iter()
        .flat_map(|m| m.tool_results.iter())
        .any(|r| ids.contains(&r.tool_call_id.as_str()) && !r.is_error)
}
