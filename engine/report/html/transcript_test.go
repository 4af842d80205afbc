package html

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// agentOutput is an agent's result mixing both dialects, with markup in
// every place an agent can put text: a user message, a tool name, a call
// id, a tool result, the answer.
const agentOutput = `{
  "status": "completed",
  "iterations": 3,
  "conversation": [
    {"role": "system", "content": "You are careful."},
    {"role": "user", "content": "List files <script>window.__pwned = 1</script>"},
    {"role": "assistant", "content": [
      {"type": "thinking", "thinking": "secret plan: look around"},
      {"type": "text", "text": "I'll look."},
      {"type": "tool_use", "id": "toolu_\"1", "name": "bash<i>", "input": {"command": "ls <dir>", "n": 12.50}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_\"1", "is_error": true,
       "content": "<img src=x onerror=\"window.__pwned = 2\">permission denied"}]},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": "}}]},
    {"role": "tool", "tool_call_id": "call_2", "content": "{\"temperature\": 18}"},
    {"role": "tool", "tool_call_id": "call_zz", "content": "stray"},
    {"role": "assistant", "content": "Done. <answer>42 <b>files</b></answer>"}
  ],
  "execution_trace": [{"action": "bash ls", "feedback": {"exit": 1}}, {"action": "answer", "feedback": null}],
  "usage": {"input_tokens": 412, "output_tokens": 96, "cost": 0.0021},
  "elapsed_seconds": 3.41
}`

// agentRun writes a run directory with agent cases: q1 the result above,
// q2 an output that is not a result (with markup and a control byte), q3
// a conversation far over the transcript's size limit, and a plain case.
func agentRun(t *testing.T) (string, []*report.CheckpointSummary) {
	t.Helper()
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var huge strings.Builder
	huge.WriteString(`{"conversation": [`)
	for i := range 2000 {
		if i > 0 {
			huge.WriteString(",")
		}
		fmt.Fprintf(&huge, `{"role": "user", "content": "message %d %s"}`, i, strings.Repeat("x", 1000))
	}
	huge.WriteString(`]}`)
	for _, c := range []struct {
		id, output string
		agent      bool
		pass       bool
	}{
		{"q1", agentOutput, true, true},
		{"q2", "<script>window.__pwned = 3</script>Traceback\x00 (most recent call last)", true, false},
		{"q3", huge.String(), true, true},
		{"plain", "hello\n", false, true},
	} {
		r := &result.CaseRecord{Problem: "agents", Checkpoint: "c1", Group: "g", GroupType: problem.Core, ID: c.id, StartedAt: time.Now(),
			Case:   &result.CaseInfo{Instruction: "Count the files in <dir>", Category: "happy_path"},
			Result: result.Execution{Agent: c.agent, Output: c.output, Elapsed: 4.5}}
		r.Attributes = []verify.AttributeResult{{Attribute: "output", IsCorrect: c.pass, Weight: 1, Expected: "x", Actual: "y"}}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sums, err := report.FromRun(dir, nil, report.Judging{Policy: result.PolicyAllCases}, "run-agents")
	if err != nil {
		t.Fatal(err)
	}
	return dir, sums
}

func TestTranscriptsInThePage(t *testing.T) {
	dir, sums := agentRun(t)
	var buf bytes.Buffer
	if err := Write(&buf, dir, Options{Run: report.RunInfo{RunID: "run-agents", Problem: "agents"}}, sums); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	// The agent's markup is text, never markup of the page.
	for _, bad := range []string{"<script>window.__pwned", "<img src=x", "<b>files</b>", "<i>", "\x00"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page carries the agent's %q unescaped", bad)
		}
	}
	for _, want := range []string{
		`&lt;script&gt;window.__pwned = 1&lt;/script&gt;`,       // the user message
		`<details class="thinking"><summary>thinking</summary>`, // collapsed
		`&#34;command&#34;: &#34;ls &lt;dir&gt;&#34;`,           // pretty JSON, escaped
		`&#34;n&#34;: 12.50`,                                    // numbers as written
		`result (error)`,                                        // is_error
		`arguments are not JSON`,                                // bad arguments, shown raw
		`{&#34;city&#34;: </pre>`,                               // … as written
		`a tool result that answers no call (id call_zz)`,
		`answer found by rule <code class="rule">answer_tag</code> (message 7)`,
		`42 &lt;b&gt;files&lt;/b&gt;`,
		`412 input &#43; 96 output = 508 tokens, $0.0021`,
		`3.41s (agent), 4.50s (run)`,
		`<pre class="instruction">Count the files in &lt;dir&gt;</pre>`,
		`The output is not an agent result: output: not JSON`,
		"<pre class=\"raw\">&lt;script&gt;window.__pwned = 3&lt;/script&gt;Traceback\uFFFD",
		`more messages not shown`,
		`href="#tr-case-c1.2f.g.2f.q1"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, `href="#tr-case-c1.2f.g.2f.plain"`) {
		t.Error("a case that is not an agent's has a transcript link")
	}
	// The huge conversation is cut near the transcript's limit: the page
	// stays far below the 2 MB the conversation holds.
	if len(page) > 400<<10 {
		t.Errorf("the page is %d bytes", len(page))
	}
}

// The page holds at most MaxTranscripts transcripts and says how many
// more there are.
func TestTranscriptCount(t *testing.T) {
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxTranscripts + 3 {
		r := &result.CaseRecord{Problem: "agents", Checkpoint: "c1", Group: "g", GroupType: problem.Core, ID: fmt.Sprint("q", i),
			Result: result.Execution{Agent: true, Output: `{"task_result": 1}`}}
		r.Attributes = []verify.AttributeResult{{Attribute: "output", IsCorrect: true, Weight: 1}}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	sums, err := report.FromRun(dir, nil, report.Judging{Policy: result.PolicyAllCases}, "r")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, dir, Options{}, sums); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `<details class="transcript"`); n != MaxTranscripts {
		t.Errorf("%d transcripts", n)
	}
	if !strings.Contains(buf.String(), `<p id="more-transcripts">3 more agent transcripts`) {
		t.Error("no note of the transcripts left out")
	}
}
