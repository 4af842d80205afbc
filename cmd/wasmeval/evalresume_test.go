package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
)

// A dataset run cut short resumes from its directory alone: the manifest
// names the dataset file (not the directory it sits in), and only the
// cases missing from the journal run again.
func TestEvalCasesResume(t *testing.T) {
	runtest.RequirePython(t)
	out := t.TempDir()
	r := wasmeval(t, "run", evalCases+"/data/eval_cases.json", "--submission", evalCases+"/agents/reference",
		"--command", "python3 agent.py", "--out", out, "--no-history", "--progress", "none")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// As a run killed after its first three cases leaves it: those in the
	// journal, the manifest still saying running.
	path := filepath.Join(out, journal.FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	mdata, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	json.Unmarshal(mdata, &m)
	if p := m["problem"].(map[string]any)["path"].(string); !strings.HasSuffix(p, "eval_cases.json") {
		t.Fatalf("the manifest names %s, not the dataset", p)
	}
	m["status"] = "running"
	mdata, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(out, "manifest.json"), mdata, 0o644)

	r = wasmeval(t, "run", "--resume", out, "--no-history", "--progress", "none")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	seen := map[string]int{}
	journal.Read(path, func(rec *result.CaseRecord) error {
		seen[rec.ID]++
		return nil
	})
	if len(seen) != len(evalCaseIDs) {
		t.Errorf("%d cases after the resume, want %d", len(seen), len(evalCaseIDs))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s recorded %d times", id, n)
		}
	}
}
