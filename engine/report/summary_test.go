package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal/journaltest"
	"github.com/wasmeval/wasmeval/engine/problem"
)

// A summary that does not fit on the disk leaves the previous one whole.
func TestWriteOnAFullDiskKeepsThePreviousSummary(t *testing.T) {
	dir, _ := journaltest.Tmpfs(t, "64k")
	sum := func(groups int) []*CheckpointSummary {
		s := &CheckpointSummary{Name: "c1", Complete: true, GroupOutcomes: map[string]*GroupOutcome{}}
		for i := 0; i < groups; i++ {
			g := strings.Repeat("g", 200) + string(rune('a'+i%26)) + strings.Repeat("x", i)
			s.Groups = append(s.Groups, g)
			s.GroupOutcomes[g] = &GroupOutcome{Type: problem.Core, Results: map[string]float64{}, Failed: []string{}}
		}
		return []*CheckpointSummary{s}
	}
	if err := Write(dir, sum(2)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c1", "evaluation.json")
	before, _ := os.ReadFile(path)
	// Fill what is left of the disk.
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	filler.Close()
	err := Write(dir, sum(200))
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("write on a full disk: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatalf("the previous summary was damaged: %d bytes, was %d", len(after), len(before))
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("files left behind: %v", entries)
	}
}
