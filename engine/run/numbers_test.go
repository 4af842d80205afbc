package run

import (
	"encoding/json"
	"strings"
	"testing"
)

// numbersProblem expects numbers a float64 cannot hold as written: an
// integer beyond 2^53 (an id, also in exponent form), 187.0 (also in
// YAML's +18_7.0 form) and 1e999, in each place a case file can give an
// expected value (a group file, a case file, an EXPECTED.json and an
// EXPECTED.jsonl of a case directory).
var numbersProblem = map[string]string{
	"config.yaml": "name: numbers\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n" +
		"      g: {type: Core}\n      files: {type: Functionality}\n      dirs: {type: Functionality}\n",
	"c1/g.json": `{
  "same":  {"case": {"arguments": ["same"]},  "expected": {"output": {"id": 12345678901234567890123, "total": 187.0}}},
  "other": {"case": {"arguments": ["other"]}, "expected": {"output": {"id": 12345678901234567890123, "total": 187.0}}},
  "huge":  {"case": {"arguments": ["huge"]},  "expected": {"output": [1e999]}}
}`,
	"c1/files/same.yaml":           "case: {arguments: [same]}\nexpected:\n  output: {id: 12345678901234567890123, total: 187.0}\n",
	"c1/files/other.yaml":          "case: {arguments: [other]}\nexpected:\n  output: {id: 12345678901234567890123, total: 187.0}\n",
	"c1/files/exp.yaml":            "case: {arguments: [other]}\nexpected:\n  output: {id: 1.2345678901234567890123e22, total: +18_7.0}\n",
	"c1/dirs/same/ARGS":            "same",
	"c1/dirs/same/EXPECTED.json":   `{"id": 12345678901234567890123, "total": 187.0}`,
	"c1/dirs/other/ARGS":           "other",
	"c1/dirs/other/EXPECTED.json":  `{"id": 12345678901234567890123, "total": 187.0}`,
	"c1/dirs/lines/ARGS":           "lines",
	"c1/dirs/lines/EXPECTED.jsonl": `{"id": 12345678901234567890123}` + "\n",
	"c1/dirs/scalar/ARGS":          "scalar",
	"c1/dirs/scalar/EXPECTED.json": "187.0",
}

// numbersSubmission prints the expected document for "same", "lines",
// "scalar" (187 for 187.0: equal by value) and "huge", and for "other"
// one whose id is one more: the nearest float64 of both ids is the same
// number.
const numbersSubmission = `case "$1" in
same) echo '{"total": 187.0, "id": 12345678901234567890123}' ;;
other) echo '{"total": 187.0, "id": 12345678901234567890124}' ;;
lines) echo '{"id": 12345678901234567890123}' ;;
scalar) echo 187 ;;
huge) echo '[1e999]' ;;
esac
`

// A number in a case file keeps the text its author wrote: two integers
// a float64 cannot tell apart are told apart, and the journal, read back,
// holds the numbers as they were written, on both sides of a verdict.
func TestNumbersKeepTheirText(t *testing.T) {
	_, recs := runFiles(t, numbersProblem, numbersSubmission)
	for _, r := range recs {
		attrs, err := json.Marshal(r.Attributes)
		if err != nil {
			t.Fatal(err)
		}
		text := string(attrs)
		switch r.ID {
		case "same", "lines", "scalar", "huge":
			if !r.Passed {
				t.Errorf("%s/%s failed: %s", r.Group, r.ID, text)
			}
		case "other", "exp":
			if r.Passed {
				t.Errorf("%s/%s passed: an id one off was taken for the expected one: %s", r.Group, r.ID, text)
			}
			want := `"expected":12345678901234567890123,"actual":12345678901234567890124`
			if r.ID == "exp" {
				want = `"expected":1.2345678901234567890123e22,"actual":12345678901234567890124`
			}
			if !strings.Contains(text, want) {
				t.Errorf("%s/%s: the diff does not show both ids as written: %s", r.Group, r.ID, text)
			}
		}
		if (r.ID == "same" || r.ID == "other" || r.ID == "exp") && (!strings.Contains(text, `"total":187.0`) || strings.Contains(text, "e+22")) {
			t.Errorf("%s/%s: the journal does not hold the numbers as written: %s", r.Group, r.ID, text)
		}
	}
	if len(recs) != 10 {
		t.Errorf("%d records, want 10", len(recs))
	}
}
