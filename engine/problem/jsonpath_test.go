package problem

import (
	"strings"
	"testing"
)

// json_path and expected_from are check options like any other: they load
// from config, and a misspelling is an unknown key at its line.
func TestCheckJSONPathOptionsLoad(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.py
checkpoints:
  c1:
    groups:
      g:
        checks:
          - {kind: json, json_path: "$.result.items", tolerance: 0.01}
          - {kind: regex, json_path: "$['odd key'][-1]", expected_from: expected.error_pattern}
`,
		"c1/x": "",
	})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	checks := p.Checkpoints[0].Groups[0].Checks
	if len(checks) != 2 || checks[0].JSONPath != "$.result.items" || checks[1].JSONPath != "$['odd key'][-1]" ||
		checks[1].ExpectedFrom != "expected.error_pattern" {
		t.Fatalf("checks %+v", checks)
	}

	dir = writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.py
checkpoints:
  c1:
    groups:
      g:
        checks:
          - kind: regex
            jsonpath: $.error
`,
		"c1/x": "",
	})
	_, err = Load(dir, testOpts)
	list := diagsOf(t, err)
	if len(list) != 1 || list[0].Line != 9 || !strings.Contains(list[0].Path+": "+list[0].Msg, "jsonpath") {
		t.Fatalf("got %v", list)
	}
}
