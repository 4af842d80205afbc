package run

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// mergesProblem shares settings through YAML anchors and merge keys (<<),
// as yaml.v3 reads them into Go values, at every level the loaders
// decode: a group's settings in config.yaml, its case_defaults, a group
// file's cases (one merge of a list of two, the first winning), and a
// case's input within it. A case's own key wins over a merged one.
var mergesProblem = map[string]string{
	"config.yaml": `name: merges
command: "sh main.sh"
checkpoints:
  c1:
    groups:
      g: &core
        type: Core
        case_defaults: {<<: {timeout: 7}, env: {GREETING: hi}}
      h:
        <<: *core
        type: Functionality
`,
	"c1/g.yaml": `
exits_two: &exit2
  case: {arguments: [exit, "2"]}
  expected: {status_code: 2}
greets: &greets
  case: {arguments: [greet]}
  expected: {output: "hi\n"}
also_exits_two:
  <<: *exit2
both:
  <<: [*greets, *exit2]
own_wins:
  <<: *exit2
  expected: {status_code: 3}
args_merged:
  case: {<<: {arguments: [exit, "4"]}, env: {X: "1"}}
  expected: {status_code: 4}
copied: *exit2
aliased_items:
  case: {arguments: [&word greet, *word]}
  expected: {output: "hi\n"}
aliased_key:
  case: {arguments: [env], env: {*word : "from an alias key"}}
  expected: {output: "from an alias key\n"}
ordered:
  case: {arguments: [cat], stdin: {<<: [{p: 1, q: 2}, {q: 3, r: 4}], z: 0}}
  expected: {output: "{\"p\":1,\"q\":2,\"r\":4,\"z\":0}\n"}
`,
	"c1/h.yaml": `
greets_too: {case: {arguments: [greet]}, expected: {output: "hi\n"}}
`,
}

const mergesSubmission = `case "$1" in
exit) exit "$2" ;;
greet) echo "$GREETING" ;;
env) echo "$greet" ;;
cat) cat ;;
esac
`

// Merge keys apply at the level of case keys, group settings and
// case_defaults, not only inside values: each case runs with what it
// merged, and its own keys win. An alias stands for its value wherever
// it is written: a whole case, an item of a list, a key.
func TestMergeKeysApplyEverywhere(t *testing.T) {
	_, recs := runFiles(t, mergesProblem, mergesSubmission)
	want := map[string]bool{
		"c1/g/exits_two": true, "c1/g/greets": true, "c1/g/also_exits_two": true,
		"c1/g/both":        true,  // the first merged mapping (greets) wins for case and expected
		"c1/g/own_wins":    false, // expects 3, the submission exits 2
		"c1/g/args_merged": true, "c1/h/greets_too": true,
		"c1/g/copied":        true, // a whole case given as an alias
		"c1/g/aliased_items": true, // an alias as an item of a list
		"c1/g/aliased_key":   true, // an alias as a key: the key is the aliased text
		"c1/g/ordered":       true, // merged keys where the << is, the first merged mapping winning
	}
	if len(recs) != len(want) {
		t.Errorf("%d cases ran, want %d", len(recs), len(want))
	}
	for k, passed := range want {
		r := recs[k]
		if r == nil {
			t.Errorf("%s did not run", k)
			continue
		}
		if r.Passed != passed {
			t.Errorf("%s passed=%v, want %v: %+v", k, r.Passed, passed, r.Attributes)
		}
		if r.Case.TimeoutS != 7 {
			t.Errorf("%s: timeout %v, want 7 from a merge in case_defaults", k, r.Case.TimeoutS)
		}
	}
	if r := recs["c1/h/greets_too"]; r != nil && r.GroupType != "Functionality" {
		t.Errorf("group h: type %q, want its own key over the merged one", r.GroupType)
	}
}

