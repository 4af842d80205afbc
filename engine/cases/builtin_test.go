package cases

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
)

// writeTree creates files (path → content) under a new temp directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func groupIn(dir, group string) GroupInput {
	return GroupInput{Checkpoint: "cp1", Group: group, GroupType: problem.Core, ProblemDir: dir,
		CheckpointDir: dir, CaseGroup: group, Timeout: 7 * time.Second,
		Env: map[string]string{"BASE": "1", "OVER": "group"}, ConfigFile: "config.yaml", ConfigPath: "groups." + group}
}

// loadAll opens a group with a loader and returns its cases, or the first
// error.
func loadAll(t *testing.T, loader string, g GroupInput) ([]*Case, error) {
	t.Helper()
	l, ok := Builtin(loader)
	if !ok {
		t.Fatalf("no loader %q", loader)
	}
	s, err := l.Open(context.Background(), g)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []*Case
	for {
		c, err := s.Next(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
}

// inputContent is what an input file will write, held or not.
func inputContent(t *testing.T, f InputFile) string {
	t.Helper()
	data, err := f.Bytes()
	if err != nil {
		t.Fatalf("input file %s: %v", f.Path, err)
	}
	return string(data)
}

func ids(cs []*Case) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return strings.Join(out, ",")
}

func TestCaseDirs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"core/b_basic/case.yaml": `
arguments: summary "my items.csv" --x
stdin: "hello\n"
env: {OVER: case, NUM: 5}
timeout: 2.5
tracked_files: [out, "logs/**/*.txt"]
input_files:
  - {path: data/raw.txt, content: "raw {{static:cat}}"}
  - {path: data.json, content: {b: 1, a: [1, 2]}}
  - {path: rows.jsonl, content: [{id: 1}, {id: 2}]}
  - {path: conf.yaml, content: {z: 1, y: two}}
  - {path: table.csv, content: [{sku: A1, qty: 2}, {sku: "B,2", qty: 3, note: x}]}
  - {path: table.tsv, content: [[h1, h2], [1, 2]]}
  - {path: blob.bin, file_type: binary, content: "AAEC/w=="}
  - {path: z.txt.gz, compression: gzip, content: "zipped"}
  - {path: z.txt.bz2, compression: bzip2, content: "bzipped"}
expected:
  status_code: 0
  output: {items: 3}
`,
		"core/b_basic/my items.csv":           "sku\nA\n",
		"core/b_basic/nested/more.txt":        "more",
		"core/a_first/case.yaml":              "order: 1\narguments: [x, 'y z']\n",
		"core/a_first/expected_output.json":   `{"ok": true}`,
		"core/a_first/expected_stderr":        "warn\n",
		"core/a_first/expected_status_code":   "3\n",
		"core/a_first/expected_files/o/r.txt": "result\n",
		"core/c_last/case.yaml":               "arguments: []\n",
		"core/c_zero/case.yaml":               "order: 0\n",
	})
	g := groupIn(dir, "core")
	g.TrackedFiles = []string{"always.log"}
	cs, err := loadAll(t, LoaderCaseDirs, g)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(cs); got != "c_zero,a_first,b_basic,c_last" {
		t.Fatalf("order %s: cases with `order` first by order, then the rest by name", got)
	}
	for i, c := range cs {
		if c.Order != i {
			t.Errorf("%s: Order %d, want %d", c.ID, c.Order, i)
		}
	}
	b := cs[2]
	if !reflect.DeepEqual(b.Arguments, []string{"summary", "my items.csv", "--x"}) {
		t.Errorf("arguments split shell-style: %q", b.Arguments)
	}
	if b.Stdin == nil || *b.Stdin != "hello\n" {
		t.Errorf("stdin %v", b.Stdin)
	}
	if !reflect.DeepEqual(b.Env, map[string]string{"BASE": "1", "OVER": "case", "NUM": "5"}) {
		t.Errorf("env merged, case wins: %v", b.Env)
	}
	if b.Timeout != 2500*time.Millisecond || cs[0].Timeout != 7*time.Second {
		t.Errorf("timeouts: case %v, inherited %v", b.Timeout, cs[0].Timeout)
	}
	if !reflect.DeepEqual(b.TrackedFiles, []string{"always.log", "out", "logs/**/*.txt"}) {
		t.Errorf("tracked files %v", b.TrackedFiles)
	}
	files := map[string]string{}
	for _, f := range b.InputFiles {
		files[f.Path] = inputContent(t, f)
		// Files of the case directory are named, not held: they are
		// copied when the case runs.
		if fromDir := f.Path == "my items.csv" || f.Path == "nested/more.txt"; fromDir != (f.From != nil) || (fromDir && f.Content != nil) {
			t.Errorf("input file %s: From %+v, %d bytes held", f.Path, f.From, len(f.Content))
		}
	}
	want := map[string]string{
		"my items.csv":    "sku\nA\n",
		"nested/more.txt": "more",
		"data/raw.txt":    "raw {{static:cat}}",
		"data.json":       `{"b":1,"a":[1,2]}` + "\n",
		"rows.jsonl":      "{\"id\":1}\n{\"id\":2}\n",
		"conf.yaml":       "z: 1\ny: two\n",
		"table.csv":       "sku,qty,note\nA1,2,\n\"B,2\",3,x\n",
		"table.tsv":       "h1\th2\n1\t2\n",
		"blob.bin":        "\x00\x01\x02\xff",
	}
	for p, w := range want {
		if files[p] != w {
			t.Errorf("input file %s = %q, want %q", p, files[p], w)
		}
	}
	gz, err := gzip.NewReader(strings.NewReader(files["z.txt.gz"]))
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := io.ReadAll(gz); string(data) != "zipped" {
		t.Errorf("gzip content %q", data)
	}
	if data, _ := io.ReadAll(bzip2.NewReader(strings.NewReader(files["z.txt.bz2"]))); string(data) != "bzipped" {
		t.Errorf("bzip2 content %q", data)
	}
	if out, _ := b.Expected["output"].(map[string]any); out["items"] != json.Number("3") {
		t.Errorf("expected output %#v", b.Expected["output"])
	}
	a := cs[1]
	if !reflect.DeepEqual(a.Arguments, []string{"x", "y z"}) {
		t.Errorf("list arguments %q", a.Arguments)
	}
	wantExp := map[string]any{"output": map[string]any{"ok": true}, "stderr": "warn\n", "status_code": 3,
		"files": map[string]any{"o/r.txt": "result\n"}}
	if !reflect.DeepEqual(a.Expected, wantExp) {
		t.Errorf("expected from files:\n got %#v\nwant %#v", a.Expected, wantExp)
	}
	if len(a.InputFiles) != 0 {
		t.Errorf("expected_* files are not inputs: %v", a.InputFiles)
	}
	if cs[3].Arguments == nil || len(cs[3].Arguments) != 0 {
		t.Errorf("no arguments is an empty list, got %#v", cs[3].Arguments)
	}
}

