package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
)

func TestAppendConcurrentlyAndReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := w.Append(&result.CaseRecord{Checkpoint: "c", Group: fmt.Sprint(g), ID: fmt.Sprint(i), Score: float64(i)}); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	if err := Read(path, func(r *result.CaseRecord) error {
		seen[r.Key()] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 400 {
		t.Fatalf("read back %d distinct records, want 400", len(seen))
	}
}

func TestTornLastLineIsIgnored(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, _ := Create(path)
	w.Append(&result.CaseRecord{ID: "a"})
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"b","score":`)
	f.Close()
	var ids []string
	if err := Read(path, func(r *result.CaseRecord) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != "a" {
		t.Fatalf("got %v", ids)
	}
}

func TestCorruptMiddleLineIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("{\"id\":\"a\"}\nnot json\n{\"id\":\"c\"}\n"), 0o644)
	err := Read(path, func(*result.CaseRecord) error { return nil })
	if err == nil || !strings.Contains(err.Error(), ":2: corrupt journal line") {
		t.Fatalf("got %v", err)
	}
}