// A merge of something other than a mapping, and merges that bring more
// than MaxMerged pairs (each level's keys are also cases, refused as such), are
// refused at the merge's line, naming the key.
func TestBadMergesAreRefused(t *testing.T) {
	// One mapping named by 10,001 merges: each brings its ten keys, past
	// MaxMerged, in a file that stays within what it may expand into.
	bomb := "a: &a {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1, k9: 1}\n" +
		"l: &l {<<: [" + strings.Repeat("*a, ", strictyaml.MaxMerged/10) + "*a]}\n"
	prev := "l"
	// Each case's stdin is one large value named again: within what one
	// value may expand into, but the file would expand into 270 million.
	expanding := "c: {case: {arguments: [x], stdin: &big [" + strings.Repeat("1, ", 89_999) + "1]}}\n"
	for i := 0; i < 3000; i++ {
		expanding += "c" + strconv.Itoa(i) + ": {case: {arguments: [x], stdin: *big}}\n"
	}
	for name, tc := range map[string]struct{ group, want string }{
		"scalar": {"c: {<<: 5, case: {arguments: [x]}}\n", `g.yaml:1: c.<<: a merge (<<) takes a mapping or a list of mappings, got "5"`},
		"bomb":   {bomb + "c: {<<: *" + prev + ", case: {arguments: [x]}}\n", "g.yaml:3: c.<<: the merges (<<) bring more than 100000 keys"},
		// The same merges at the top of a group file, where cases are named.
		"bomb-top":  {bomb + "<<: *" + prev + "\n", "g.yaml:3: <<: the merges (<<) bring more than 100000 keys"},
		"itself":    {"c: &c {<<: *c, case: {arguments: [x]}}\n", "g.yaml:1: the alias *c is inside the value &c names: a value cannot contain itself"},
		"expanding": {expanding, "the alias *big takes the file past"},
		"twice": {"c: {case: {arguments: [x], env: &e {A: '1', A: '2'}}}\nd: {case: {arguments: [x], env: {<<: *e}}}\n",
			`g.yaml:1: c.case.env.A: key given twice`},
		"twice-merged": {"c: {case: {arguments: [x]}, extra: &e {A: '1', A: '2'}}\nd: {case: {arguments: [x], env: {<<: *e}}}\n",
			`g.yaml:2: d.case.env.<<: line 1: key "A" given twice in a merged mapping`},
		// What becomes data the submission reads (stdin as JSON, an input
		// file's content) is held to the same rules.
		"merge-twice":        {"a: &a {case: {arguments: [a]}}\nb: &b {case: {arguments: [b]}}\nc:\n  <<: *a\n  <<: *b\n", `g.yaml:5: c.<<: the merge key (<<) is given twice: merge several mappings with <<: [*a, *b]`},
		"stdin-twice":        {"c: {case: {arguments: [x], stdin: {a: 1, a: 2}}}\n", `key "a" given twice`},
		"stdin-merged-twice": {"c: {case: {arguments: [x], stdin: {<<: {a: 1, a: 2}, z: 0}}}\n", `key "a" given twice in a merged mapping`},
		"stdin-bad-merge":    {"c: {case: {arguments: [x], stdin: {<<: [1], k: 2}}}\n", `a merge (<<) takes a mapping or a list of mappings, got "1"`},
		"input-file-key":     {"c: {case: {arguments: [x], input_files: [{path: u.json, content: {[a, b]: 1}}]}}\n", `a key must be text, got a list`},
		"env-key":            {"c: {case: {arguments: [x], env: {[a]: x}}}\n", `g.yaml:1: c.case.env: a key must be text, got a list`},
		// One message for a value that does not build, its line said once,
		// and no second one calling it null.
		"output-twice": {"c:\n  case: {arguments: [x]}\n  expected: {output: {a: 1, a: 2}}\n", `g.yaml:3: c.expected.output: mapping key "a" already defined`},
	} {
		t.Run(name, func(t *testing.T) {
			prob := writeFiles(t, map[string]string{
				"config.yaml": "name: m\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
				"c1/g.yaml":   tc.group,
			})
			p, err := LoadProblem(prob)
			if err == nil {
				err = Validate(context.Background(), p, BuiltinLoader, nil)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "null") || strings.Count(err.Error(), "\n") > 0 && name == "output-twice" {
				t.Errorf("more than the one error:\n%v", err)
			}
		})
	}
	// A group named twice in config.yaml: the second used to run as well,
	// under the first's settings.
	prob := writeFiles(t, map[string]string{
		"config.yaml": "name: m\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n      g: {type: Error}\n",
		"c1/g.yaml":   "c: {case: {arguments: [x]}}\n",
	})
	if _, err := LoadProblem(prob); err == nil || !strings.Contains(err.Error(), `config.yaml:7: checkpoints.c1.groups.g: group "g" is given twice`) {
		t.Errorf("a group given twice: %v", err)
	}
}

// A group's case_defaults are decoded from the YAML they were read from,
// so an error in them names its line (they used to be written out again
// from the decoded values, which have none), a regression group's too.
func TestCaseDefaultsErrorsNameTheirLine(t *testing.T) {
	prob := writeFiles(t, map[string]string{
		"config.yaml": "name: m\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n        case_defaults:\n          timeout: soon\n          stdn: x\n          arguments: \"a $(b)\"\n",
		"c1/g.yaml":   "a: {case: {expected: {status_code: 0}}}\n",
	})
	p, err := LoadProblem(prob)
	if err == nil {
		err = Validate(context.Background(), p, BuiltinLoader, nil)
	}
	for _, want := range []string{"config.yaml:9: checkpoints.c1.groups.g.case_defaults.timeout: expected a number", "config.yaml:10: checkpoints.c1.groups.g.case_defaults.stdn: unknown key",
		`config.yaml:11: checkpoints.c1.groups.g.case_defaults.arguments: cannot split "a $(b)" into words: unexpected command substitution at 1:3`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v\nwant an error containing %q", err, want)
		}
	}
}

// Stdin given as a mapping is written as its author wrote it: keys in
// order, and <, > and & as they are, not as encoding/json's \u003c
// escapes for HTML pages (which a submission comparing text would see).
func TestStdinJSONIsWrittenAsAuthored(t *testing.T) {
	_, recs := runFiles(t, map[string]string{
		"config.yaml": "name: s\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g.yaml":   "a: {case: {stdin: {z: 1, q: \"a<b && c>d\"}}, expected: {output: \"{\\\"z\\\":1,\\\"q\\\":\\\"a<b && c>d\\\"}\\n\"}}\n",
	}, "cat\n")
	if r := recs["c1/g/a"]; r == nil || !r.Passed {
		t.Fatalf("stdin was not written as authored: %+v", r)
	}
}
