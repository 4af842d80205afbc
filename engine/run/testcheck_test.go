package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// testAgent is a scripted agent: it prints (or writes to result.json) the
// result JSON its first argument names.
const testAgent = `case "$1" in
right) echo '{"task_result": "The capital of France is Paris.", "status": "completed"}' ;;
wrong) echo '{"task_result": "London, I think."}' ;;
prose) echo 'I am done: the answer is Paris.' ;;
shape) echo '{"task_result": "Paris", "conversation": "hello"}' ;;
unsure) echo '{"task_result": "unsure"}' ;;
openai) cat <<'JSON'
{"conversation": [
  {"role": "user", "content": "What is the capital of France?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"capital of France\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "Paris is the capital of France."},
  {"role": "assistant", "content": "It is Paris."}
]}
JSON
;;
file) echo '{"task_result": "Paris"}' > result.json; echo 'wrote result.json' ;;
nofile) echo 'forgot to write it' ;;
esac
`

func buildPlugin(t testing.TB, dir, name string) (string, string) {
	t.Helper()
	wasm := filepath.Join(dir, name+".wasm")
	if err := pluginbuild.Build("./testdata/"+name, wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	return wasm, digest
}

func writeTestFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A test check judges an agent's result JSON, read from the attribute,
// with a test-function plugin: its verdict is the attribute's, its
// feedback the diff's summary. What is not a result is the agent's
// failure, not an error.
func TestTestCheckJudgesAnAgentResult(t *testing.T) {
	prob := t.TempDir()
	_, digest := buildPlugin(t, prob, "wordtest")
	writeTestFiles(t, prob, map[string]string{
		"config.yaml": fmt.Sprintf(`name: agentic
command: sh agent.sh
checkpoints:
  c1:
    groups:
      core:
        type: Core
        checks:
          - kind: test
            plugin: {path: wordtest.wasm, sha256: %[1]s, config: {word: paris}}
      files:
        type: Core
        checks:
          - kind: test
            attribute: files-result.json
            plugin: {path: wordtest.wasm, sha256: %[1]s, config: {word: paris}}
`, digest),
		"c1/core.yaml": `right: {arguments: [right]}
wrong: {arguments: [wrong]}
prose: {arguments: [prose]}
shape: {arguments: [shape]}
unsure: {arguments: [unsure]}
openai: {arguments: [openai]}
`,
		"c1/files.yaml": `file: {arguments: [file], tracked_files: [result.json]}
nofile: {arguments: [nofile], tracked_files: [result.json]}
`,
	})
	sub := t.TempDir()
	writeTestFiles(t, sub, map[string]string{"agent.sh": testAgent})
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	plugins := runtest.Host(t, host.Options{})
	if err := Validate(context.Background(), p, BuiltinLoader, plugins); err != nil {
		t.Fatalf("validation: %v", err)
	}
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Plugins: plugins,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader})
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]*result.CaseRecord{}
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs[r.ID] = r
		return nil
	})
	want := map[string]struct{ outcome, summary string }{
		"right":  {"passed", ""},
		"wrong":  {"failed", `task_result does not mention "paris": "London, I think."`},
		"prose":  {"failed", `output: not JSON: invalid character 'I' looking for beginning of value (at byte 1); it begins "I am done: the answer is Paris.\n"`},
		"shape":  {"failed", "output: conversation: expected a list, got a string"},
		"unsure": {"unscored", "not judged: the agent declined to answer"},
		"openai": {"passed", ""},
		"file":   {"passed", ""},
		"nofile": {"failed", "result.json: not written, so there is no agent result to judge"},
	}
	for id, w := range want {
		r := recs[id]
		if r == nil {
			t.Errorf("%s: no record", id)
			continue
		}
		if string(r.Outcome) != w.outcome || len(r.Attributes) != 1 {
			t.Errorf("%s: outcome %s (%s), %d attributes %+v; want %s", id, r.Outcome, r.ErrorKind, len(r.Attributes), r.Attributes, w.outcome)
			continue
		}
		a := r.Attributes[0]
		if !strings.HasPrefix(a.Check, "wordtest@") {
			t.Errorf("%s: check %q, want the plugin's label", id, a.Check)
		}
		got := ""
		if a.Diff != nil {
			got = a.Diff.Summary
		}
		if got != w.summary {
			t.Errorf("%s: diff summary %q, want %q", id, got, w.summary)
		}
	}
	if r := recs["openai"]; r != nil && len(r.Attributes) == 1 {
		// The plugin saw the conversation normalised: the tool call's reply
		// is a message of its own, and the answer is the last assistant
		// message.
		d, _ := r.Attributes[0].Actual.(map[string]any)
		if d["answer"] != "It is Paris." || d["from"] != "the last assistant message" || fmt.Sprint(d["messages"]) != "4" {
			t.Errorf("openai: the plugin's details %v", r.Attributes[0].Actual)
		}
	}
	if r := recs["unsure"]; r != nil && !strings.HasPrefix(r.Unscored, "wordtest@") || !strings.HasSuffix(recs["unsure"].Unscored, ": the agent declined to answer") {
		t.Errorf("unsure: unscored %q", recs["unsure"].Unscored)
	}
	s := res.Summaries[0]
	if s.Cases != 8 || s.CasesPassed != 3 || s.CasesFailed != 4 || s.CasesUnscored != 1 || s.CasesErrored != 0 {
		t.Errorf("summary: %d cases, %d passed, %d failed, %d unscored, %d errors", s.Cases, s.CasesPassed, s.CasesFailed, s.CasesUnscored, s.CasesErrored)
	}
}

// A test check's binding is checked when the problem is validated: the
// plugin must be a test function, and its config must satisfy the
// plugin's config_schema; both are reported at the binding's line.
func TestTestCheckBindingIsValidated(t *testing.T) {
	prob := t.TempDir()
	_, testDigest := buildPlugin(t, prob, "wordtest")
	_, verifierDigest := buildPlugin(t, prob, "unscoredverifier")
	writeTestFiles(t, prob, map[string]string{
		"config.yaml": fmt.Sprintf(`name: agentic
command: sh agent.sh
checkpoints:
  c1:
    groups:
      core:
        type: Core
        checks:
          - kind: test
            plugin: {path: wordtest.wasm, sha256: %s, config: {wrd: paris}}
      other:
        type: Core
        checks:
          - kind: test
            plugin: {path: unscoredverifier.wasm, sha256: %s}
`, testDigest, verifierDigest),
		"c1/core.yaml":  "right: {arguments: [right]}\n",
		"c1/other.yaml": "right: {arguments: [right]}\n",
	})
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, runtest.Host(t, host.Options{}))
	if err == nil {
		t.Fatal("validation passed")
	}
	for _, want := range []string{
		"config.yaml:9: checkpoints.c1.groups.core.checks[0].plugin.config: plugin wordtest@",
		"refuses this config (its config_schema)",
		"additional properties 'wrd' not allowed",
		"config.yaml:14: checkpoints.c1.groups.other.checks[0].plugin: plugin unscoredverifier@",
		"is not a test function (it declares [verifier])",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation error lacks %q:\n%v", want, err)
		}
	}
}
