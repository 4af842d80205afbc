package cases

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// caseErrors loads every case of a group and returns each CaseError's
// text by case id (the stream moves past a bad case).
func caseErrors(t *testing.T, loader string, g GroupInput) (map[string]string, []*Case) {
	t.Helper()
	l, _ := Builtin(loader)
	s, err := Checked(l).Open(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	errs := map[string]string{}
	var ok []*Case
	for {
		c, err := s.Next(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			return errs, ok
		}
		if err == nil {
			ok = append(ok, c)
			continue
		}
		var ce *CaseError
		if !errors.As(err, &ce) {
			t.Fatalf("want a CaseError, got %v", err)
		}
		errs[ce.ID] = err.Error()
	}
}

// A case directory's files are read only while they stay inside the
// problem: an input file, an expected output, a file under expected_files/,
// ARGS, STDIN or the whole case directory that is a symlink leading out is
// refused, naming the file; links that stay inside keep working.
func TestCaseFilesLeavingTheProblemAreRefused(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "problem")
	secret := filepath.Join(base, "secret")
	os.MkdirAll(secret, 0o755)
	os.WriteFile(filepath.Join(secret, "shadow"), []byte("root:x:0:0\n"), 0o600)
	os.WriteFile(filepath.Join(secret, "case.yaml"), []byte("{}\n"), 0o644)
	for name, body := range map[string]string{
		"g/input/case.yaml":             "{}\n",
		"g/output/case.yaml":            "{}\n",
		"g/files/case.yaml":             "{}\n",
		"g/files/expected_files/ok.txt": "ok\n",
		"g/inside/case.yaml":            "{}\n",
		"g/inside/data.txt":             "shared\n",
		"shared/notes.txt":              "notes\n",
		"a/args/EXPECTED":               "x\n",
		"a/stdin/ARGS":                  "x\n",
		"a/stdin/EXPECTED":              "x\n",
		"a/fine/ARGS":                   "x\n",
		"a/fine/EXPECTED":               "x\n",
		"g/input/.keep":                 "",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	shadow := filepath.Join(secret, "shadow")
	symlink(t, shadow, filepath.Join(dir, "g", "input", "passwords.txt"))
	symlink(t, shadow, filepath.Join(dir, "g", "output", "expected_output"))
	symlink(t, "../../../../secret/shadow", filepath.Join(dir, "g", "files", "expected_files", "leak.txt"))
	symlink(t, secret, filepath.Join(dir, "g", "outside"))                               // a case directory leading out
	symlink(t, "../../shared/notes.txt", filepath.Join(dir, "g", "inside", "notes.txt")) // stays inside
	symlink(t, "inside", filepath.Join(dir, "g", "aliased"))                             // stays inside
	symlink(t, "nowhere", filepath.Join(dir, "g", "broken"))                             // reported, not skipped
	symlink(t, shadow, filepath.Join(dir, "a", "args", "ARGS"))
	symlink(t, shadow, filepath.Join(dir, "a", "stdin", "STDIN"))

	errs, loaded := caseErrors(t, LoaderCaseDirs, groupIn(dir, "g"))
	through := "leads outside the problem directory through a symlink"
	want := map[string]string{
		"input":   filepath.Join(dir, "g/input/passwords.txt") + ": cannot read: path \"" + filepath.Join(dir, "g/input/passwords.txt") + "\" " + through,
		"output":  filepath.Join(dir, "g/output/expected_output") + ": cannot read: path",
		"files":   filepath.Join(dir, "g/files/expected_files") + ": cannot read: path",
		"outside": "case directory: path \"" + filepath.Join(dir, "g/outside") + "\" " + through,
		"broken":  "case directory: path \"" + filepath.Join(dir, "g/broken") + "\" is a broken symlink (to nowhere)",
	}
	for id, w := range want {
		if !strings.Contains(errs[id], w) || (id != "outside" && id != "broken" && !strings.Contains(errs[id], through)) {
			t.Errorf("%s: %q\nwant it to contain %q", id, errs[id], w)
		}
	}
	for id, msg := range errs {
		if strings.Contains(msg, "root:x") {
			t.Errorf("%s: the secret's content reached a message: %s", id, msg)
		}
	}
	got := map[string]string{}
	for _, c := range loaded {
		for _, f := range c.InputFiles {
			got[c.ID+":"+f.Path] = inputContent(t, f)
		}
	}
	if len(loaded) != 2 || got["inside:notes.txt"] != "notes\n" || got["aliased:notes.txt"] != "notes\n" || got["inside:data.txt"] != "shared\n" {
		t.Errorf("links inside the problem: %d cases, files %v", len(loaded), got)
	}

	errs, loaded = caseErrors(t, LoaderArgsExpected, groupIn(dir, "a"))
	if !strings.Contains(errs["args"], filepath.Join(dir, "a/args/ARGS")+": cannot read: path") || !strings.Contains(errs["args"], through) {
		t.Errorf("ARGS: %q", errs["args"])
	}
	if !strings.Contains(errs["stdin"], filepath.Join(dir, "a/stdin/STDIN")+": cannot read: path") || !strings.Contains(errs["stdin"], through) {
		t.Errorf("STDIN: %q", errs["stdin"])
	}
	if len(loaded) != 1 || loaded[0].ID != "fine" {
		t.Errorf("args cases loaded: %v", ids(loaded))
	}
}

// A group file or a group directory that is a symlink leading out stops
// the group with an error naming it.
func TestGroupFilesLeavingTheProblemAreRefused(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "problem")
	secret := filepath.Join(base, "secret")
	os.MkdirAll(filepath.Join(secret, "a"), 0o755)
	os.WriteFile(filepath.Join(secret, "a", "case.yaml"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(secret, "g.yaml"), []byte("a: {}\n"), 0o644)
	symlink(t, filepath.Join(secret, "g.yaml"), filepath.Join(dir, "byfile.yaml"))
	symlink(t, secret, filepath.Join(dir, "bydir"))
	for _, tc := range []struct{ group, loader, want string }{
		{"byfile", LoaderAuto, "group cp1/byfile: group file: path"},
		{"byfile", LoaderGroupFile, "group cp1/byfile: group file: path"},
		{"bydir", LoaderAuto, "group cp1/bydir: group directory: path"},
		{"bydir", LoaderCaseDirs, "group cp1/bydir: group directory: path"},
	} {
		_, err := loadAll(t, tc.loader, groupIn(dir, tc.group))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "leads outside the problem directory through a symlink") {
			t.Errorf("%s with %s: %v", tc.group, tc.loader, err)
		}
	}
}

