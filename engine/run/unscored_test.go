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
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A verifier that cannot judge a case says so: the case is unscored,
// neither passed nor failed, in no denominator, and counted apart.
func TestVerifierLeavesACaseUnscored(t *testing.T) {
	prob := t.TempDir()
	wasm := filepath.Join(prob, "unscored.wasm")
	if err := pluginbuild.Build("./testdata/unscoredverifier", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"config.yaml": fmt.Sprintf(`name: unscored
command: sh main.sh
verifier: {type: plugin, path: unscored.wasm, sha256: %s}
checkpoints:
  c1:
    groups:
      core: {type: Core}
`, digest),
		"c1/core.yaml": `right: {arguments: [right], expected: {output: "ok\n"}}
wrong: {arguments: [wrong], expected: {output: "ok\n"}}
unknown: {arguments: [unknown], expected: {status_code: 0}}
`,
	}
	for name, body := range files {
		os.MkdirAll(filepath.Join(prob, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(prob, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "main.sh"), []byte(`if [ "$1" = wrong ]; then echo no; else echo ok; fi`+"\n"), 0o644)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	plugins, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plugins.Close()
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Plugins: plugins,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		got[r.ID] = string(r.Outcome) + " " + r.Unscored
		return nil
	})
	if got["right"] != "passed " || got["wrong"] != "failed " || !strings.HasPrefix(got["unknown"], "unscored unscoredverifier@") ||
		!strings.HasSuffix(got["unknown"], ": no reference output for case unknown") {
		t.Errorf("outcomes: %q", got)
	}
	s := res.Summaries[0]
	if s.Cases != 3 || s.CasesPassed != 1 || s.CasesFailed != 1 || s.CasesUnscored != 1 || s.TotalCounts["Core"] != 2 || s.MeanScore != 0.5 {
		t.Errorf("summary: %d cases, %d passed, %d failed, %d unscored, %v counted, mean %v", s.Cases, s.CasesPassed, s.CasesFailed, s.CasesUnscored, s.TotalCounts, s.MeanScore)
	}
	if !strings.Contains(s.VerdictLine(), "unscored: 1") {
		t.Errorf("verdict line %q", s.VerdictLine())
	}
}
