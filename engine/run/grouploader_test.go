package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A loader plugin is told, for a regression group, the checkpoint and
// group whose cases it re-runs and their directory, so it loads those
// cases and not the current checkpoint's; the group's case_defaults apply
// to its cases (arguments split as argument_splitting says, env merged,
// timeout); and a group's `loader:` with only a config reconfigures the
// inherited plugin, in its regressions too.
func TestLoaderPluginGroupContext(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "grouploader.wasm")
	if err := pluginbuild.Build("./testdata/grouploader", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"config.yaml": fmt.Sprintf(`name: grouploader
command: sh args.sh
argument_splitting: twice
loader: {type: plugin, path: grouploader.wasm, sha256: %s, config: {mode: problem}}
checkpoints:
  c1:
    groups:
      g:
        type: Core
        case_defaults:
          arguments: '--format "%%Y-%%m-%%d %%H:%%M:%%S"'
          env: {FROM: defaults, MODE: overridden}
          timeout: 5
      h:
        type: Functionality
        loader: {config: {mode: h}}
  c2:
    path: second
    groups:
      g: {type: Core}
    regressions:
      - checkpoint: c1
`, digest),
		"c1/g/note.txt":     "first g",
		"c1/h/note.txt":     "first h",
		"second/g/note.txt": "second g",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "args.sh"), []byte(`printf '[%s]' "$@"`+"\n"), 0o644)

	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{Timeout: 10e9})
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Plugins: h})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Summaries {
		for name, g := range s.GroupOutcomes {
			if g.Error != "" {
				t.Errorf("%s/%s: %s", s.Name, name, g.Error)
			}
		}
	}

	type seen struct {
		env     map[string]string
		output  string
		timeout float64
	}
	defaults := func(env map[string]string) map[string]string {
		env["FROM"] = "defaults"
		return env
	}
	want := map[string]seen{
		"c1/g": {defaults(map[string]string{"CHECKPOINT": "c1", "GROUP": "g", "CASE_GROUP": "g", "ORIGIN_CHECKPOINT": "c1", "ORIGIN_GROUP": "g",
			"DIR": "c1/g", "NOTE": "first g", "MODE": "problem"}), "[--format][%Y-%m-%d][%H:%M:%S]", 5},
		"c1/h": {map[string]string{"CHECKPOINT": "c1", "GROUP": "h", "CASE_GROUP": "h", "ORIGIN_CHECKPOINT": "c1", "ORIGIN_GROUP": "h",
			"DIR": "c1/h", "NOTE": "first h", "MODE": "h"}, "[]", 30},
		"c2/g": {map[string]string{"CHECKPOINT": "c2", "GROUP": "g", "CASE_GROUP": "g", "ORIGIN_CHECKPOINT": "c2", "ORIGIN_GROUP": "g",
			"DIR": "second/g", "NOTE": "second g", "MODE": "problem"}, "[]", 30},
		"c2/c1_g": {defaults(map[string]string{"CHECKPOINT": "c2", "GROUP": "c1_g", "CASE_GROUP": "g", "ORIGIN_CHECKPOINT": "c1", "ORIGIN_GROUP": "g",
			"DIR": "c1/g", "NOTE": "first g", "MODE": "problem"}), "[--format][%Y-%m-%d][%H:%M:%S]", 5},
		"c2/c1_h": {map[string]string{"CHECKPOINT": "c2", "GROUP": "c1_h", "CASE_GROUP": "h", "ORIGIN_CHECKPOINT": "c1", "ORIGIN_GROUP": "h",
			"DIR": "c1/h", "NOTE": "first h", "MODE": "h"}, "[]", 30},
	}
	err = journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		key := r.Checkpoint + "/" + r.Group
		w, ok := want[key]
		if !ok {
			t.Errorf("unexpected record %s/%s", key, r.ID)
			return nil
		}
		delete(want, key)
		if !r.Passed || r.Case == nil {
			t.Errorf("%s: passed=%v error=%q", key, r.Passed, r.Result.Error)
			return nil
		}
		if !reflect.DeepEqual(r.Case.Env, w.env) {
			t.Errorf("%s: env %v\nwant %v", key, r.Case.Env, w.env)
		}
		if r.Result.Output != w.output || r.Case.TimeoutS != w.timeout {
			t.Errorf("%s: output %q timeout %v, want %q and %v", key, r.Result.Output, r.Case.TimeoutS, w.output, w.timeout)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) > 0 {
		t.Errorf("no records for %v", want)
	}
}
