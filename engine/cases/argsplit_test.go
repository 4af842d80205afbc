package cases

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/shellwords"
)

// Splitting twice is what SlopCodeBench's harness does to a string of
// arguments (shlex.split, join with spaces, shlex.split): quotes protect
// only from the first split.
func TestSplitArgsTwice(t *testing.T) {
	for _, tc := range []struct {
		in         string
		once       []string
		twice      []string
		twiceError string
	}{
		{`--format "%Y-%m-%d %H:%M:%S"`, []string{"--format", "%Y-%m-%d %H:%M:%S"}, []string{"--format", "%Y-%m-%d", "%H:%M:%S"}, ""},
		{`a  b`, []string{"a", "b"}, []string{"a", "b"}, ""},
		{`a "" b`, []string{"a", "", "b"}, []string{"a", "b"}, ""},
		{`say "'hello world'"`, []string{"say", "'hello world'"}, []string{"say", "hello world"}, ""},
		{`a\ b`, []string{"a b"}, []string{"a", "b"}, ""},
		{`"a\\ b"`, []string{`a\ b`}, []string{"a b"}, ""},
		{`a$B c`, []string{"a$B", "c"}, []string{"a$B", "c"}, ""},
		{`$HOME "$X y"`, []string{"$HOME", "$X y"}, []string{"$HOME", "$X", "y"}, ""},
		{`"it's"`, []string{"it's"}, nil, "argument_splitting: twice"},
		// Nothing a shell would expand is: shlex.split leaves it as written.
		{`echo ${HOME} ~ ~/x $((1+2)) {a,b} *.txt`, []string{"echo", "${HOME}", "~", "~/x", "$((1+2))", "{a,b}", "*.txt"}, []string{"echo", "${HOME}", "~", "~/x", "$((1+2))", "{a,b}", "*.txt"}, ""},
		{`"${X:-a b}" "q\"q" "\a" \$x 'a\b'`, []string{"${X:-a b}", `q"q`, `\a`, "$x", `a\b`}, nil, "argument_splitting: twice"},
	} {
		once, err := shellwords.Split(tc.in)
		if err != nil || !reflect.DeepEqual(once, tc.once) {
			t.Errorf("Split(%s) = %q, %v; want %q", tc.in, once, err, tc.once)
		}
		twice, err := SplitArgsTwice(tc.in)
		if tc.twiceError != "" {
			if err == nil || !strings.Contains(err.Error(), tc.twiceError) {
				t.Errorf("SplitArgsTwice(%s) = %q, %v; want an error saying %q", tc.in, twice, err, tc.twiceError)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(twice, tc.twice) {
			t.Errorf("SplitArgsTwice(%s) = %q, %v; want %q", tc.in, twice, err, tc.twice)
		}
	}
}

// The problem's argument_splitting reaches every case whose arguments are
// one string, case_defaults' included; lists are never split.
func TestArgumentSplittingTwiceInCases(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g.yaml": `date: {arguments: '--format "%Y-%m-%d %H:%M:%S"'}
list: {arguments: ["--format", "%Y %m"]}
plain: {expected: {output: "x"}}
broken: {arguments: '"it''s"'}
`,
	})
	for _, mode := range []string{"", problem.SplitOnce, problem.SplitTwice} {
		g := groupIn(dir, "g")
		g.ArgumentSplitting = mode
		g.CaseDefaults = map[string]any{"arguments": `--tz "UTC +0"`}
		cs, err := loadAll(t, "group_file", g)
		if mode == problem.SplitTwice {
			if err == nil || !strings.Contains(err.Error(), "broken.arguments") || !strings.Contains(err.Error(), "argument_splitting: twice") {
				t.Fatalf("twice: error %v, want one naming broken.arguments", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", mode, err)
		}
		got := map[string][]string{}
		for _, c := range cs {
			got[c.ID] = c.Arguments
		}
		want := map[string][]string{
			"date": {"--format", "%Y-%m-%d %H:%M:%S"}, "list": {"--format", "%Y %m"},
			"plain": {"--tz", "UTC +0"}, "broken": {"it's"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: arguments %q, want %q", mode, got, want)
		}
	}
	g := groupIn(writeTree(t, map[string]string{"g.yaml": `date: {arguments: '--format "%Y-%m-%d %H:%M:%S"'}
list: {arguments: ["--format", "%Y %m"]}
plain: {expected: {output: "x"}}
`}), "g")
	g.ArgumentSplitting = problem.SplitTwice
	g.CaseDefaults = map[string]any{"arguments": `--tz "UTC +0"`}
	cs, err := loadAll(t, "group_file", g)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, c := range cs {
		got[c.ID] = c.Arguments
	}
	want := map[string][]string{
		"date": {"--format", "%Y-%m-%d", "%H:%M:%S"}, "list": {"--format", "%Y %m"}, "plain": {"--tz", "UTC", "+0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("twice: arguments %q, want %q", got, want)
	}
}
