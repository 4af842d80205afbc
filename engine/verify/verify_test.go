package verify

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

func weight(w float64) *float64 { return &w }

func TestRunChecks(t *testing.T) {
	actual := Actual{
		StatusCode: 2,
		Output:     `{"items": 3, "total": 23.474, "tags": ["b", "a"]}`,
		Stderr:     "error: no such file\n",
		Files:      map[string]any{"out/a.csv": "x,y\n1,2\n", "out/bin": []byte{0xff, 0x00}},
	}
	tests := []struct {
		name     string
		spec     checkspec.CheckSpec
		expected map[string]any
		attr     string
		correct  bool
		summary  string // substring of the diff summary when incorrect
	}{
		{"status equal", checkspec.CheckSpec{Kind: "status"}, map[string]any{"status_code": 2}, "status_code", true, ""},
		{"status differs", checkspec.CheckSpec{Kind: "status"}, map[string]any{"status_code": 0}, "status_code", false, "status 2, expected 0"},
		{"status defaults to 0", checkspec.CheckSpec{Kind: "status"}, nil, "status_code", false, "expected 0"},
		{"status nonzero", checkspec.CheckSpec{Kind: "status", NonZero: true}, nil, "status_code", true, ""},
		{"json with tolerance", checkspec.CheckSpec{Kind: "json", Tolerance: 0.01},
			map[string]any{"output": map[string]any{"items": 3, "total": 23.47, "tags": []any{"b", "a"}}}, "output", true, ""},
		{"json written as text", checkspec.CheckSpec{Kind: "json", Tolerance: 0.01},
			map[string]any{"output": `{"items":3,"total":23.47,"tags":["b","a"]}`}, "output", true, ""},
		{"json exact fails", checkspec.CheckSpec{Kind: "json"},
			map[string]any{"output": map[string]any{"items": 3, "total": 23.47, "tags": []any{"b", "a"}}}, "output", false, "$.total: expected 23.47, got 23.474"},
		{"json unordered", checkspec.CheckSpec{Kind: "json", UnorderedLists: true, IgnoreKeys: []string{"total"}},
			map[string]any{"output": map[string]any{"items": 3, "total": 0, "tags": []any{"a", "b"}}}, "output", true, ""},
		{"text on stderr", checkspec.CheckSpec{Kind: "text", Attribute: "stderr"}, map[string]any{"stderr": "error: no such file\n"}, "stderr", true, ""},
		{"text normalised", checkspec.CheckSpec{Kind: "text", Attribute: "stderr", IgnoreWhitespace: true, IgnoreCase: true},
			map[string]any{"stderr": "  ERROR:   no such\tfile"}, "stderr", true, ""},
		{"text differs", checkspec.CheckSpec{Kind: "text", Attribute: "stderr"}, map[string]any{"stderr": "error: missing\n"}, "stderr", false, "1 line differs (line 1)"},
		{"text without expected", checkspec.CheckSpec{Kind: "text"}, nil, "output", false, "no expected value for output"},
		{"regex matches", checkspec.CheckSpec{Kind: "regex", Attribute: "stderr", Pattern: "^error: "}, nil, "stderr", true, ""},
		{"regex from expected", checkspec.CheckSpec{Kind: "regex", Attribute: "stderr"}, map[string]any{"stderr": "no such"}, "stderr", true, ""},
		{"regex fails", checkspec.CheckSpec{Kind: "regex", Pattern: `^\d+$`}, nil, "output", false, "does not match"},
		{"schema without an engine", checkspec.CheckSpec{Kind: "schema", Schema: map[string]any{"type": "object"}}, nil, "output", false, "not available in this program"},
		{"file equal", checkspec.CheckSpec{Kind: "file", Path: "out/a.csv"}, map[string]any{"files": map[string]any{"out/a.csv": "x,y\n1,2\n"}}, "files-out/a.csv", true, ""},
		{"file differs", checkspec.CheckSpec{Kind: "file", Path: "out/a.csv"}, map[string]any{"files": map[string]any{"out/a.csv": "x,y\n1,3\n"}}, "files-out/a.csv", false, "file out/a.csv: 1 line differs (line 2)"},
		{"file missing", checkspec.CheckSpec{Kind: "file", Path: "out/none"}, map[string]any{"files": map[string]any{"out/none": "x"}}, "files-out/none", false, "was not produced"},
		{"binary file", checkspec.CheckSpec{Kind: "file", Path: "out/bin"}, map[string]any{"files": map[string]any{"out/bin": []byte{0xff, 0x01}}}, "files-out/bin", false, "binary"},
		{"weight kept", checkspec.CheckSpec{Kind: "status", Weight: weight(0.25)}, map[string]any{"status_code": 2}, "status_code", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(tt.spec, actual, tt.expected, Env{})
			if res.Attribute != tt.attr {
				t.Errorf("attribute %q, want %q", res.Attribute, tt.attr)
			}
			if res.IsCorrect != tt.correct {
				t.Fatalf("is_correct=%v, want %v (diff %+v)", res.IsCorrect, tt.correct, res.Diff)
			}
			if res.Weight != tt.spec.WeightOr(1) {
				t.Errorf("weight %v", res.Weight)
			}
			if tt.correct {
				if res.Diff != nil {
					t.Errorf("a correct attribute has no diff, got %+v", res.Diff)
				}
				return
			}
			if res.Diff == nil || !strings.Contains(res.Diff.Summary, tt.summary) {
				t.Errorf("diff summary %+v, want it to contain %q", res.Diff, tt.summary)
			}
		})
	}
}

