package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// A record's head is read from the start of its line when the journal
// wrote it, and from the whole line when the line is laid out otherwise;
// either way it is what decoding the line whole says.
func TestHeadIsWhatTheRecordSays(t *testing.T) {
	written, err := encodeRecord(&result.CaseRecord{Problem: "p <&>", ProblemVersion: 3, Checkpoint: "c\"1", Version: 2, Group: "g/ü",
		GroupType: "Core", ID: "case\t1", Result: result.Execution{Output: "out"}})
	if err != nil {
		t.Fatal(err)
	}
	retried, err := encodeRecord(&result.CaseRecord{Checkpoint: "c", Group: "g", ID: "a", Epoch: 3, Attempt: 2, Index: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line  string
		quick bool
	}{
		{string(written), true},
		{string(retried), true},
		{`{"checkpoint":"c","group":"g","id":"a","attempt":2}`, true},
		{`{"checkpoint":"c","group":"g","id":"a","index":1,"epoch":2}`, true}, // quick, but not what decoding whole gives (below)
		{`{"checkpoint":"c","group":"g","id":"a","case":{"arguments":[]}}`, true},
		{` { "problem" : "p" , "duration_s" : -1.5e3 , "checkpoint" : "c" , "group" : "g" , "id" : "a" } `, true},
		{`{"id":"a","group":"g","checkpoint":"c"}`, true},
		{`{"case":{"arguments":[]},"checkpoint":"c","group":"g","id":"a"}`, false}, // an object first
		{`{"checkpoint":"c","group":"g","group":"h","id":"a"}`, false},             // a key twice
		{`{"Checkpoint":"c","group":"g","id":"a"}`, false},                         // a key by another case
		{`{"checkpoint":"c","gr\u006fup":"g","id":"a"}`, false},                    // an escaped key
		{`{"checkpoint":"c","group":"g"}`, false},                                  // no id
	} {
		line := []byte(c.line + "\n")
		want, err := decodeLine("", 0, line)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		h, ok := QuickHead(line)
		wantHead := Head{want.Checkpoint, want.Group, want.ID, max(want.Epoch, 1), max(want.Attempt, 1)}
		if strings.Contains(c.line, `"index":1,"epoch":2`) {
			// Epoch and attempt are read only where the journal writes
			// them, after the id: a reader that must be sure compares
			// with the line decoded whole, as a rescore does.
			wantHead.Epoch = 1
		}
		if ok != c.quick || (ok && h != wantHead) {
			t.Errorf("QuickHead(%s) = %+v %v", c.line, h, ok)
		}
	}
	// Through a Reader, a line laid out otherwise is decoded whole, and
	// one that is not a record is an error.
	path := filepath.Join(t.TempDir(), FileName)
	lines := "{\"case\":{},\"checkpoint\":\"c\",\"group\":\"g\",\"id\":\"a\"}\n{\"checkpoint\":\"c\",\"index\":\"x\"}\n"
	os.WriteFile(path, []byte(lines), 0o644)
	r, err := OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	line, err := r.ReadLine(0)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := r.Head(line, 0); err != nil || h != (Head{"c", "g", "a", 1, 1}) {
		t.Errorf("head %+v %v", h, err)
	}
	off := int64(len(line))
	line, _ = r.ReadLine(off)
	var ce *CorruptError
	if _, err := r.Head(line, off); !errors.As(err, &ce) || !strings.Contains(err.Error(), "index: expected int") {
		t.Errorf("a corrupt line's head: %v", err)
	}
}

// ReadHeads gives what ReadOffsets gives, in the same order, and stops at
// the same corrupt line.
func TestReadHeadsIsReadOffsets(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1200; i++ {
		out := strings.Repeat("o", i%7*i) // chunks end on their size, or on their count
		if i == 345 {
			out = strings.Repeat("long ", 100000) // longer than a chunk
		}
		if err := w.Append(&result.CaseRecord{Checkpoint: "c", Group: fmt.Sprint(i % 3), ID: fmt.Sprint(i), Result: result.Execution{Output: out}}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	type rec struct {
		id   string
		off  int64
		size int
	}
	var want []rec
	var next int64
	if err := ReadOffsets(path, func(r *result.CaseRecord, off int64) error {
		if off != next && len(want) > 0 {
			want[len(want)-1].size = int(off - want[len(want)-1].off)
		}
		want = append(want, rec{r.ID, off, 0})
		next = off
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	want[len(want)-1].size = int(st.Size() - want[len(want)-1].off)
	for _, workers := range []int{1, 2, 5} {
		var got []rec
		err := ReadHeads(path, workers, func(h Head, line []byte) rec {
			return rec{h.ID, 0, len(line)}
		}, func(v rec, off int64, size int) error {
			if size != v.size {
				t.Fatalf("size %d for a line of %d", size, v.size)
			}
			v.off = off
			got = append(got, v)
			return nil
		})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("workers=%d: %d records, %v", workers, len(got), err)
		}
	}
	// A corrupt line: the same error, after the same records.
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[700] = "{not a record\n"
	lines[900] = "neither\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	n := 0
	wantErr := ReadOffsets(path, func(*result.CaseRecord, int64) error { n++; return nil })
	for _, workers := range []int{1, 4} {
		m := 0
		err := ReadHeads(path, workers, func(Head, []byte) bool { return true }, func(bool, int64, int) error { m++; return nil })
		if err == nil || err.Error() != wantErr.Error() || m != n {
			t.Errorf("workers=%d: %v after %d records; ReadOffsets: %v after %d", workers, err, m, wantErr, n)
		}
	}
	// fn's error stops it.
	stop := errors.New("stop")
	if err := ReadHeads(path, 3, func(Head, []byte) bool { return true }, func(bool, int64, int) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}

// A Reader reads lines longer than its buffer, and decodes a record with
// or without its attributes.
func TestReaderLinesAndAttributes(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 300<<10)
	recs := []*result.CaseRecord{
		{Checkpoint: "c", Group: "g", ID: "a", Case: &result.CaseInfo{Arguments: []string{"1"}}, Result: result.Execution{Output: long},
			Attributes: []verify.AttributeResult{{Attribute: "output", Actual: long, Expected: "y", Weight: 1, Diff: &verify.Diff{Summary: "differs"}}}},
		{Checkpoint: "c", Group: "g", ID: "b", Result: result.Execution{Output: "short"},
			Attributes: []verify.AttributeResult{{Attribute: "output", Actual: "short", Expected: "short", IsCorrect: true, Weight: 1}}, Passed: true, Score: 1},
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	r, err := OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var off int64
	for i, want := range recs {
		line, err := r.ReadLine(off)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := r.Decode(line, off, true)
		if err != nil {
			t.Fatal(err)
		}
		lean, err := r.Decode(line, off, false)
		if err != nil {
			t.Fatal(err)
		}
		if whole.Attributes[0].Actual != want.Attributes[0].Actual || lean.Attributes != nil {
			t.Errorf("record %d: attributes %+v, without them %+v", i, whole.Attributes, lean.Attributes)
		}
		lean.Attributes = whole.Attributes
		if !reflect.DeepEqual(lean, whole) {
			t.Errorf("record %d: decoded without attributes, the rest differs", i)
		}
		off += int64(len(line))
	}
	// Read back by offset, out of order.
	if rec, err := r.ReadAt(0); err != nil || rec.ID != "a" || rec.Result.Output != long {
		t.Errorf("ReadAt(0): %v", err)
	}
	if _, err := r.ReadLine(off); err == nil || !strings.Contains(err.Error(), "ends inside it") {
		t.Errorf("past the end: %v", err)
	}
}
