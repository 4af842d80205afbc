package problem

import (
	"encoding/json"
	"strings"
	"testing"
)

// The assertions' options load from config like any other; a value of
// the wrong type is an error at its line, naming the field.
func TestAssertionOptionsLoad(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.py
checkpoints:
  c1:
    groups:
      g:
        checks:
          - {kind: not-contains-any, attribute: stderr, values: [error, 3, true]}
          - {kind: contains-all, values: [a, b], threshold: 0.5}
          - {kind: starts-with, value: Hello}
          - {kind: latency, max_seconds: 2.5}
`,
		"c1/x": "",
	})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Checkpoints[0].Groups[0].Checks
	if len(c) != 4 || c[0].Kind != "not-contains-any" || len(c[0].Values) != 3 || c[0].Values[1] != json.Number("3") ||
		*c[1].Threshold != 0.5 || c[2].Value != "Hello" || *c[3].MaxSeconds != 2.5 {
		t.Fatalf("checks %+v", c)
	}

	for _, bad := range []struct{ check, field string }{
		{"{kind: latency, max_seconds: soon}", "max_seconds"},
		{"{kind: contains-all, values: a}", "values"},
		{"{kind: contains-all, values: [a], threshold: high}", "threshold"},
	} {
		dir = writeTree(t, map[string]string{
			"config.yaml": "name: p\nentry_file: main.py\ncheckpoints:\n  c1:\n    groups:\n      g:\n        checks:\n          - " + bad.check + "\n",
			"c1/x":        "",
		})
		_, err = Load(dir, testOpts)
		list := diagsOf(t, err)
		if len(list) != 1 || list[0].Line != 8 || !strings.Contains(list[0].Path+": "+list[0].Msg, bad.field) {
			t.Errorf("%s: got %v", bad.check, list)
		}
	}
}

// A check whose option does not decode is reported once, for that option,
// not again by the check's own validation of the value it lacks.
func TestUndecodedCheckIsReportedOnce(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": "name: p\nentry_file: main.py\ncheckpoints:\n  c1:\n    groups:\n      g:\n        checks:\n          - {kind: latency, max_seconds: \"2s\"}\n",
		"c1/x":        "",
	})
	opts := testOpts
	opts.ValidateCheck = func(c CheckSpec) []string {
		if c.Kind == "latency" && c.MaxSeconds == nil {
			return []string{"max_seconds: the latency check needs the ceiling"}
		}
		return nil
	}
	_, err := Load(dir, opts)
	list := diagsOf(t, err)
	if len(list) != 1 || !strings.Contains(list[0].Msg, `expected a number, got "2s"`) {
		t.Errorf("got %v", list)
	}
}