// Case ids are names: a group file key with a separator or .. is refused
// at its line, so group g's case a/b can never share a key with group
// g/a's case b.
func TestCaseIDsAreNames(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g.yaml": "ok: {}\na/b: {}\n\"..\": {}\n\"x\\ty\": {}\n",
	})
	_, err := loadAll(t, LoaderGroupFile, groupIn(dir, "g"))
	if err == nil {
		t.Fatal("a group file with path-like case ids loaded")
	}
	msg := strings.ReplaceAll(err.Error(), dir+"/", "")
	for _, want := range []string{
		`g.yaml:2: a/b: case name "a/b" contains a path separator`,
		`g.yaml:3: ..: case name ".." is . or ..`,
		`g.yaml:4: "x\ty": case name "x\ty" contains a control character`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
}

// Expected values are checked for the types the checks need when the
// problem is loaded, at their line, in a case file, a group file, a case's
// defaults and a loader's own cases.
func TestExpectedValueTypes(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/zero/case.yaml":    "expected:\n  status_code: \"zero\"\n",
		"g/frac/case.yaml":    "expected: {status_code: 1.5}\n",
		"g/neg/case.yaml":     "expected: {status_code: -254}\n",
		"g/big/case.yaml":     "expected: {status_code: 600}\n",
		"g/null/case.yaml":    "expected:\n  output:\n",
		"g/files/case.yaml":   "expected:\n  files:\n    ../up.txt: x\n",
		"g/headers/case.yaml": "input:\n  expected:\n    headers: {X-A: [1, 2]}\n",
		"g/hcase/case.yaml":   "expected:\n  headers:\n    Content-Type: application/json\n    content-type: text/plain\n",
		"g/hname/case.yaml":   "expected:\n  headers:\n    Bad Name: x\n",
		"g/nan/case.yaml":     "expected:\n  output: {d: [1, .nan]}\n",
		"g/inf/case.yaml":     "expected: {output: .inf}\n",
		"g/fine/case.yaml":    "expected: {status_code: 2, output: {a: 1}, headers: {X-N: 5}, files: {o.txt: hi}, items: 3}\n",
		"g/check/case.yaml":   "checks:\n  - {kind: file, path: o.txt}\n  - {kind: file, path: o.txt, expected_file: ../../etc/passwd}\n",
		"h.yaml":              "a:\n  expected:\n    status_code: [0]\n",
		"d/a/case.yaml":       "{}\n",
	})
	errs, loaded := caseErrors(t, LoaderCaseDirs, groupIn(dir, "g"))
	want := map[string]string{
		"zero":    `g/zero/case.yaml:2: expected.status_code: expected an integer (an exit status, or an HTTP status for the api adapter), got "zero"`,
		"frac":    `g/frac/case.yaml:1: expected.status_code: expected an integer`,
		"neg":     `g/neg/case.yaml:1: expected.status_code: expected an exit status (0 to 255; 128+N for a process killed by signal N) or an HTTP status (100 to 599), got -254`,
		"big":     `g/big/case.yaml:1: expected.status_code: expected an exit status`,
		"null":    `g/null/case.yaml:2: expected.output: expected a value to compare output with, got null`,
		"files":   `g/files/case.yaml:3: expected.files.../up.txt: path "../up.txt" escapes the workspace`,
		"headers": `g/headers/case.yaml:3: expected.headers.X-A: expected the header's value as text, got a list`,
		"hcase":   `g/hcase/case.yaml:4: expected.headers.content-type: header "content-type" is given twice (as "Content-Type" too): header names are compared without regard to case`,
		"hname":   "g/hname/case.yaml:3: expected.headers.Bad Name: expected a header name (letters, digits and !#$%&'*+-.^_`|~, no spaces), got \"Bad Name\"",
		"nan":     `g/nan/case.yaml:2: expected.output: holds .inf or .nan at $.d[1], which JSON has no form for`,
		"inf":     `g/inf/case.yaml:1: expected.output: holds .inf or .nan, which JSON has no form for`,
		"check":   `g/check/case.yaml:3: checks[1].expected_file: expected a path relative to the problem directory that stays inside it, got "../../etc/passwd"`,
	}
	for id, w := range want {
		if got := strings.ReplaceAll(errs[id], dir+"/", ""); !strings.Contains(got, w) {
			t.Errorf("%s: %q\nwant it to contain %q", id, got, w)
		}
	}
	if len(loaded) != 1 || loaded[0].ID != "fine" {
		t.Errorf("loaded %s, want fine", ids(loaded))
	}

	errs, _ = caseErrors(t, LoaderGroupFile, groupIn(dir, "h"))
	if !strings.Contains(errs["a"], "h.yaml:3: a.expected.status_code: expected an integer") {
		t.Errorf("group file: %q", errs["a"])
	}

	g := groupIn(dir, "d")
	g.CaseDefaults = map[string]any{"expected": map[string]any{"status_code": "zero"}}
	if _, err := loadAll(t, LoaderCaseDirs, g); err == nil || !strings.Contains(err.Error(), `config.yaml: groups.d.case_defaults.expected.status_code: expected an integer`) {
		t.Errorf("case_defaults: %v", err)
	}
}

