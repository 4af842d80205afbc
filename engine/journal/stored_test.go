package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// A large output that a check's actual value repeats is written once, and
// read back the record is exactly what was appended; short values stay as
// they are, and lines written before the reference existed still read.
func TestLargeActualValuesAreStoredOnce(t *testing.T) {
	out := strings.Repeat("line of output\n", 10000)
	errText := strings.Repeat("warning\n", 500)
	rec := &result.CaseRecord{Checkpoint: "c", Group: "g", ID: "big", Case: &result.CaseInfo{},
		Result: result.Execution{Output: out, Stderr: errText},
		Attributes: []verify.AttributeResult{
			{Attribute: "output", Actual: out, Expected: "something else\n", Weight: 1, Check: "text"},
			{Attribute: "stderr", Actual: errText, Expected: errText, IsCorrect: true, Weight: 1, Check: "text"},
			{Attribute: "status_code", Actual: json.Number("0"), Expected: json.Number("0"), IsCorrect: true, Weight: 1, Check: "exact"},
		}}
	small := &result.CaseRecord{Checkpoint: "c", Group: "g", ID: "small", Result: result.Execution{Output: "hi\n"},
		Attributes: []verify.AttributeResult{{Attribute: "output", Actual: "hi\n", Expected: "hi\n", IsCorrect: true, Weight: 1}}}
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*result.CaseRecord{rec, small} {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A line written by an earlier version, with the value inline.
	old := []byte(`{"checkpoint":"c","group":"g","id":"old","result":{"output":"x"},"attributes":[{"attribute":"output","actual":"x","expected":"x","is_correct":true,"weight":1}],"score":1,"passed":true}` + "\n")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(old)
	f.Close()

	data, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if n := bytes.Count(lines[0], []byte("line of output")); n != 10000 {
		t.Errorf("the output is written %d times over, want once", n/10000)
	}
	if !bytes.Contains(lines[1], []byte(`"actual":"hi\n"`)) {
		t.Errorf("a short value is referred to: %s", lines[1])
	}
	var got []*result.CaseRecord
	if err := Read(path, func(r *result.CaseRecord) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !reflect.DeepEqual(got[0], rec) || !reflect.DeepEqual(got[1], small) || got[2].Attributes[0].Actual != "x" {
		t.Fatalf("read back differently:\n%+v\n%+v\n%+v", got[0].Attributes, got[1], got[2])
	}
}

// A reference to a field the journal does not know is a corrupt line.
func TestUnknownActualReferenceIsCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	line := `{"checkpoint":"c","group":"g","id":"a","result":{"output":"x"},"attributes":[{"attribute":"output","actual":null,"actual_from":"case.secret"}],"passed":false}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Read(path, func(*result.CaseRecord) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `:1: corrupt journal line: attribute 0: actual_from "case.secret"`) {
		t.Fatalf("got %v", err)
	}
}
