package problem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Names become path components (the checkpoint's and group's directories,
// <checkpoint>/evaluation.json, artifacts/<checkpoint>/<group>/) and key
// parts: one with a separator or .. is refused where it is written, before
// anything reads a group file or writes a summary with it.
func TestNamesThatAreNotOnePathComponentAreRefused(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "problem")
	// What a hostile name would reach: a group file outside the problem.
	os.WriteFile(filepath.Join(base, "g.yaml"), []byte("a: {expected: {output: x}}\n"), 0o644)
	files := map[string]string{
		"config.yaml": `name: p
entry_file: main.py
static_assets:
  ../../etc: {path: s.txt}
verifier: {name: ../../tmp/evil, sha256: ` + strings.Repeat("0", 64) + `}
checkpoints:
  ../..:
    path: c1
    groups: {g: {type: Core}}
  c1:
    groups:
      ../g: {type: Core}
      g/a: {type: Core}
      "": {type: Core}
      "tab\there": {type: Core}
      ok: {type: Core}
  c2:
    regressions:
      - checkpoint: c1
        name_template: "../{group}"
    groups: {h: {type: Core}}
`,
		"s.txt":             "s\n",
		"c1/ok/a/case.yaml": "{}\n",
		"c2/h/a/case.yaml":  "{}\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	cfg := filepath.Join(dir, "config.yaml")
	text := loadErr(t, dir, testOpts)
	wantAll(t, text,
		cfg+`:4: static_assets.../../etc: static asset name "../../etc" contains a path separator`,
		cfg+`:5: verifier.name: plugin name "../../tmp/evil" contains a path separator`,
		cfg+`:7: checkpoints.../..: checkpoint name "../.." contains a path separator`,
		cfg+`:12: checkpoints.c1.groups.../g: group name "../g" contains a path separator`,
		cfg+`:13: checkpoints.c1.groups.g/a: group name "g/a" contains a path separator`,
		cfg+`:14: checkpoints.c1.groups.: group name "" is empty`,
		cfg+`:15: "checkpoints.c1.groups.tab\there": group name "tab\there" contains a control character`,
		cfg+`:19: checkpoints.c2.regressions[0].name_template: regression group name "../ok" contains a path separator`,
	)

	// The list form names directories directly.
	dir = writeTree(t, map[string]string{"config.yaml": "name: p\nentry_file: main.py\ncheckpoints:\n  - ..\n  - ../problem\n"})
	text = loadErr(t, dir, testOpts)
	wantAll(t, text,
		`config.yaml:4: checkpoints[0]: checkpoint name ".." is . or ..`,
		`config.yaml:5: checkpoints[1]: checkpoint name "../problem" contains a path separator`)
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"checkpoint_1", "core", "a b", "ünïcode", ".hidden", "a..b", strings.Repeat("x", MaxNameBytes)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "/abs", "a\x00b", "a\nb", "\xff", strings.Repeat("x", MaxNameBytes+1)} {
		if err := CheckName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Keys are unambiguous whatever their parts hold, and keys of valid names
// read as they always did.
func TestCaseKeyIsUnambiguous(t *testing.T) {
	if a, b := CaseKey("c", "g", "a/b"), CaseKey("c", "g/a", "b"); a == b {
		t.Fatalf("group g case a/b and group g/a case b share key %q", a)
	}
	if a, b := CaseKey("c", "g%2Fa", "b"), CaseKey("c", "g/a", "b"); a == b {
		t.Fatalf("an escape sequence written in a name collides: %q", a)
	}
	if a, b := GroupKey("c/g", "a"), GroupKey("c", "g/a"); a == b {
		t.Fatalf("group keys collide: %q", a)
	}
	if got := CaseKey("checkpoint_1", "core", "basic"); got != "checkpoint_1/core/basic" {
		t.Fatalf("plain key changed: %q", got)
	}
}

// A version is an integer; 1.5 is refused rather than stored as 1. An
// empty problem is an error, not a run that passes on no cases.
func TestVersionAndEmptyProblems(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml":      "name: p\nversion: 1.5\nentry_file: main.py\ncheckpoints:\n  c1:\n    version: 2.25\n    order: 1.5\n    groups: {g: {type: Core}}\n",
		"c1/g/a/case.yaml": "{}\n",
	})
	text := loadErr(t, dir, testOpts)
	wantAll(t, text,
		`config.yaml:2: version: expected an integer, got "1.5"`,
		`config.yaml:6: checkpoints.c1.version: expected an integer, got "2.25"`,
		`config.yaml:7: checkpoints.c1.order: expected an integer, got "1.5"`)

	for form, line := range map[string]string{"{}": "3", "[]": "3", "\n  {}": "3"} {
		dir := writeTree(t, map[string]string{"config.yaml": "name: p\nentry_file: main.py\ncheckpoints: " + form + "\n"})
		wantAll(t, loadErr(t, dir, testOpts), `config.yaml:`+line+`: checkpoints: expected at least one checkpoint, got none`)
	}
	dir = writeTree(t, map[string]string{"config.yaml": "name: p\nentry_file: main.py\ncheckpoints:\n  c1: {groups: {}}\n", "c1/.keep": ""})
	wantAll(t, loadErr(t, dir, testOpts), `config.yaml:4: checkpoints.c1.groups: checkpoint "c1" has no groups`)
}
