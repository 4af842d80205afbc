// Answer extraction for test functions, with the same rules as the Go and
// Rust SDKs.

import { Value, Kind, parseString } from "./json";
import { AgentRun } from "./models";
import { trimSpace } from "./text";

export const SOURCE_TASK_RESULT = "task_result";
export const SOURCE_TASK_COMPLETE = "task_complete";
export const SOURCE_ANSWER_TAG = "answer tag";
export const SOURCE_JSON_BLOCK = "json block";

/** The answer an agent gave and where it was found ("" when none). */
export class Answer {
  text: string = "";
  source: string = "";
  found: bool = false;
}

function answer(text: string, source: string): Answer {
  const a = new Answer();
  a.text = text; a.source = source; a.found = true;
  return a;
}

/** Finds the answer: task_result first, then the conversation, newest
 * message first — a task_complete tool call's arguments (newest first), the
 * last <answer>…</answer> tag, the last fenced JSON block. */
export function extractAnswer(run: AgentRun): Answer {
  const s = answerText(run.taskResult);
  if (s.length > 0) return answer(s, SOURCE_TASK_RESULT);
  for (let i = run.conversation.length - 1; i >= 0; i--) {
    const m = run.conversation[i];
    for (let j = m.toolCalls.length - 1; j >= 0; j--) {
      const tc = m.toolCalls[j];
      if (tc.name == "task_complete") {
        const t = answerText(tc.arguments);
        if (t.length > 0) return answer(t, SOURCE_TASK_COMPLETE);
      }
    }
    const tag = lastBetween(m.content, "<answer>", "</answer>", false);
    if (tag !== null) return answer(trimSpace(tag), SOURCE_ANSWER_TAG);
    const block = lastBetween(m.content, "```", "```", true);
    if (block !== null) {
      const v = parseString(trimSpace(block));
      if (v !== null) {
        const t = answerText(v);
        if (t.length > 0) return answer(t, SOURCE_JSON_BLOCK);
      }
    }
  }
  return new Answer();
}

/** Renders a result as an answer: a string trimmed, a number as written,
 * an object by its "answer", "result" or "final_answer" field. */
export function answerText(v: Value): string {
  if (v.kind == Kind.String) return trimSpace(v.s);
  if (v.kind == Kind.Number || v.kind == Kind.Float) return v.numberText();
  if (v.kind == Kind.Object) {
    const keys = ["answer", "result", "final_answer"];
    for (let i = 0; i < keys.length; i++) {
      if (v.obj.has(keys[i])) {
        const s = answerText(v.obj.get(keys[i]));
        if (s.length > 0) return s;
      }
    }
  }
  return "";
}

function lastBetween(s: string, open: string, close: string, jsonFence: bool): string | null {
  let last: string | null = null;
  let pos = 0;
  while (true) {
    const i = s.indexOf(open, pos);
    if (i < 0) break;
    let start = i + open.length;
    if (jsonFence && s.startsWith("json", start)) start += 4;
    const j = s.indexOf(close, start);
    if (j < 0) break;
    last = s.substring(start, j);
    pos = j + close.length;
  }
  return last;
}
