package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: the parser never panics, and what it accepts can be queried,
// answered and rendered for the ABI without panicking.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `{"conversation": [{"role": "tool"}]}`,
		`{"conversation": [{"role": "assistant", "tool_calls": [{"function": {"name": "task_complete", "arguments": "[1"}}]}]}`,
		`{"conversation": [{"role": "user", "content": [{"type": "tool_result", "content": [{"type": "text"}]}]}]}`,
		`{"iterations": 1e400, "usage": {"cost": 1e400}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data, Options{MaxBytes: 1 << 20})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		c := r.Conversation
		_ = r.Answer()
		_ = c.ToolCounts()
		_ = c.Exchanges()
		_ = c.UnlinkedResults()
		_ = c.FinalReply()
		for _, call := range c.ToolCalls() {
			_ = c.ToolOutputs(call.Name)
		}
		if _, err := json.Marshal(r.AgentRun()); err != nil {
			t.Fatalf("AgentRun does not marshal: %v", err)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("Result does not marshal: %v", err)
		}
	})
}
