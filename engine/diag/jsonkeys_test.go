package diag

import "testing"

// A repeated key is found with its line and the object's path; a syntax
// error gets its line; a good document, nested, has neither.
func TestCheckJSON(t *testing.T) {
	for doc, want := range map[string]string{
		`[{"a": 1, "b": [1, {"c": 2}]}, {"d": {}}]`:                                        "",
		"[\n  {\"q\": \"x\",\n   \"expected\": [\"abc\"],\n   \"expected\": [\"xyz\"]}\n]": `line 4: $[0]: key "expected" given twice`,
		"{\"cases\": [\n {\"a\": 1},\n {\"a\": {\"k\": 1,\n \"k\": 2}}]}":                  `line 4: $.cases[1].a: key "k" given twice`,
		"[\n {\"a\": 1},\n {\"a\": NaN}\n]":                                                "line 3: not JSON: invalid character 'N' looking for beginning of value",
		"[\n {\"a\": 1},\n":                                                                "line 3: not JSON: the document ends before its value does",
	} {
		got := ""
		if p := CheckJSON([]byte(doc)); p != nil {
			got = p.Error()
		}
		if got != want {
			t.Errorf("CheckJSON(%q) = %q, want %q", doc, got, want)
		}
	}
}
