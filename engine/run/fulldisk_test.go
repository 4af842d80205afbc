package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/journal/journaltest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// A run whose directory fills up mid-run stops at once with the
// journal's error, keeps a journal of whole records, and a resume once
// there is room again finishes it with one record per case.
func TestFullDiskStopsRunAndResumeFinishes(t *testing.T) {
	const perGroup = 30
	files := map[string]string{
		"config.yaml": "name: full\ncommand: sh big.sh\ncheckpoints:\n  c1:\n    groups:\n      g1: {type: Core}\n      g2: {type: Core}\n",
	}
	for _, g := range []string{"g1", "g2"} {
		for i := 1; i <= perGroup; i++ {
			files[fmt.Sprintf("c1/%s/case%02d/case.yaml", g, i)] = fmt.Sprintf("order: %d\narguments: [%s-%d]\nexpected: {status_code: 0}\n", i, g, i)
		}
	}
	dir := t.TempDir()
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	started := filepath.Join(t.TempDir(), "started")
	sub := t.TempDir()
	// Each case logs that it started (outside the full disk) and prints
	// 3 KB, so each record is about 3 KB.
	os.WriteFile(filepath.Join(sub, "big.sh"), []byte("echo \"$1\" >> "+started+"\nhead -c 3000 /dev/zero | tr '\\0' x\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, resize := journaltest.Tmpfs(t, "128k")
	opts := Options{Problem: p, Submission: sub, OutDir: out, Jobs: 2, Loader: BuiltinLoader,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()})}

	_, err = Run(context.Background(), opts)
	var je *JournalError
	jpath := filepath.Join(out, journal.FileName)
	if !errors.As(err, &je) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("run on a full disk: %v, want a JournalError for ENOSPC", err)
	}
	keys := journalKeys(t, jpath)
	msg := err.Error()
	if je.Kept != len(keys) || !strings.Contains(msg, jpath) || !strings.Contains(msg, "no space left on device") ||
		!strings.Contains(msg, fmt.Sprintf("with %d finished results kept", len(keys))) {
		t.Fatalf("kept %d, journal has %d; message: %s", je.Kept, len(keys), msg)
	}
	if len(keys) == 0 || len(keys) >= 2*perGroup {
		t.Fatalf("journal has %d records: the disk did not fill mid-run", len(keys))
	}
	// Stopped at once: besides the cases kept, at most the one in flight
	// in each of the two groups had started.
	data, _ := os.ReadFile(started)
	if n := len(strings.Fields(string(data))); n > len(keys)+2 {
		t.Fatalf("%d cases started, %d kept: cases went on starting after the journal failed", n, len(keys))
	}

	resize("4m")
	fin, corrupt, err := LoadFinishedSalvaging(jpath)
	if err != nil || corrupt != nil {
		t.Fatalf("load the journal for a resume: %v %v", corrupt, err)
	}
	resumed := opts
	resumed.Resume = fin
	res, err := Run(context.Background(), resumed)
	if err != nil {
		t.Fatal(err)
	}
	keys = journalKeys(t, jpath)
	seen := map[string]int{}
	for _, k := range keys {
		seen[k]++
	}
	for _, g := range []string{"g1", "g2"} {
		for i := 1; i <= perGroup; i++ {
			if k := fmt.Sprintf("c1/%s/case%02d", g, i); seen[k] != 1 {
				t.Errorf("%s has %d records", k, seen[k])
			}
		}
	}
	if len(keys) != 2*perGroup || !res.Passed || res.Summaries[0].Cases != 2*perGroup || !res.Summaries[0].Complete {
		t.Fatalf("after resume: %d records, passed %v, summary %+v", len(keys), res.Passed, res.Summaries[0])
	}
}

// journalKeys reads a journal into case keys, failing on any bad line.
func journalKeys(t *testing.T, path string) []string {
	t.Helper()
	var keys []string
	if err := journal.Read(path, func(r *result.CaseRecord) error {
		keys = append(keys, r.Key())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if c, err := journal.Check(path); c != nil || err != nil {
		t.Fatalf("journal check: %v %v", c, err)
	}
	if data, _ := os.ReadFile(path); len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatal("the journal ends with a partial line")
	}
	return keys
}
