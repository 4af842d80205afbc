// The agent-tasks example's test function in AssemblyScript: it passes an
// agent run whose answer, found by the engine's one rule (docs/agents.md,
// "The answer"), is the expected JSON document. An answer given as text
// (a task_complete argument, an <answer> tag) is parsed first.
//
// Config:
//
//   expected   the JSON document the answer must be (required)
//   tolerance  absolute difference allowed between numbers (default 0)
//
// Build: `task plugins` (or see docs/sdk-assemblyscript.md).

import {
  Value, Describe, TestInput, TestOutput, JSONOptions, compareJSON, findAnswer, answerText, parseString, get, num,
  quote, clip, serveDescribe, serveTest, serveTestBatch,
} from "../../../../sdk/assemblyscript/assembly/index";

// The native transport's exports, which every plugin built with the SDK has.
export { wasmeval_input, wasmeval_output } from "../../../../sdk/assemblyscript/assembly/index";

export function describe(): i32 {
  const d = new Describe("agent-json-answer", "1.0.0", ["test"]);
  const schema = parseString(`{"type":"object","required":["expected"],"additionalProperties":false,"properties":{"expected":{},"tolerance":{"type":"number","minimum":0}}}`);
  if (schema !== null) d.configSchema = schema;
  d.description = "Passes an agent run whose answer is the expected JSON document.";
  return serveDescribe(d);
}

export function test(): i32 { return serveTest(judge); }
export function test_batch(): i32 { return serveTestBatch(judge); }

function judge(input: TestInput): TestOutput | null {
  const out = new TestOutput();
  const expected = get(input.config, "expected");
  const found = findAnswer(input.result);
  const details = Value.newObject().set("rule", Value.str(found.rule)).set("expected", expected);
  out.details = details;
  if (!found.found) {
    out.feedback = "the agent gave no answer";
    return out;
  }
  let actual: Value | null = found.value;
  if (found.value.isString()) {
    actual = parseString(found.value.asString());
    if (actual === null) {
      out.feedback = "the answer is not JSON: " + quote(clip(found.value.asString(), 80));
      return out;
    }
  }
  const answer = actual as Value;
  details.set("answer", answer);
  const opts = new JSONOptions();
  opts.tolerance = num(input.config, "tolerance");
  const diff = compareJSON(expected, answer, opts);
  if (diff === null) {
    out.passed = true;
    out.feedback = "the answer (from " + found.rule + ") is the expected document " + answerText(expected);
    return out;
  }
  out.feedback = "the answer (from " + found.rule + ") is not the expected document: " + diff.summary;
  return out;
}
