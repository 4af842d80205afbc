//! Answer extraction for test functions.

use crate::json::{parse_str, Value};
use crate::models::AgentRun;

pub const SOURCE_TASK_RESULT: &str = "task_result";
pub const SOURCE_TASK_COMPLETE: &str = "task_complete";
pub const SOURCE_ANSWER_TAG: &str = "answer tag";
pub const SOURCE_JSON_BLOCK: &str = "json block";

/// Finds the answer an agent gave and where: task_result first, then the
/// conversation, newest message first — a task_complete tool call's
/// arguments (newest first), the last <answer>…</answer> tag, the last
/// fenced JSON block.
pub fn extract_answer(run: &AgentRun) -> Option<(String, &'static str)> {
    let s = answer_text(&run.task_result);
    if !s.is_empty() {
        return Some((s, SOURCE_TASK_RESULT));
    }
    for m in run.conversation.iter().rev() {
        for tc in m.tool_calls.iter().rev() {
            if tc.name == "task_complete" {
                let s = answer_text(&tc.arguments);
                if !s.is_empty() {
                    return Some((s, SOURCE_TASK_COMPLETE));
                }
            }
        }
        if let Some(tag) = last_between(&m.content, "<answer>", "</answer>", false) {
            return Some((tag.trim().to_string(), SOURCE_ANSWER_TAG));
        }
        if let Some(block) = last_between(&m.content, "```", "```", true) {
            if let Ok(v) = parse_str(block.trim()) {
                let s = answer_text(&v);
                if !s.is_empty() {
                    return Some((s, SOURCE_JSON_BLOCK));
                }
            }
        }
    }
    None
}

/// Renders a result as an answer: a string trimmed, a number as written,
/// an object by its "answer", "result" or "final_answer" field.
pub fn answer_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.clone(),
        Value::Float(f) => crate::json::format_float(*f),
        Value::Object(m) => {
            for k in ["answer", "result", "final_answer"] {
                if let Some(x) = m.get(k) {
                    let s = answer_text(x);
                    if !s.is_empty() {
                        return s;
                    }
                }
            }
            String::new()
        }
        _ => String::new(),
    }
}

fn last_between<'a>(s: &'a str, open: &str, close: &str, json_fence: bool) -> Option<&'a str> {
    let mut last = None;
    let mut pos = 0;
    while let Some(i) = s[pos..].find(open) {
        let mut start = pos + i + open.len();
        if json_fence && s[start..].starts_with("json") {
            start += 4;
        }
        match s[start..].find(close) {
            Some(j) => {
                last = Some(&s[start..start + j]);
                pos = start + j + close.len();
            }
            None => break,
        }
    }
    last
}
