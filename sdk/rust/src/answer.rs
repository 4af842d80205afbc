//! The agent's answer for test functions: the engine's one rule
//! (docs/agents.md, "The answer"), as every SDK applies it.

use crate::json::{parse_str, Value};
use crate::models::{AgentRun, Answer, Message, ToolCall};

/// The rules that find an answer, in the order they are tried.
pub const RULE_TASK_RESULT: &str = "task_result";
pub const RULE_TASK_COMPLETE: &str = "task_complete";
pub const RULE_ANSWER_TAG: &str = "answer_tag";
pub const RULE_JSON_BLOCK: &str = "json_block";
pub const RULE_FINAL_REPLY: &str = "final_reply";
pub const RULE_NONE: &str = "none";

impl Answer {
    /// Whether a rule found an answer.
    pub fn found(&self) -> bool {
        !self.rule.is_empty() && self.rule != RULE_NONE
    }
}

fn answer(value: Value, rule: &str) -> Answer {
    Answer { value, rule: rule.to_string() }
}

/// The agent's answer and the rule that found it, by the engine's one
/// rule. The host sends it in the run (`run.answer`); for a run from a
/// host that does not, it is found from the run's fields by the same rule:
///
/// 1. task_result, when present and not empty (null, a blank string, {}
///    and [] are empty; 0 and false are answers);
/// 2. else the arguments of the last task_complete call in the
///    conversation: their "answer" field, else their "result" field, else
///    the whole arguments (their text when they are not JSON);
/// 3. else the last `<answer>…</answer>` in the final reply — the last
///    assistant message with text — trimmed;
/// 4. else the last fenced ```` ```json ```` block in the final reply,
///    parsed (a block that is not JSON: this rule finds nothing);
/// 5. else the final reply, trimmed.
///
/// Otherwise the rule is `RULE_NONE` and the value Null.
pub fn find_answer(run: &AgentRun) -> Answer {
    if let Some(a) = &run.answer {
        return a.clone();
    }
    if !empty_answer(&run.task_result) {
        return answer(run.task_result.clone(), RULE_TASK_RESULT);
    }
    if let Some(call) = last_call(&run.conversation, "task_complete") {
        return answer(completion_value(call), RULE_TASK_COMPLETE);
    }
    let reply = match final_reply(&run.conversation) {
        Some(r) => r,
        None => return answer(Value::Null, RULE_NONE),
    };
    if let Some(tag) = last_answer_tag(reply) {
        return answer(Value::String(tag.trim().to_string()), RULE_ANSWER_TAG);
    }
    if let Some(block) = last_json_block(reply) {
        if let Ok(v) = parse_str(block) {
            return answer(v, RULE_JSON_BLOCK);
        }
    }
    answer(Value::String(reply.trim().to_string()), RULE_FINAL_REPLY)
}

/// An answer's value as text: a string as it is, null as "", anything
/// else its JSON text (canonical, numbers as written).
pub fn answer_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.clone(),
        _ => v.to_json().unwrap_or_default(),
    }
}

/// Whether a task_result is no answer: null, a blank string, {} or [].
fn empty_answer(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// The last call of the named tool anywhere in the conversation.
fn last_call<'r>(conv: &'r [Message], name: &str) -> Option<&'r ToolCall> {
    conv.iter().rev().flat_map(|m| m.tool_calls.iter().rev()).find(|c| c.name == name)
}

/// The answer a task_complete call hands in. Arguments that are not JSON
/// are their text: flagged by arguments_error, or, from hosts before it,
/// sent as a string in arguments (returned whole below).
fn completion_value(call: &ToolCall) -> Value {
    if !call.arguments_error.is_empty() {
        return Value::String(call.raw_arguments.clone());
    }
    if let Value::Object(m) = &call.arguments {
        for k in ["answer", "result"] {
            if let Some(v) = m.get(k) {
                if !v.is_null() {
                    return v.clone();
                }
            }
        }
    }
    call.arguments.clone()
}

/// The text of the last assistant message whose text is not blank.
fn final_reply(conv: &[Message]) -> Option<&str> {
    conv.iter().rev().find(|m| m.role == "assistant" && !m.content.trim().is_empty()).map(|m| m.content.as_str())
}

/// The text of the last `<answer>…</answer>`: each tag closes at the first
/// `</answer>` after it.
fn last_answer_tag(s: &str) -> Option<&str> {
    const OPEN: &str = "<answer>";
    const CLOSE: &str = "</answer>";
    let mut last = None;
    let mut pos = 0;
    while let Some(i) = s[pos..].find(OPEN) {
        let start = pos + i + OPEN.len();
        match s[start..].find(CLOSE) {
            Some(j) => {
                last = Some(&s[start..start + j]);
                pos = start + j + CLOSE.len();
            }
            None => break,
        }
    }
    last
}

/// The body of the last fenced JSON block: ``` then json or JSON, spaces
/// or tabs and a line break, up to the next ```. A fence that opens no
/// such block is passed one byte at a time, as the engine's regular
/// expression does.
fn last_json_block(s: &str) -> Option<&str> {
    const FENCE: &str = "```";
    let mut last = None;
    let mut pos = 0;
    while let Some(i) = s[pos..].find(FENCE) {
        let i = pos + i;
        let start = match json_fence_body(s.as_bytes(), i + FENCE.len()) {
            Some(start) => start,
            None => {
                // A backtick is one byte: i + 1 is a character boundary.
                pos = i + 1;
                continue;
            }
        };
        match s[start..].find(FENCE) {
            Some(j) => {
                last = Some(&s[start..start + j]);
                pos = start + j + FENCE.len();
            }
            None => break,
        }
    }
    last
}

/// Where the body of a JSON fence whose header starts at b[i] (after the
/// backticks) starts.
fn json_fence_body(b: &[u8], mut i: usize) -> Option<usize> {
    let rest = &b[i..];
    if !rest.starts_with(b"json") && !rest.starts_with(b"JSON") {
        return None;
    }
    i += 4;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if i < b.len() && b[i] == b'\r' {
        i += 1;
    }
    if i < b.len() && b[i] == b'\n' {
        Some(i + 1)
    } else {
        None
    }
}