func TestCaseOrderAndDefaults(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/a/case.yaml": "expected: {output: {x: 1}}\n",
		"g/b/case.yaml": "order: 1\nenv: {K: case}\nexpected: {status_code: 2}\n",
		"g/c/case.yaml": "order: 2\narguments: [own]\n",
	})
	g := groupIn(dir, "g")
	g.CaseOrder = []string{"c"}
	g.CaseDefaults = map[string]any{
		"arguments": []any{"default"},
		"env":       map[string]any{"K": "default", "D": "d"},
		"expected":  map[string]any{"status_code": 0, "output": map[string]any{"y": 2}},
		"timeout":   3,
	}
	cs, err := loadAll(t, LoaderAuto, g)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(cs); got != "c,b,a" {
		t.Fatalf("order %s: case_order first, then order, then name", got)
	}
	c, b, a := cs[0], cs[1], cs[2]
	if !reflect.DeepEqual(c.Arguments, []string{"own"}) || !reflect.DeepEqual(b.Arguments, []string{"default"}) {
		t.Errorf("arguments: %v %v", c.Arguments, b.Arguments)
	}
	if b.Env["K"] != "case" || b.Env["D"] != "d" || b.Env["BASE"] != "1" {
		t.Errorf("env %v", b.Env)
	}
	if b.Expected["status_code"] != json.Number("2") || a.Expected["status_code"] != json.Number("0") {
		t.Errorf("status: %v %v", b.Expected, a.Expected)
	}
	if !reflect.DeepEqual(a.Expected["output"], map[string]any{"x": json.Number("1"), "y": json.Number("2")}) {
		t.Errorf("nested merge of expected: %#v", a.Expected["output"])
	}
	if a.Timeout != 3*time.Second {
		t.Errorf("timeout from defaults: %v", a.Timeout)
	}
}

