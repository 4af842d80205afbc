package answers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// The answercheck test function judges recorded agent runs: each run file
// is a test input envelope; its name says what the verdict must be.
func TestAnswerCheck(t *testing.T) {
	wasm := filepath.Join(t.TempDir(), "answercheck.wasm")
	if err := pluginbuild.Build("./plugins/answercheck", wasm); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{CacheDir: filepath.Join(os.TempDir(), "wasmeval-test-cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	p, err := h.Load(context.Background(), wasm, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		passed   bool
		feedback string
	}{
		"task_result.json":      {true, `answer "42" (from task_result)`},
		"tool_call.json":        {true, `answer "paris" (from task_complete)`},
		"answer_tag_wrong.json": {false, `answer "Lyon" (from answer tag) does not match "Paris"`},
		"json_block.json":       {true, `answer "Light Blue" (from json block)`},
		"no_answer.json":        {false, "no answer found"},
	}
	for name, w := range want {
		in, err := os.ReadFile(filepath.Join("runs", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := host.ValidateEnvelope("test_input", in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := p.Call(context.Background(), "test", in, host.CallOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := host.ValidateEnvelope("test_output", out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := string(out)
		if !strings.Contains(s, `"passed":`+map[bool]string{true: "true", false: "false"}[w.passed]) || !strings.Contains(strings.ReplaceAll(s, `\"`, `"`), w.feedback) {
			t.Errorf("%s: %s, want passed=%v and feedback containing %q", name, s, w.passed, w.feedback)
		}
	}
}