func TestJSONCheckOnInvalidOutput(t *testing.T) {
	res := Run(checkspec.CheckSpec{Kind: "json"}, Actual{Output: "Traceback (most recent call last):"}, map[string]any{"output": map[string]any{"a": 1}}, Env{})
	if res.IsCorrect || res.Diff == nil || !strings.Contains(res.Diff.Summary, "output is not valid JSON") {
		t.Fatalf("got %+v", res)
	}
	if res.Actual != "Traceback (most recent call last):" {
		t.Errorf("the raw output is kept as actual, got %#v", res.Actual)
	}
}

func TestJSONLCheck(t *testing.T) {
	spec := checkspec.CheckSpec{Kind: "jsonl"}
	out := "{\"id\":1}\n{\"id\":2}\n\n"
	res := Run(spec, Actual{Output: out}, map[string]any{"output": []any{map[string]any{"id": 1}, map[string]any{"id": 2}}}, Env{})
	if !res.IsCorrect {
		t.Fatalf("equal records: %+v", res.Diff)
	}
	res = Run(spec, Actual{Output: out}, map[string]any{"output": "{\"id\":1}\n{\"id\":3}\n"}, Env{})
	if res.IsCorrect || res.Diff.Entries[0].Path != "$[1].id" {
		t.Fatalf("want a diff at $[1].id, got %+v", res.Diff)
	}
	res = Run(spec, Actual{Output: "{\"id\":1}\nnot json\n"}, map[string]any{"output": "{\"id\":1}\n"}, Env{})
	if res.IsCorrect || !strings.Contains(res.Diff.Summary, "line 2") {
		t.Fatalf("a bad line is reported with its number: %+v", res.Diff)
	}
}

func TestTextDiffIsReadable(t *testing.T) {
	d := TextDiff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n")
	if d.Summary != "2 lines differ" {
		t.Errorf("summary %q", d.Summary)
	}
	want := []DiffEntry{{Path: "line 2", Op: "changed", Expected: "b", Actual: "B"}, {Path: "line 5", Op: "extra", Actual: "e"}}
	if len(d.Entries) != 2 || d.Entries[0] != want[0] || d.Entries[1].Op != "extra" || d.Entries[1].Actual != "e" {
		t.Errorf("entries %+v, want %+v", d.Entries, want)
	}
	if !strings.Contains(d.Unified, "-b\n+B\n") {
		t.Errorf("unified diff:\n%s", d.Unified)
	}
	d = TextDiff("x", "x\n")
	if !strings.Contains(d.Summary, "final newline") {
		t.Errorf("newline-only difference: %q", d.Summary)
	}
}

func TestFileFromProblemFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "golden.txt"), []byte("hello\n"), 0o644)
	env := Env{ReadProblemFile: func(rel string) ([]byte, error) {
		if strings.Contains(rel, "..") {
			return nil, errors.New("escapes the problem directory")
		}
		return os.ReadFile(filepath.Join(dir, rel))
	}}
	res := Run(checkspec.CheckSpec{Kind: "file", Path: "g.txt", ExpectedFile: "golden.txt"}, Actual{Files: map[string]any{"g.txt": "hello\n"}}, nil, env)
	if !res.IsCorrect {
		t.Fatalf("expected_file: %+v", res.Diff)
	}
	res = Run(checkspec.CheckSpec{Kind: "file", Path: "g.txt", ExpectedFile: "../etc/passwd"}, Actual{Files: map[string]any{"g.txt": "x"}}, nil, env)
	if res.IsCorrect || !strings.Contains(res.Diff.Summary, "escapes") {
		t.Fatalf("escaping expected_file: %+v", res.Diff)
	}
}

func TestAttributeResultJSONShape(t *testing.T) {
	res := Run(checkspec.CheckSpec{Kind: "json"}, Actual{Output: `{"a":2}`}, map[string]any{"output": map[string]any{"a": 1}}, Env{})
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"attribute":"output","actual":{"a":2},"expected":{"a":1},"diff":{"summary":"$.a: expected 1, got 2","entries":[{"path":"$.a","op":"changed","expected":1,"actual":2}]},"is_correct":false,"weight":1,"check":"json"}`
	if string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}
}

func TestDefaultChecks(t *testing.T) {
	got := DefaultChecks(map[string]any{
		"output": map[string]any{"a": 1}, "status_code": 0, "stderr": "x",
		"files": map[string]any{"b.txt": "", "a.txt": ""},
	})
	var kinds []string
	for _, c := range got {
		kinds = append(kinds, c.Kind+":"+AttributeOf(c))
	}
	want := "status:status_code file:files-a.txt file:files-b.txt json:output text:stderr"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("got %v, want %s", kinds, want)
	}
	if k := DefaultChecks(map[string]any{"output": "plain\n"})[0].Kind; k != "text" {
		t.Errorf("text expected output gets a text check, got %s", k)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		spec checkspec.CheckSpec
		want string // substring of the only message; empty means valid
	}{
		{checkspec.CheckSpec{Kind: "json", Tolerance: 0.1}, ""},
		{checkspec.CheckSpec{Kind: "jsn"}, `unknown check kind "jsn"`},
		{checkspec.CheckSpec{}, "kind: missing"},
		{checkspec.CheckSpec{Kind: "text", Tolerance: 0.1}, "tolerance: not an option of the text check"},
		{checkspec.CheckSpec{Kind: "regex", Pattern: "("}, "pattern:"},
		{checkspec.CheckSpec{Kind: "schema"}, "needs `schema`"},
		{checkspec.CheckSpec{Kind: "file"}, "path: the file check needs"},
		{checkspec.CheckSpec{Kind: "file", Path: "../x"}, "stay inside"},
		{checkspec.CheckSpec{Kind: "status", Attribute: "output"}, "compares status_code"},
		{checkspec.CheckSpec{Kind: "text", Attribute: "stdout"}, `"stdout" is not an attribute`},
		{checkspec.CheckSpec{Kind: "text", Weight: weight(-1)}, "weight: must not be negative"},
		{checkspec.CheckSpec{Kind: "test", Plugin: &checkspec.PluginRef{Path: "t.wasm"}, Attribute: "files-result.json"}, ""},
		{checkspec.CheckSpec{Kind: "test"}, "plugin: the test check needs the test-function plugin"},
		{checkspec.CheckSpec{Kind: "test", Plugin: &checkspec.PluginRef{Path: "t.wasm"}, Attribute: "status_code"}, "reads the agent's result JSON from output, stderr or files-<path>"},
		{checkspec.CheckSpec{Kind: "test", Plugin: &checkspec.PluginRef{Path: "t.wasm"}, Function: "f"}, "function: not an option of the test check (its options: plugin)"},
	}
	for _, tt := range tests {
		msgs := Validate(tt.spec)
		if tt.want == "" {
			if len(msgs) != 0 {
				t.Errorf("%+v: unexpected %v", tt.spec, msgs)
			}
			continue
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], tt.want) {
			t.Errorf("%+v: got %v, want one message containing %q", tt.spec, msgs, tt.want)
		}
	}
}
