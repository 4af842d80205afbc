package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadInputs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"p/add/config.yaml":        "name: add\n",
		"p/wc/config.yaml":         "name: wc\n",
		"s/ref/add/add.py":         "",
		"s/ref/wc/wc.py":           "",
		"elsewhere/add/add.py":     "",
		"batch.yaml":               "problems: [p/*]\nsubmissions:\n  ref: {dir: s/ref}\n  other:\n    problems: {add: elsewhere/add}\n",
		"unknown.yaml":             "problems: [p/*]\nsubmissions:\n  ref: {dir: s/ref, seed: 3}\n",
		"both.yaml":                "problems: [p/*]\nsubmissions:\n  ref: {dir: s/ref, problems: {add: s/ref/add}}\n",
		"badname.yaml":             "problems: [p/*]\nsubmissions:\n  ../x: {dir: s/ref}\n",
		"otherproblem.yaml":        "problems: [p/add]\nsubmissions:\n  ref: {problems: {wc: s/ref/wc}}\n",
		"nomatch.yaml":             "problems: [nothing/*]\nsubmissions:\n  ref: {dir: s/ref}\n",
		"p/README.md":              "not a problem",
		"s/ref/add/extra/file.txt": "",
	})
	plan, err := LoadInputs(filepath.Join(dir, "batch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Problems) != 2 || plan.Problems[0].Name != "add" || plan.Problems[1].Name != "wc" {
		t.Fatalf("problems %+v", plan.Problems)
	}
	pairs := plan.Pairs()
	missing := 0
	for _, k := range pairs {
		if k.Missing {
			missing++
			if k.Submission != "other" || k.Problem != "wc" {
				t.Errorf("missing pair %+v", k)
			}
		}
	}
	if len(pairs) != 4 || missing != 1 {
		t.Errorf("%d pairs, %d missing; want 4, 1", len(pairs), missing)
	}
	for file, want := range map[string]string{
		"unknown.yaml":      "seed",
		"both.yaml":         "exactly one of dir",
		"badname.yaml":      "path separator",
		"otherproblem.yaml": `names problem "wc", which is not in the batch`,
		"nomatch.yaml":      "matches no directory",
	} {
		_, err := LoadInputs(filepath.Join(dir, file))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: error %v; want one naming the file and %q", file, err, want)
		}
	}
}