func TestGroupFile(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"errors.yaml": `
missing_file:
  order: 2
  input:
    arguments: summary nope.csv
    env: {X: "1"}
  expected:
    status_code: 1
bad_count:
  order: 1
  input: {arguments: [top, zero]}
  expected: {status_code: 2, stderr: "error: bad count\n"}
flat:
  arguments: --help
  checks: [{kind: status}]
`,
	})
	cs, err := loadAll(t, LoaderAuto, groupIn(dir, "errors"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(cs); got != "bad_count,missing_file,flat" {
		t.Fatalf("order %s", got)
	}
	m := cs[1]
	if !reflect.DeepEqual(m.Arguments, []string{"summary", "nope.csv"}) || m.Env["X"] != "1" || m.Expected["status_code"] != json.Number("1") {
		t.Errorf("missing_file: %+v", m)
	}
	if len(cs[2].Checks) != 1 || cs[2].Checks[0].Kind != "status" {
		t.Errorf("case checks: %+v", cs[2].Checks)
	}
	if cs[0].Source != filepath.Join(dir, "errors.yaml") {
		t.Errorf("source %s", cs[0].Source)
	}
}

func TestArgsExpected(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"cat/one/ARGS":      "summary --category 'home office' items.csv\n",
		"cat/one/EXPECTED":  "{\"items\": 1}\n",
		"cat/one/items.csv": "sku\n",
		"cat/two/ARGS":      "x",
		"cat/two/EXPECTED":  "2\n",
		"cat/two/STDIN":     "in",
		"cat/two/META.yaml": "order: 0\nenv: {E: v}\nexpected: {status_code: 0}\n",
	})
	cs, err := loadAll(t, LoaderArgsExpected, groupIn(dir, "cat"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(cs); got != "two,one" {
		t.Fatalf("order %s", got)
	}
	two, one := cs[0], cs[1]
	if !reflect.DeepEqual(one.Arguments, []string{"summary", "--category", "home office", "items.csv"}) {
		t.Errorf("ARGS split: %q", one.Arguments)
	}
	if one.Expected["output"] != "{\"items\": 1}\n" || len(one.InputFiles) != 1 || one.InputFiles[0].Path != "items.csv" {
		t.Errorf("one: %+v", one)
	}
	if *two.Stdin != "in" || two.Env["E"] != "v" || two.Expected["status_code"] != json.Number("0") || two.Expected["output"] != "2\n" {
		t.Errorf("two: %+v", two)
	}
}

// Every bad case is reported with its file, key path and line; validation
// can go on past a bad case to find the next one.
func TestCaseErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/a/case.yaml":       "argumnets: x\n",
		"g/b/case.yaml":       "input_files:\n  - path: ../../etc/evil\n    content: x\n",
		"g/c/case.yaml":       "tracked_files: [ok, /etc/passwd]\n",
		"g/d/case.yaml":       "timeout: fast\n",
		"g/e/case.yaml":       "input_files:\n  - {path: x.db, file_type: sqlite, content: x}\n",
		"g/f/case.yaml":       "arguments: [a\n",
		"g/g/case.yaml":       "input_files: {\"../up\": x}\n",
		"g/h/case.yaml":       "arguments: \"a 'b\"\n",
		"g/i/case.yaml":       "expected: {output: x}\n",
		"g/i/expected_output": "y\n",
		"g/j/case.yaml":       "input_files:\n  - {path: b.bin, file_type: binary, content: '%%%'}\n",
	})
	l, _ := Builtin(LoaderCaseDirs)
	s, err := l.Open(context.Background(), groupIn(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": "g/a/case.yaml:1: argumnets: unknown key \"argumnets\"",
		"b": "g/b/case.yaml:2: input_files[0].path: path \"../../etc/evil\" escapes the workspace",
		"c": "g/c/case.yaml:1: tracked_files[1]: path \"/etc/passwd\" escapes the workspace",
		"d": "g/d/case.yaml:1: timeout: expected a number, got \"fast\"",
		"e": "input_files[0].file_type: unsupported file_type \"sqlite\"",
		"f": "g/f/case.yaml:1: malformed YAML",
		"g": "input_files.../up: path \"../up\" escapes the workspace",
		"h": "arguments: cannot split",
		"i": "expected.output: expected output is given both in the case file and as a file",
		"j": "input_files[0].content: binary content: binary content must be base64",
	}
	for {
		c, err := s.Next(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		var ce *CaseError
		if !errors.As(err, &ce) {
			t.Fatalf("want a CaseError, got case %v err %v", c, err)
		}
		var list diag.List
		if !errors.As(err, &list) {
			t.Fatalf("%s: not a diagnostic: %v", ce.ID, err)
		}
		msg := strings.ReplaceAll(err.Error(), dir+"/", "")
		if !strings.Contains(msg, want[ce.ID]) {
			t.Errorf("%s: %s\nwant it to contain %q", ce.ID, msg, want[ce.ID])
		}
		delete(want, ce.ID)
	}
	if len(want) != 0 {
		t.Errorf("not reported: %v", want)
	}
}

func TestGroupErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/a/case.yaml": "{}\n",
		"both.yaml":     "a: {}\n",
		"both/a/x":      "",
		"list.yaml":     "- a\n",
	})
	g := groupIn(dir, "g")
	g.CaseOrder = []string{"a", "zz"}
	_, err := loadAll(t, LoaderAuto, g)
	if err == nil || !strings.Contains(err.Error(), `config.yaml: groups.g.case_order: case_order names "zz", but the group has no such case (its cases: a)`) {
		t.Errorf("dangling case_order: %v", err)
	}
	g = groupIn(dir, "g")
	g.CaseDefaults = map[string]any{"stdn": "x"}
	if _, err := loadAll(t, LoaderAuto, g); err == nil || !strings.Contains(err.Error(), `groups.g.case_defaults.stdn: unknown key`) {
		t.Errorf("bad case_defaults: %v", err)
	}
	if _, err := loadAll(t, LoaderAuto, groupIn(dir, "both")); err == nil || !strings.Contains(err.Error(), "keep one or name a loader") {
		t.Errorf("ambiguous layout: %v", err)
	}
	if _, err := loadAll(t, LoaderAuto, groupIn(dir, "none")); err == nil || !strings.Contains(err.Error(), "has no cases") {
		t.Errorf("missing group: %v", err)
	}
	if _, err := loadAll(t, LoaderGroupFile, groupIn(dir, "list")); err == nil || !strings.Contains(err.Error(), "list.yaml:1: expected a mapping of case name") {
		t.Errorf("group file that is a list: %v", err)
	}
	if _, err := loadAll(t, LoaderGroupFile, groupIn(dir, "g")); err == nil || !strings.Contains(err.Error(), "expects a group file") {
		t.Errorf("group_file loader without a file: %v", err)
	}
}

