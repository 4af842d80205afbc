package journal

import (
	"fmt"
	"math"
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

// A last line cut just before its newline parses, but it is still a torn
// write: Read, ReadOffsets and Repair all drop it.
func TestUnterminatedLastLineIsTornEverywhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}"), 0o644)
	var read, offsets []string
	if err := Read(path, func(r *result.CaseRecord) error { read = append(read, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := ReadOffsets(path, func(r *result.CaseRecord, _ int64) error { offsets = append(offsets, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := Repair(path); err != nil {
		t.Fatal(err)
	}
	var repaired []string
	Read(path, func(r *result.CaseRecord) error { repaired = append(repaired, r.ID); return nil })
	for name, ids := range map[string][]string{"Read": read, "ReadOffsets": offsets, "after Repair": repaired} {
		if strings.Join(ids, ",") != "a" {
			t.Errorf("%s: %v, want [a]", name, ids)
		}
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

func TestOffsetsAndRepair(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := w.Append(&result.CaseRecord{Checkpoint: "cp", Group: "g", ID: id, Result: result.Execution{Output: "out " + id}}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	// A torn last write, as after a crash.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"checkpoint":"cp","group":"g","id":"d","res`)
	f.Close()

	offsets := map[string]int64{}
	if err := ReadOffsets(path, func(r *result.CaseRecord, off int64) error {
		offsets[r.ID] = off
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(offsets) != 3 {
		t.Fatalf("offsets: %v", offsets)
	}
	rec, err := ReadAt(path, offsets["b"])
	if err != nil || rec.ID != "b" || rec.Result.Output != "out b" {
		t.Fatalf("ReadAt: %+v %v", rec, err)
	}
	if err := Repair(path); err != nil {
		t.Fatal(err)
	}
	w, _ = Create(path)
	w.Append(&result.CaseRecord{Checkpoint: "cp", Group: "g", ID: "e"})
	w.Close()
	var ids []string
	if err := Read(path, func(r *result.CaseRecord) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "a,b,c,e" {
		t.Fatalf("after repair and append: %v", ids)
	}
}

// Records appended together are read back in order, whole, however many
// writes they take; one that cannot be encoded leaves none of them.
func TestAppendAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*result.CaseRecord
	for i := 0; i < 300; i++ {
		recs = append(recs, &result.CaseRecord{Checkpoint: "c", Group: "g", ID: fmt.Sprint(i), Result: result.Execution{Output: strings.Repeat("x", i*50)}})
	}
	if err := w.AppendAll(recs); err != nil {
		t.Fatal(err)
	}
	bad := []*result.CaseRecord{recs[0], {ID: "nan", Score: math.NaN()}}
	for i := 0; i < 30; i++ {
		bad = append([]*result.CaseRecord{{ID: "big", Result: result.Execution{Output: strings.Repeat("y", 100<<10)}}}, bad...)
	}
	if err := w.AppendAll(bad); err == nil || !strings.Contains(err.Error(), "encode result of") {
		t.Fatalf("a record that cannot be encoded: %v", err)
	}
	if err := w.Append(recs[1]); err != nil {
		t.Fatal(err)
	}
	if w.Kept() != 301 {
		t.Errorf("kept %d", w.Kept())
	}
	w.Close()
	var ids []string
	if err := Read(path, func(r *result.CaseRecord) error {
		ids = append(ids, r.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 301 || ids[299] != "299" || ids[300] != "1" {
		t.Errorf("read back %d records: ...%v", len(ids), ids[max(0, len(ids)-3):])
	}
}
