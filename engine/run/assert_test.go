package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/result"
)

// assertConfig is a greeter checked only with assertions: its output is a
// JSON document whose fields are checked in parts, its standard error a
// log line. Every assertion kind and every negation appears once, plus
// latency (with a ceiling no machine comes near).
const assertConfig = `name: asserts
command: "sh main.sh"
checkpoints:
  c1:
    groups:
      greet:
        type: Core
        checks:
          - kind: is-json
          - {kind: equals, json_path: $.greeting, expected_from: expected.greeting}
          - {kind: starts-with, json_path: $.greeting, value: "Hello, "}
          - {kind: icontains, json_path: $.greeting, expected_from: expected.name}
          - {kind: contains-all, json_path: $.note, values: [name, length]}
          - {kind: contains-any, attribute: stderr, values: [ok, done], ignore_case: true}
          - {kind: contains, attribute: stderr, value: greeted}
          - {kind: not-contains, attribute: stderr, values: [error, panic]}
          - {kind: not-icontains, json_path: $.greeting, value: undefined}
          - {kind: not-equals, json_path: $.name_length, value: 0}
          - {kind: not-starts-with, attribute: stderr, value: Traceback}
          - {kind: not-contains-all, json_path: $.note, values: [secret, password]}
          - {kind: not-contains-any, json_path: $.note, values: [secret, password]}
          - {kind: not-is-json, attribute: stderr}
          - {kind: latency, max_seconds: 600}
`

var assertProblem = map[string]string{
	"config.yaml":            assertConfig,
	"c1/greet/ann/ARGS":      "greet ann",
	"c1/greet/ann/META.yaml": "expected: {greeting: 'Hello, Ann!', name: ann}\n",
	"c1/greet/bob/ARGS":      "greet bob",
	"c1/greet/bob/META.yaml": "expected: {greeting: 'Hello, Bob!', name: bob}\n",
	"c1/greet/cy/ARGS":       "greet cy",
	"c1/greet/cy/META.yaml":  "expected: {greeting: 'Hello, Cy!', name: cy}\n",
	"c1/greet/dee/ARGS":      "greet dee",
	"c1/greet/dee/META.yaml": "expected: {greeting: 'Hello, Dee!', name: dee}\n",
	"c1/greet/eve/ARGS":      "greet eve",
	"c1/greet/eve/META.yaml": "expected: {greeting: 'Hello, Eve!', name: eve}\n",
}

// assertSubmission greets everyone right. Its wrong version (see the
// test) changes one thing per case.
const assertSubmission = `name="$2"
first=$(printf %s "$name" | cut -c1 | tr a-z A-Z)
greeting="Hello, $first$(printf %s "$name" | cut -c2-)!"
note="the name $name has length ${#name}"
log="greeted $name: OK"
# WRONG
printf '{"greeting": "%s", "note": "%s", "name_length": %d}\n' "$greeting" "$note" ${#name}
echo "$log" >&2
`

const assertCases = 5

func runAsserts(t *testing.T, script string) map[string]*result.CaseRecord {
	t.Helper()
	_, all := runFiles(t, assertProblem, script)
	recs := byID(all)
	if len(recs) != assertCases {
		t.Fatalf("%d cases run, want %d", len(recs), assertCases)
	}
	return recs
}

