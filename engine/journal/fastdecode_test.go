package journal

import (
	"fmt"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// sampleRecords are records as runs write them, with every field used
// somewhere, values that need escapes, and empty and missing lists.
func sampleRecords() []*result.CaseRecord {
	stdin := "line 1\nline \"2\"\t<&>"
	big := strings.Repeat("output line\n", 200)
	return []*result.CaseRecord{
		{},
		{Problem: "inventory", ProblemVersion: 2, Checkpoint: "checkpoint_1", Version: 3, Group: "summary", GroupType: "Core",
			ID: "basic", Index: 4, OriginalCheckpoint: "c0", OriginalGroup: "g0", StartedAt: time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC),
			Duration: 0.125, Case: &result.CaseInfo{Arguments: []string{"summary", "--x=<&>", ""}, Stdin: &stdin, Env: map[string]string{"A": "1", "É": ""},
				InputFiles: []string{"in/a.csv"}, TimeoutS: 30, Reset: true, Source: "c1/summary.yaml"},
			Result: result.Execution{Command: []string{"python3", "main.py"}, StatusCode: -1, Output: big, Stderr: "warn: ünïcödé ✓ \u2028 \x7f",
				OutputDropped: 1 << 40, StderrDropped: 3, Elapsed: 1e-9, TimedOut: true, Signal: "killed",
				Files:   map[string]any{"out.json": map[string]any{"a": []any{1.5, "x", nil, true, map[string]any{}}, "b": []any{}}, "n": 1e300},
				Headers: map[string]string{"content-type": "text/plain"}, Artifacts: []string{"artifacts/x.log"}, AdapterError: true,
				MockCalls: []abi.MockCall{{Mock: "payments", Method: "POST", Path: "/v1/charges", Query: map[string][]string{"a": {"1", "<&>"}},
					Headers: map[string][]string{"content-type": {"application/json"}}, Body: `{"amount":1999}`, Status: 201, Route: 0},
					{Mock: "rates", Method: "GET", Path: "/x", BodyBase64: "AAE=", Status: 501, Route: -1, Unmatched: true, Fault: "trap"}},
				MockCallsDropped: 7, MockError: "mock \"rates\": cannot listen",
				Error: "could not start", PluginError: "verifier trapped", OOMKilled: true},
			Attributes: []verify.AttributeResult{
				{Attribute: "output", Actual: big, Expected: "other\n", Check: "text", Weight: 2,
					Diff: &verify.Diff{Summary: "line 1 differs", Unified: "--- a\n+++ b\n", Truncated: true,
						Entries: []verify.DiffEntry{{Path: "line 1", Op: "changed", Expected: "a", Actual: "b"}, {Path: "$", Op: "missing"}}}},
				{Attribute: "status_code", Actual: 0.0, Expected: -3.25e-7, IsCorrect: true, Weight: 1, Check: "exact"},
				{Attribute: "json", Actual: map[string]any{"k": []any{"v", 2.0}}, Expected: nil, Weight: 0.5, Diff: &verify.Diff{Entries: []verify.DiffEntry{}}},
			},
			Score: 1.0 / 3, Passed: false, Outcome: result.OutcomeError, ErrorKind: result.ErrorPlugin, Unscored: "no \"reference\"",
			Epoch: 2, Attempt: 3},
		{Checkpoint: "c", Group: "g", ID: "empty lists", Case: &result.CaseInfo{Arguments: []string{}, Env: map[string]string{}},
			Result: result.Execution{Command: []string{}, Files: map[string]any{}, Headers: map[string]string{}}, Attributes: []verify.AttributeResult{}},
	}
}

// sampleLines are lines a journal may hold: the records as written, and
// lines written otherwise (by hand, by another tool) that are records all
// the same, or are not.
func sampleLines(t testing.TB) []string {
	var lines []string
	for _, r := range sampleRecords() {
		line, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
	}
	return append(lines,
		` { "id" : "a" , "index" : -0 , "score" : 1E+2 , "passed" : true , "case" : { "arguments" : [ "x" , null ] } } `,
		`{"id":"\u00e9\ud83d\ude00\ud800 \/ \b\f\n\r\t","group":"caf\u00e9","checkpoint":"\""}`,
		"{\"id\":\"bytes \xff\xfe not UTF-8\",\"result\":{\"output\":\"\xc3\x28\"}}",
		`{"id":null,"case":null,"result":null,"attributes":null,"started_at":null,"score":null,"passed":null}`,
		`{"attributes":[null,{"actual":null,"diff":null},{"diff":{"entries":[null]}}]}`,
		`{"id":"a","id":"b"}`,              // a key twice: the last counts
		`{"ID":"a","Result":{"Output":1}}`, // keys by another case
		`{"id":"a","extra":{"x":[1,2]}}`,   // a key no field has
		`{"index":1.5}`, `{"index":1e3}`, `{"index":99999999999999999999}`, `{"score":1e999}`, `{"score":"1"}`,
		`{"passed":"no"}`, `{"id":5}`, `{"case":[]}`, `{"started_at":"yesterday"}`, `{"started_at":5}`,
		`{"attributes":[{"actual_from":"result.nowhere"}]}`, `{"attributes":[{"actual_from":"result.output"}],"result":{"output":"x"}}`,
		`{"result":{"files":{"a":01}}}`, `{"result":{"files":{"a":-}}}`, `{"id":"a",}`, `{"id":"a"} x`, `{"id":"a`, `{"id":"tab	in it"}`,
		`{"id":"\x"}`, `{"id":"\u12"}`, `{"result":{"headers":{"a":1}}}`, `{"case":{"env":{"a":null}}}`, `{"attributes":{}}`,
		`{"result":{"files":{"k":1,"k":2}}}`, `[]`, `{}`, `{"result":{"files":{"a":[1,{"b":[[]]}]}}}`,
	)
}