func TestResolveStatic(t *testing.T) {
	stdin := "read {{static:cat}}"
	c := &Case{
		ID:         "x",
		Arguments:  []string{"--in={{static:cat}}", "plain"},
		Stdin:      &stdin,
		Env:        map[string]string{"P": "{{static:dir}}/f"},
		InputFiles: []InputFile{{Path: "a.txt", Content: []byte("{{static:cat}}")}, {Path: "b.bin", Content: []byte{0xff, '{'}}},
		Expected:   map[string]any{"output": map[string]any{"path": "{{static:cat}}", "list": []any{"{{static:dir}}", 1}}},
	}
	shared := c.Arguments
	if got := StaticNames(c); !reflect.DeepEqual(got, []string{"cat", "dir"}) {
		t.Errorf("names %v", got)
	}
	lookup := func(n string) (string, bool) {
		p, ok := map[string]string{"cat": "/static/cat.csv", "dir": "/data"}[n]
		return p, ok
	}
	if err := ResolveStatic(c, lookup); err != nil {
		t.Fatal(err)
	}
	if c.Arguments[0] != "--in=/static/cat.csv" || *c.Stdin != "read /static/cat.csv" || c.Env["P"] != "/data/f" ||
		string(c.InputFiles[0].Content) != "/static/cat.csv" || !bytes.Equal(c.InputFiles[1].Content, []byte{0xff, '{'}) {
		t.Errorf("resolved: %+v", c)
	}
	if out := c.Expected["output"].(map[string]any); out["path"] != "/static/cat.csv" || out["list"].([]any)[0] != "/data" {
		t.Errorf("expected resolved recursively: %v", out)
	}
	if shared[0] != "--in={{static:cat}}" {
		t.Error("the original argument slice (possibly shared with defaults) must not change")
	}
	c = &Case{ID: "y", Arguments: []string{"{{static:nope}}"}}
	if err := ResolveStatic(c, lookup); err == nil || !strings.Contains(err.Error(), "{{static:nope}}") {
		t.Errorf("unknown asset: %v", err)
	}
}
