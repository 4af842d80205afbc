package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// problemTree writes a problem's files under a fresh directory.
func problemTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func validateDir(t *testing.T, dir string) ([]GroupCheck, error) {
	t.Helper()
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ValidateGroups(context.Background(), p, BuiltinLoader, nil)
}

// A problem in the cases of a group that later checkpoints import as
// regressions is reported once, naming every group that reaches it, and
// every problem of a case is reported, not only the first.
func TestValidateReportsEachProblemOnceWithEveryImport(t *testing.T) {
	dir := problemTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.sh
checkpoints:
  c1:
    order: 1
    groups: {core: {type: Core}}
  c2:
    order: 2
    groups: {core: {type: Core}}
    regressions: [{checkpoint: c1}]
  c3:
    order: 3
    groups: {core: {type: Core}}
    regressions: [{checkpoints: "*"}]
`,
		"c1/core/a/case.yaml": "arguments: [x]\nflavour: 1\nexpected: {status_code: zero, output: hi}\ninput_files: [{path: ../x, content: a}]\n",
		"c1/core/b/case.yaml": "expected: {output: hi, stdout: hi}\n",
		"c2/core/x/case.yaml": "expected: {output: ok}\n",
		"c3/core/y/case.yaml": "expected: {output: ok}\n",
	})
	_, err := validateDir(t, dir)
	if err == nil {
		t.Fatal("validation passed")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`a/case.yaml:2: flavour: unknown key "flavour"`,
		`a/case.yaml:3: expected.status_code: expected an integer`,
		`a/case.yaml:4: input_files[0].path: path "../x" escapes the workspace`,
		`b/case.yaml: expected.stdout: case b: the cli adapter produces no attribute stdout`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d problems reported, want %d (each once):\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d lacks %q: %s", i, w, lines[i])
		}
		if !strings.HasSuffix(lines[i], "(in the cases of 3 groups: c1/core, c2/c1_core (regression), c3/c1_core (regression))") {
			t.Errorf("line %d does not name every group that reaches it: %s", i, lines[i])
		}
	}
}

// Expected values are checked against the attributes the problem's adapter
// produces: a key no check can get an actual value for, or a file no
// tracked_files entry reads back, would fail every run of the case.
func TestValidateExpectedAgainstTheAdapter(t *testing.T) {
	for _, tc := range []struct {
		name, adapter, cases string
		want                 []string // empty: valid
	}{
		{"cli: known attributes", "cli", "a: {expected: {status_code: 0, output: x, stderr: '', files: {out/r.txt: x}}, tracked_files: ['out/**']}\n", nil},
		{"cli: tracked directory", "cli", "a: {expected: {files: {out/r.txt: x}}, tracked_files: [out]}\n", nil},
		{"cli: unknown key", "cli", "a: {expected: {stdout: x}}\n", []string{"expected.stdout: case a: the cli adapter produces no attribute stdout"}},
		{"cli: untracked file", "cli", "a: {expected: {files: {r.txt: x}}, tracked_files: [other.txt]}\n",
			[]string{"expected.files.r.txt: case a: no tracked_files entry reads r.txt back after the case (tracked: other.txt)", "add it to the case's or the adapter's tracked_files"}},
		{"cli: nothing checked", "cli", "a: {arguments: [x]}\nb: {expected: {}}\nc: {expected: {files: {}}}\n", []string{"expected: case a checks nothing: it has no expected value", "case b checks nothing", "case c checks nothing"}},
		{"cli: exit status 255", "cli", "a: {expected: {status_code: 255}}\n", nil},
		{"cli: exit status 256", "cli", "a: {expected: {status_code: 256}}\n", []string{"expected.status_code: case a expects exit status 256, which no process exits with: an exit status is 0 to 255"}},
		{"api: status 42", "api", "a: {request: {path: /}, expected: {status_code: 42}}\n", []string{"expected.status_code: case a expects HTTP status 42, which no response has: an HTTP status is 100 to 599"}},
		{"cli: headers", "cli", "a: {expected: {headers: {x-a: b}}}\n", []string{"expected.headers.x-a: case a: response headers come only from the api adapter"}},
		{"cli: a check's attribute", "cli", "a: {expected: {output: x}, checks: [{kind: text, attribute: body}]}\n", []string{"checks[0]: case a: the cli adapter produces no attribute body"}},
		{"api: headers", "api", "a: {request: {path: /}, expected: {status_code: 200, headers: {X-A: b}, output: ok}}\n", nil},
		{"api: stderr", "api", "a: {request: {path: /}, expected: {stderr: x}}\n", []string{"expected.stderr: case a: the api adapter does not capture stderr"}},
		{"api: archive files", "api", "a: {request: {path: /, response: archive}, expected: {files: {r.txt: x}}}\n", nil},
		{"browser: capture", "browser", "a: {steps: [{goto: /}], expected: {output: {items: 1}}}\n", nil},
		{"browser: capture key", "browser", "a: {steps: [{goto: /}], expected: {items: 1}}\n",
			[]string{"expected.items: case a: the browser adapter produces no attribute items (it produces status_code, output)", "expect it as output: {items: …}"}},
	} {
		dir := problemTree(t, map[string]string{
			"config.yaml": "name: p\nentry_file: app.py\nadapter: {type: " + tc.adapter + "}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n",
			"c1/g.yaml":   tc.cases,
		})
		_, err := validateDir(t, dir)
		switch {
		case len(tc.want) == 0 && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case len(tc.want) > 0 && err == nil:
			t.Errorf("%s: validation passed", tc.name)
		case len(tc.want) > 0:
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) || !strings.Contains(err.Error(), "g.yaml") {
					t.Errorf("%s: %v\nwant %q", tc.name, err, w)
				}
			}
		}
	}
}

// Every adapter gives a case its mock calls when the group declares mocks:
// a check of mock_calls without any, or a mock-calls check naming a mock
// the group does not declare, would judge nothing real.
func TestValidateMockCalls(t *testing.T) {
	const mocks = "mocks:\n  payments:\n    routes: [{method: POST, path: /v1/charges, responses: [{status: 201}]}]\n"
	check := "checks: [{kind: mock-calls, mock: payments, method: POST, path: /v1/charges, count: 1, body: {amount: 1999}}]"
	for _, tc := range []struct {
		name, adapter, mocks, cases string
		want                        []string // empty: valid
	}{
		{"cli: mock-calls", "cli", mocks, "a: {" + check + "}\n", nil},
		{"api: mock-calls", "api", mocks, "a: {request: {path: /}, " + check + "}\n", nil},
		{"browser: json on mock_calls", "browser", mocks, "a: {steps: [{goto: /}], expected: {amount: 1999}, checks: [{kind: json, attribute: mock_calls, json_path: '$[0].body.amount', expected_from: expected.amount}]}\n", nil},
		{"agent: expected mock_calls", "agent", mocks, "a: {instruction: x, expected: {mock_calls: []}}\n", nil},
		{"api: an undeclared mock", "api", mocks, "a: {request: {path: /}, checks: [{kind: mock-calls, mock: refunds}]}\n",
			[]string{`checks[0].mock: case a: the mock-calls check selects the calls to mock "refunds", which the group does not declare (its mocks: payments)`}},
		{"cli: no mocks", "cli", "", "a: {" + check + "}\n",
			[]string{`checks[0].mock: case a: the mock-calls check selects the calls to mock "payments", which the group does not declare (it declares none)`}},
		{"cli: mock_calls expected without mocks", "cli", "", "a: {expected: {mock_calls: []}}\n",
			[]string{"expected.mock_calls: case a: the check of mock_calls reads the requests the group's mocks received, but the group declares no mocks"}},
		{"cli: a bad count", "cli", mocks, "a: {checks: [{kind: mock-calls, mock: payments, count: -1}]}\n", []string{"count: must not be negative, got -1"}},
	} {
		dir := problemTree(t, map[string]string{
			"config.yaml": "name: p\nentry_file: app.py\nadapter: {type: " + tc.adapter + "}\n" + tc.mocks + "checkpoints:\n  c1: {groups: {g: {type: Core}}}\n",
			"c1/g.yaml":   tc.cases,
		})
		_, err := validateDir(t, dir)
		switch {
		case len(tc.want) == 0 && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case len(tc.want) > 0 && err == nil:
			t.Errorf("%s: validation passed", tc.name)
		case len(tc.want) > 0:
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %v\nwant %q", tc.name, err, w)
				}
			}
		}
	}
}

// Validation says which built-in loader read each group and how.
func TestValidateSaysWhichLoaderReadEachGroup(t *testing.T) {
	dir := problemTree(t, map[string]string{
		"config.yaml":         "name: p\nentry_file: main.sh\ncheckpoints:\n  c1:\n    groups: {dirs: {type: Core}, file: {}, args: {}, files: {}}\n",
		"c1/files/a.yaml":     "expected: {output: x}\n",
		"c1/files/b.yaml":     "expected: {output: y}\n",
		"c1/dirs/a/case.yaml": "expected: {output: x}\n",
		"c1/file.yaml":        "a: {expected: {output: x}}\nb: {expected: {output: y}}\n",
		"c1/args/a/ARGS":      "x\n",
		"c1/args/a/EXPECTED":  "x\n",
		"c1/args/b/ARGS":      "y\n",
		"c1/args/b/EXPECTED":  "y\n",
		"c1/args/c/ARGS":      "z\n",
		"c1/args/c/EXPECTED":  "z\n",
		"c1/dirs/b/case.yaml": "expected: {output: y}\n",
		"c1/dirs/b/input.txt": "in\n",
	})
	groups, err := validateDir(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"dirs":  "2 built-in loader auto: case directories (case.yaml)",
		"file":  "2 built-in loader auto: group file (file.yaml)",
		"args":  "3 built-in loader auto: case directories (ARGS/EXPECTED)",
		"files": "2 built-in loader auto: case files (files/<case>.yaml)",
	}
	if len(groups) != len(want) {
		t.Fatalf("%d groups, want %d: %+v", len(groups), len(want), groups)
	}
	for _, g := range groups {
		if got := strconv.Itoa(g.Cases) + " " + g.Loader; got != want[g.Group] || g.Partial != "" {
			t.Errorf("%s: %q (partial %q), want %q", g.Group, got, g.Partial, want[g.Group])
		}
	}
}

// A loader plugin is run by validation: a stateless one gives every case,
// so a case file it cannot read is an error before anything runs, at the
// loader's binding; a stateful one gives the cases it can before any
// result, and validation says that the rest wait for results.
func TestValidateRunsLoaderPlugins(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inventory")
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "checkpoint_2", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil || !strings.Contains(string(data), "catalog: static/catalog.csv, asset") {
		t.Fatalf("checkpoint_2/config.yaml changed: %v", err)
	}
	os.WriteFile(cfg, []byte(strings.Replace(string(data), "catalog: static/catalog.csv, asset", "catalog: static/gone.csv, asset", 1)), 0o644)
	h := runtest.Host(t, host.Options{})
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, h)
	if err == nil || !strings.Contains(err.Error(), "checkpoint_2/config.yaml:34: groups.by_category.loader: checkpoint checkpoint_2, group by_category: loader plugin inventory-loader@") ||
		!strings.Contains(err.Error(), "cannot read static/gone.csv") {
		t.Fatalf("a loader plugin that cannot read its case file validates: %v", err)
	}

	p, err = LoadProblem("../../examples/notes")
	if err != nil {
		t.Fatal(err)
	}
	groups, err := ValidateGroups(context.Background(), p, BuiltinLoader, h)
	if err != nil {
		t.Fatal(err)
	}
	var stats *GroupCheck
	for i := range groups {
		if groups[i].Group == "stats" {
			stats = &groups[i]
		}
	}
	if stats == nil || stats.Cases == 0 || !strings.HasPrefix(stats.Loader, "loader plugin notes-statsloader@") ||
		!strings.Contains(stats.Partial, "the loader is stateful") {
		t.Fatalf("stateful loader: %+v", stats)
	}
}

// wasmeval's own placeholders in a case's arguments and env are held to
// what its processes get filled in; other words in double braces are the
// submission's data.
func TestValidateCasePlaceholders(t *testing.T) {
	dir := problemTree(t, map[string]string{
		"config.yaml": "name: p\nentry_file: app.py\ncheckpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n        env: {G: \"{{mock.pay}}\"}\n" +
			"        mocks: {pay: {routes: [{path: /, responses: [{status: 200}]}]}}\n",
		"c1/g.yaml": "a: {arguments: [\"{{mock.pay}}\", \"{{mock.nope}}\", \"--port={{port}}\", \"Hello {{name}}\"], env: {E: \"{{host}}\", G: \"{{mock.pay}}\"}, expected: {status_code: 0}}\n",
	})
	_, err := validateDir(t, dir)
	if err == nil {
		t.Fatal("validation passed")
	}
	text := err.Error()
	for _, w := range []string{
		`arguments[1]: case a: {{mock.nope}}: group g declares no mock "nope" (declared there: pay)`,
		`arguments[2]: case a: {{port}} is filled in only in a server's command, arguments and env`,
		`env.E: case a: {{host}} is filled in only in a server's command, arguments and env`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("%s\nwant %q", text, w)
		}
	}
	for _, fine := range []string{"arguments[0]", "arguments[3]", "env.G"} {
		if strings.Contains(text, fine) {
			t.Errorf("%s refused:\n%s", fine, text)
		}
	}
}

// A case among others in a group file is reported at its own key and
// line, for what is found wrong with its checks and its expected values
// once the cases are loaded, each problem once and in file order.
func TestGroupFileCaseProblemsNameTheCase(t *testing.T) {
	dir := problemTree(t, map[string]string{
		"config.yaml": "name: rx\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g.yaml": "a:\n  case: {arguments: [x]}\n  checks: [{kind: regex, attribute: output, pattern: \"(unclosed\"}]\n" +
			"b:\n  case: {arguments: [x]}\n  expected: {status_code: 300}\n",
	})
	_, err := validateDir(t, dir)
	if err == nil {
		t.Fatal("validated")
	}
	g := filepath.Join(dir, "c1", "g.yaml")
	for _, want := range []string{
		g + ":2: a.checks[0]: pattern: error parsing regexp: missing closing ): `(unclosed`",
		g + ":5: b.expected.status_code: case b expects exit status 300",
	} {
		if strings.Count(err.Error(), want) != 1 {
			t.Errorf("want %q once in:\n%v", want, err)
		}
	}
}