// Whatever loader made a case, Checked holds it to the same rules: a
// path-like id or a bad expected value fails that case alone, a repeated
// id stops the group, and a stream says it needs history exactly when the
// loader's does.
func TestCheckedHoldsEveryLoaderToTheRules(t *testing.T) {
	mk := func(id string, expected map[string]any) *Case { return &Case{ID: id, Expected: expected} }
	l := Checked(fakeLoader{cases: []*Case{
		mk("ok", nil), mk("a/b", nil), mk("zero", map[string]any{"status_code": "zero"}), mk("ok", nil),
	}})
	s, err := l.Open(context.Background(), GroupInput{Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if _, stateful := s.(interface{ NeedsHistory() bool }); stateful {
		t.Error("a stateless loader's stream claims to need history")
	}
	var got []string
	for {
		c, err := s.Next(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		var ce *CaseError
		switch {
		case err == nil:
			got = append(got, "case "+c.ID)
		case errors.As(err, &ce):
			got = append(got, "case error "+err.Error())
		default:
			got = append(got, "group error "+err.Error())
		}
		if err != nil && !errors.As(err, &ce) {
			break
		}
	}
	want := []string{
		"case ok",
		`case error case a/b: case id: name "a/b" contains a path separator`,
		`case error case zero: expected.status_code: expected an integer`,
		`group error group g has two cases with id "ok"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("%d: %q, want %q…", i, got[i], want[i])
		}
	}

	s, _ = Checked(fakeLoader{stateful: true}).Open(context.Background(), GroupInput{})
	if h, ok := s.(interface{ NeedsHistory() bool }); !ok || !h.NeedsHistory() {
		t.Error("a stateful loader's stream lost NeedsHistory")
	}
}

type fakeLoader struct {
	cases    []*Case
	stateful bool
}

func (f fakeLoader) Open(context.Context, GroupInput) (Stream, error) {
	if f.stateful {
		return &fakeHistoryStream{fakeStream{cases: f.cases}}, nil
	}
	return &fakeStream{cases: f.cases}, nil
}

type fakeStream struct{ cases []*Case }

func (s *fakeStream) Next(context.Context, []Outcome) (*Case, error) {
	if len(s.cases) == 0 {
		return nil, io.EOF
	}
	c := s.cases[0]
	s.cases = s.cases[1:]
	return c, nil
}
func (s *fakeStream) Len() int     { return -1 }
func (s *fakeStream) Close() error { return nil }

type fakeHistoryStream struct{ fakeStream }

func (s *fakeHistoryStream) NeedsHistory() bool { return true }

// An input file's content written as YAML structure whose aliases expand
// it far past its own size is refused at its line, and the other cases
// load. (A file that its aliases would expand past its limit is refused
// as it is parsed, strictyaml's TestAFileIsBoundedByWhatItsAliasesExpandInto;
// this content stays within that, and not within what one value may
// expand into: its own 60,000 values, and 100,000 more.)
func TestInputFileAliasesAreBounded(t *testing.T) {
	bomb := "input_files:\n  - path: big.json\n    file_type: json\n    content:\n" +
		"        a: &a [" + strings.Repeat("1, ", 59_999) + "1]\n        b: *a\n        c: *a\n"
	dir := writeTree(t, map[string]string{
		"g/bomb/case.yaml": bomb,
		"g/fine/case.yaml": "input_files:\n  - {path: ok.json, file_type: json, content: {a: &a [1, 2], b: *a}}\n",
	})
	errs, loaded := caseErrors(t, LoaderCaseDirs, groupIn(dir, "g"))
	if !strings.Contains(errs["bomb"], "expands its aliases into too many values") {
		t.Errorf("bomb: %q", errs["bomb"])
	}
	if len(loaded) != 1 || loaded[0].ID != "fine" || string(loaded[0].InputFiles[0].Content) != "{\"a\":[1,2],\"b\":[1,2]}\n" {
		t.Errorf("loaded %s", ids(loaded))
	}
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return by + strings.Join(lines, "\n"+by) + "\n"
}

// A case whose input contains itself is refused at its line, in each
// layout whose files are read for their order before they are loaded:
// that read followed `input` round the loop until Go's stack overflowed.
func TestCaseContainingItselfIsRefused(t *testing.T) {
	self := "&a\ninput: *a\narguments: [x]\n"
	for loader, files := range map[string]map[string]string{
		LoaderCaseDirs:     {"g/loop/case.yaml": self, "g/fine/case.yaml": "arguments: [x]\n"},
		LoaderCaseFiles:    {"g/loop.yaml": "input: &a\n  arguments: [x]\n  input: *a\n", "g/fine.yaml": "arguments: [x]\n"},
		LoaderArgsExpected: {"g/loop/ARGS": "x\n", "g/loop/META.yaml": "input: &a\n  input: *a\n", "g/fine/ARGS": "x\n"},
	} {
		t.Run(loader, func(t *testing.T) {
			errs, loaded := caseErrors(t, loader, groupIn(writeTree(t, files), "g"))
			if !strings.Contains(errs["loop"], "the alias *a is inside the value &a names") {
				t.Errorf("loop: %q", errs["loop"])
			}
			if len(loaded) != 1 || loaded[0].ID != "fine" {
				t.Errorf("loaded %s, want fine", ids(loaded))
			}
		})
	}
}

// What no process can be given, and paths the engine would look for
// under another name, are refused at their line; they used to validate
// and then fail or stop every run.
func TestInputsEveryRunWouldTripOn(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/envnul/case.yaml":   "env: {V: \"a\\0b\"}\n",
		"g/envname/case.yaml":  "arguments: [x]\nenv: {\"A=B\": x}\n",
		"g/argnul/case.yaml":   "arguments: [echo, \"a\\0b\"]\n",
		"g/dotdot/case.yaml":   "input_files: [{path: a/../b, content: x}]\n",
		"g/dot/case.yaml":      "input_files: {.: x}\n",
		"g/slash/case.yaml":    "input_files: [{path: a/, content: x}]\n",
		"g/twice/case.yaml":    "input_files:\n  - {path: a, content: x}\n  - {path: a, content: y}\n",
		"g/inside/case.yaml":   "input_files:\n  - {path: a, content: x}\n  - {path: a/b, content: y}\n",
		"g/expected/case.yaml": "tracked_files: [a]\nexpected: {files: {./a: x}}\n",
		"g/tracked/case.yaml":  "tracked_files: [./a]\n",
		"g/fine/case.yaml":     "arguments: [x]\nenv: {A: \"{x}\"}\ninput_files: {a/b: x, a/c: y}\ntracked_files: [out/*.txt]\n",
	})
	errs, loaded := caseErrors(t, LoaderCaseDirs, groupIn(dir, "g"))
	want := map[string]string{
		"envnul":   `g/envnul/case.yaml:1: env.V: an environment variable's value cannot hold a NUL byte, got "a\x00b"`,
		"envname":  `g/envname/case.yaml:2: env.A=B: an environment variable's name cannot hold = or a NUL byte, got "A=B"`,
		"argnul":   `g/argnul/case.yaml:1: arguments[1]: an argument cannot hold a NUL byte`,
		"dotdot":   `g/dotdot/case.yaml:1: input_files[0].path: path "a/../b" is not written plainly: write "b"`,
		"dot":      `g/dot/case.yaml:1: input_files..: path "." names the workspace itself, not a file in it`,
		"slash":    `g/slash/case.yaml:1: input_files[0].path: path "a/" is not written plainly: write "a"`,
		"twice":    `g/twice/case.yaml:3: input_files[1]: input file "a" is given twice`,
		"inside":   `input_files: input file "a/b" is inside "a", which is an input file too`,
		"expected": `g/expected/case.yaml:2: expected.files../a: path "./a" is not written plainly: write "a"`,
		"tracked":  `tracked_files[0]: path "./a" is not written plainly: write "a"`,
	}
	for id, w := range want {
		if got := strings.ReplaceAll(errs[id], dir+"/", ""); !strings.Contains(got, w) {
			t.Errorf("%s: %q\nwant it to contain %q", id, got, w)
		}
	}
	if len(loaded) != 1 || loaded[0].ID != "fine" {
		t.Errorf("loaded %s, want fine", ids(loaded))
	}
}

// Structured content written as a YAML file is written with its aliases
// expanded and its merges applied: the anchor an alias names may lie
// outside the content, and `settings: *cfg` alone is not YAML.
func TestYAMLInputFileHasNoDanglingAlias(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/a/case.yaml": "extra: {cfg: &cfg {depth: 3, name: deep}}\n" +
			"input_files:\n  d.yaml: {settings: *cfg, more: {<<: *cfg, depth: 4}, list: [1, 2]}\n",
	})
	errs, loaded := caseErrors(t, LoaderCaseDirs, groupIn(dir, "g"))
	if len(loaded) != 1 {
		t.Fatalf("errors %v", errs)
	}
	got := string(loaded[0].InputFiles[0].Content)
	want := "settings:\n    depth: 3\n    name: deep\nmore:\n    name: deep\n    depth: 4\nlist:\n    - 1\n    - 2\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var back map[string]any
	if err := yaml.Unmarshal([]byte(got), &back); err != nil {
		t.Errorf("the file is not YAML: %v", err)
	}
}

// A byte order mark an editor put at the start of a file that is parsed
// is not part of its first word or token.
func TestParsedFilesIgnoreAByteOrderMark(t *testing.T) {
	const bom = "\ufeff"
	dir := writeTree(t, map[string]string{
		"g/a/ARGS":                 bom + "echo a b\n",
		"g/a/EXPECTED.jsonl":       bom + "{\"n\": 1}\n",
		"g/b/case.yaml":            "arguments: [x]\n",
		"g/b/expected_output.json": bom + "{\"n\": 2}\n",
		"g/b/expected_status_code": bom + "3\n",
	})
	errs, loaded := caseErrors(t, LoaderAuto, groupIn(dir, "g"))
	if len(errs) > 0 || len(loaded) != 2 {
		t.Fatalf("errors %v, loaded %s", errs, ids(loaded))
	}
	if got := loaded[0].Arguments; len(got) != 3 || got[0] != "echo" {
		t.Errorf("arguments %q", got)
	}
	if got := fmt.Sprint(loaded[1].Expected["status_code"], " ", loaded[1].Expected["output"]); got != "3 map[n:2]" {
		t.Errorf("expected %s", got)
	}
}

// Arguments that cannot be split are reported in the file they were
// read from: ARGS, not the case's META.yaml or directory.
func TestArgsFileErrorsNameTheFile(t *testing.T) {
	dir := writeTree(t, map[string]string{"g/a/ARGS": "x\ny $(z)\n", "g/a/EXPECTED.json": "[]\n"})
	errs, _ := caseErrors(t, LoaderArgsExpected, groupIn(dir, "g"))
	want := filepath.Join(dir, "g", "a", "ARGS") + `: cannot split "x\ny $(z)" into words: unexpected command substitution at 2:3`
	if !strings.Contains(errs["a"], want) {
		t.Errorf("got  %q\nwant %q", errs["a"], want)
	}
}