func TestRunAssertionChecks(t *testing.T) {
	const checks = 15
	for id, r := range runAsserts(t, assertSubmission) {
		if !r.Passed || len(r.Attributes) != checks {
			t.Errorf("%s: passed %v with %d attributes: %+v", id, r.Passed, len(r.Attributes), r.Attributes)
		}
		for _, a := range r.Attributes {
			// Read back from the journal, numbers are json.Number.
			n, _ := a.Actual.(json.Number)
			elapsed, err := n.Float64()
			if a.Check == "latency" && (a.Attribute != "latency" || err != nil || elapsed != r.Result.Elapsed || a.Expected != json.Number("600")) {
				t.Errorf("%s: latency verdict %+v, elapsed %v", id, a, r.Result.Elapsed)
			}
		}
	}

	// One change per case; eve's answer stays right.
	wrong := strings.Replace(assertSubmission, "# WRONG\n", `case "$name" in
ann) greeting="Hi, Ann!" ;;
bob) log="error: slow disk; $log" ;;
cy) note="the name $name" ;;
dee) log="greeted $name" ;;
esac
`, 1)
	recs := runAsserts(t, wrong)
	type failure struct{ check, summary, entry string }
	want := map[string][]failure{
		"ann": {
			{"equals", "$.greeting: 1 line differs", "$.greeting (line 1) changed"},
			{"starts-with", `$.greeting in output does not start with "Hello, " (it starts with "Hi, Ann")`, "$.greeting changed"},
		},
		"bob": {{"not-contains", `stderr contains "error", which it must not`, "stderr extra"}},
		"cy":  {{"contains-all", `$.note in output lacks 1 of 2 phrases: "length"`, "$.note missing"}},
		"dee": {{"contains-any", `stderr contains none of "ok", "done"`, "stderr missing"}},
	}
	for id, r := range recs {
		w := want[id]
		if r.Passed != (len(w) == 0) {
			t.Errorf("%s: passed %v", id, r.Passed)
		}
		var failed []string
		for _, a := range r.Attributes {
			if a.IsCorrect {
				continue
			}
			failed = append(failed, a.Check)
			i := slices.IndexFunc(w, func(f failure) bool { return f.check == a.Check })
			if i < 0 {
				t.Errorf("%s: the %s check on %s is wrong: %+v", id, a.Check, a.Attribute, a.Diff)
				continue
			}
			if a.Diff == nil || !strings.Contains(a.Diff.Summary, w[i].summary) {
				t.Errorf("%s: %s summary %+v, want %q", id, a.Check, a.Diff, w[i].summary)
				continue
			}
			if len(a.Diff.Entries) != 1 || a.Diff.Entries[0].Path+" "+a.Diff.Entries[0].Op != w[i].entry {
				t.Errorf("%s: %s entries %+v, want %q", id, a.Check, a.Diff.Entries, w[i].entry)
			}
		}
		if len(failed) != len(w) {
			t.Errorf("%s: %v failed, want %d checks", id, failed, len(w))
		}
	}
}

// Bad assertion options are refused when the problem loads, at their
// check's line and naming the field; a check that reads an expected value
// no case gives is refused by validation, naming the case.
func TestAssertionValidation(t *testing.T) {
	bad := strings.NewReplacer(
		"{kind: starts-with, json_path: $.greeting, value: \"Hello, \"}", "{kind: starts-with, json_path: $.greeting, value: [Hello, Hi]}",
		"{kind: contains-all, json_path: $.note, values: [name, length]}", "{kind: contains-all, json_path: $.note, values: [name, length], threshold: 2}",
		"{kind: not-is-json, attribute: stderr}", "{kind: not-latency, max_seconds: 1}",
		"{kind: latency, max_seconds: 600}", "{kind: latency}",
	).Replace(assertConfig)
	if bad == assertConfig {
		t.Fatal("nothing replaced")
	}
	files := map[string]string{}
	for k, v := range assertProblem {
		files[k] = v
	}
	files["config.yaml"] = bad
	_, err := LoadProblem(writeFiles(t, files))
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	wantErrs := []struct {
		line int
		path string
		msg  string
	}{
		{11, "checkpoints.c1.groups.greet.checks[2]", "value: is a list; the starts-with check takes one text, number or boolean"},
		{13, "checkpoints.c1.groups.greet.checks[4]", "threshold: must be between 0 and 1"},
		{22, "checkpoints.c1.groups.greet.checks[13]", `kind: "not-latency": the latency check has no negation`},
		{23, "checkpoints.c1.groups.greet.checks[14]", "max_seconds: the latency check needs"},
	}
	if len(list) != len(wantErrs) {
		t.Fatalf("got %d errors, want %d: %v", len(list), len(wantErrs), err)
	}
	for i, w := range wantErrs {
		e := list[i]
		if filepath.Base(e.File) != "config.yaml" || e.Line != w.line || e.Path != w.path || !strings.HasPrefix(e.Msg, w.msg) {
			t.Errorf("error %d: %s:%d: %s: %s\nwant line %d, %s and %q", i, e.File, e.Line, e.Path, e.Msg, w.line, w.path, w.msg)
		}
	}

	// A value of the wrong type where the option is decoded.
	files["config.yaml"] = strings.Replace(assertConfig, "values: [ok, done]", "values: ok", 1)
	_, err = LoadProblem(writeFiles(t, files))
	if !errors.As(err, &list) || len(list) != 1 || list[0].Line != 14 || !strings.Contains(list[0].Path+": "+list[0].Msg, "values") {
		t.Fatalf("got %v", err)
	}

	// The config is right but for a key no case gives: validation names
	// the cases, once.
	files["config.yaml"] = strings.Replace(assertConfig, "expected_from: expected.name", "expected_from: expected.nickname", 1)
	p, err := LoadProblem(writeFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, nil)
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("got %v", err)
	}
	if e := list[0]; !strings.Contains(e.Path+": "+e.Msg, fmt.Sprintf("checks[3]: %d cases (ann, ", assertCases)) || !strings.Contains(e.Msg, "expected_from: expected.nickname: not found in the case's expected values") {
		t.Errorf("got %s: %s", e.Path, e.Msg)
	}
}