// For every sample line and mode, fastDecode either gives up or decodes
// exactly what encoding/json does; and it takes every line the journal
// writes.
func TestFastDecodeIsEncodingJSON(t *testing.T) {
	lines := sampleLines(t)
	written := len(sampleRecords())
	for i, line := range lines {
		for _, mode := range []int{decodeWhole, decodeNoAttribute, decodeHeadOnly} {
			took := checkFastDecode(t, []byte(line), mode)
			if i < written && !took {
				t.Errorf("mode %d: a line the journal wrote was not taken: %s", mode, line)
			}
		}
	}
}

// checkFastDecode fails the test when fastDecode takes a line and decodes
// it otherwise than encoding/json; it says whether it took the line.
func checkFastDecode(t testing.TB, body []byte, mode int) bool {
	rec, stored, ok := fastDecode(body, mode)
	if !ok {
		return false
	}
	want, wantStored, err := slowDecode(body, mode)
	if err != nil {
		t.Fatalf("mode %d: taken, but encoding/json says %v: %s", mode, err, body)
	}
	if mode == decodeHeadOnly {
		if headOf(rec) != headOf(want) || !reflect.DeepEqual(rec, &result.CaseRecord{Checkpoint: rec.Checkpoint, Group: rec.Group, ID: rec.ID, Epoch: rec.Epoch, Attempt: rec.Attempt}) {
			t.Fatalf("head %+v, want %+v: %s", headOf(rec), headOf(want), body)
		}
		return true
	}
	if !reflect.DeepEqual(rec, want) || !reflect.DeepEqual(stored, wantStored) {
		t.Fatalf("mode %d: decoded\n%#v\n%#v\nwant\n%#v\n%#v\nfrom %s", mode, rec, stored, want, wantStored, body)
	}
	// Through decodeAs, errors included, the same as before.
	got, gotErr := decodeAs(body, mode)
	if gotErr != nil {
		t.Fatalf("mode %d: decodeAs: %v", mode, gotErr)
	}
	_ = got
	return true
}

// A line fastDecode gives up on is decoded, and refused, by encoding/json
// as before: the error names the field by its key.
func TestCorruptLinesAreStillNamed(t *testing.T) {
	for line, want := range map[string]string{
		`{"passed":"no"}`:         "passed: expected bool, got a JSON string",
		`{"index":1.5}`:           "index: expected int, got a JSON number 1.5",
		`{"result":{"output":1}}`: "result.output: expected string, got a JSON number",
		`{"attributes":[{"actual_from":"result.nowhere"}]}`: `attribute 0: actual_from "result.nowhere"`,
		`{"id":"a",}`: "invalid character '}'",
	} {
		for _, mode := range []int{decodeWhole, decodeHeadOnly} {
			_, err := decodeAs([]byte(line), mode)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("mode %d: %s: %v, want %q", mode, line, err, want)
			}
		}
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, line := range sampleLines(f) {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, mode := range []int{decodeWhole, decodeNoAttribute, decodeHeadOnly} {
			checkFastDecode(t, body, mode)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	line, err := encodeRecord(sampleRecords()[1])
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		fn   func([]byte) error
	}{
		{"encoding-json", func(l []byte) error { _, _, err := slowDecode(l, decodeWhole); return err }},
		{"whole", func(l []byte) error { _, err := decodeRecord(l); return err }},
		{"without-attributes", func(l []byte) error { _, err := decodeWithoutAttributes(l); return err }},
		{"head", func(l []byte) error { _, err := decodeHead(l); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for i := 0; i < b.N; i++ {
				if err := c.fn(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	_ = fmt.Sprint
}
