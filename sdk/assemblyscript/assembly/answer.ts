// The agent's answer for test functions: the engine's one rule
// (docs/agents.md, "The answer"), as every SDK applies it.

import { Value, Kind, parseString } from "./json";
import { AgentRun, Answer, Message, ToolCall } from "./models";
import { trimSpace } from "./text";

/** The rules that find an answer, in the order they are tried. */
export const RULE_TASK_RESULT = "task_result";
export const RULE_TASK_COMPLETE = "task_complete";
export const RULE_ANSWER_TAG = "answer_tag";
export const RULE_JSON_BLOCK = "json_block";
export const RULE_FINAL_REPLY = "final_reply";
export const RULE_NONE = "none";

function answer(value: Value, rule: string): Answer {
  const a = new Answer();
  a.value = value;
  a.rule = rule;
  return a;
}

/** The agent's answer and the rule that found it, by the engine's one
 * rule. The host sends it in the run (run.answer); for a run from a host
 * that does not, it is found from the run's fields by the same rule:
 *
 * 1. task_result, when present and not empty (null, a blank string, {}
 *    and [] are empty; 0 and false are answers);
 * 2. else the arguments of the last task_complete call in the
 *    conversation: their "answer" field, else their "result" field, else
 *    the whole arguments (their text when they are not JSON);
 * 3. else the last <answer>…</answer> in the final reply — the last
 *    assistant message with text — trimmed;
 * 4. else the last fenced ```json block in the final reply, parsed (a
 *    block that is not JSON: this rule finds nothing);
 * 5. else the final reply, trimmed.
 *
 * Otherwise the rule is RULE_NONE and the value null. */
export function findAnswer(run: AgentRun): Answer {
  const given = run.answer;
  if (given !== null) return given;
  if (!emptyAnswer(run.taskResult)) return answer(run.taskResult, RULE_TASK_RESULT);
  const call = lastCall(run.conversation, "task_complete");
  if (call !== null) return answer(completionValue(call), RULE_TASK_COMPLETE);
  const reply = finalReply(run.conversation);
  if (reply === null) return answer(Value.null(), RULE_NONE);
  const tag = lastAnswerTag(reply);
  if (tag !== null) return answer(Value.str(trimSpace(tag)), RULE_ANSWER_TAG);
  const block = lastJSONBlock(reply);
  if (block !== null) {
    const v = parseString(block);
    if (v !== null) return answer(v, RULE_JSON_BLOCK);
  }
  return answer(Value.str(trimSpace(reply)), RULE_FINAL_REPLY);
}

/** An answer's value as text: a string as it is, null as "", anything
 * else its JSON text (canonical, numbers as written). */
export function answerText(v: Value): string {
  if (v.kind == Kind.Null) return "";
  if (v.kind == Kind.String) return v.s;
  if (v.kind == Kind.Number) return v.numberText();
  const s = v.toJSON();
  return s === null ? "" : s;
}

/** Whether a task_result is no answer: null, a blank string, {} or []. */
function emptyAnswer(v: Value): bool {
  switch (v.kind) {
    case Kind.Null: return true;
    case Kind.String: return trimSpace(v.s).length == 0;
    case Kind.Array: return v.arr.length == 0;
    case Kind.Object: return v.obj.size == 0;
  }
  return false;
}

/** The last call of the named tool anywhere in the conversation. */
function lastCall(conv: Array<Message>, name: string): ToolCall | null {
  for (let i = conv.length - 1; i >= 0; i--) {
    const calls = conv[i].toolCalls;
    for (let j = calls.length - 1; j >= 0; j--) {
      if (calls[j].name == name) return calls[j];
    }
  }
  return null;
}

/** The answer a task_complete call hands in. Arguments that are not JSON
 * are their text: flagged by argumentsError, or, from hosts before it,
 * sent as a string in arguments (returned whole below). */
function completionValue(call: ToolCall): Value {
  if (call.argumentsError.length > 0) return Value.str(call.rawArguments);
  const args = call.arguments;
  if (args.kind == Kind.Object) {
    const keys = ["answer", "result"];
    for (let i = 0; i < keys.length; i++) {
      if (args.obj.has(keys[i])) {
        const v = args.obj.get(keys[i]);
        if (v.kind != Kind.Null) return v;
      }
    }
  }
  return args;
}

/** The text of the last assistant message whose text is not blank. */
function finalReply(conv: Array<Message>): string | null {
  for (let i = conv.length - 1; i >= 0; i--) {
    const m = conv[i];
    if (m.role == "assistant" && trimSpace(m.content).length > 0) return m.content;
  }
  return null;
}

/** The text of the last <answer>…</answer>: each tag closes at the first
 * </answer> after it. */
function lastAnswerTag(s: string): string | null {
  let last: string | null = null;
  let pos = 0;
  while (true) {
    const i = s.indexOf("<answer>", pos);
    if (i < 0) break;
    const start = i + 8;
    const j = s.indexOf("</answer>", start);
    if (j < 0) break;
    last = s.substring(start, j);
    pos = j + 9;
  }
  return last;
}

/** The body of the last fenced JSON block: ``` then json or JSON, spaces
 * or tabs and a line break, up to the next ```. A fence that opens no such
 * block is passed one character at a time, as the engine's regular
 * expression does. */
function lastJSONBlock(s: string): string | null {
  let last: string | null = null;
  let pos = 0;
  while (true) {
    const i = s.indexOf("```", pos);
    if (i < 0) break;
    const start = jsonFenceBody(s, i + 3);
    if (start < 0) { pos = i + 1; continue; }
    const j = s.indexOf("```", start);
    if (j < 0) break;
    last = s.substring(start, j);
    pos = j + 3;
  }
  return last;
}

/** Where the body of a JSON fence whose header starts at s[i] (after the
 * backticks) starts; -1 when it opens no JSON block. */
function jsonFenceBody(s: string, i: i32): i32 {
  if (!s.startsWith("json", i) && !s.startsWith("JSON", i)) return -1;
  i += 4;
  while (i < s.length && (s.charCodeAt(i) == 0x20 || s.charCodeAt(i) == 0x09)) i++;
  if (i < s.length && s.charCodeAt(i) == 0x0d) i++;
  if (i < s.length && s.charCodeAt(i) == 0x0a) return i + 1;
  return -1;
}
