package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A loader written with the Go SDK that reads its cases from the group's
// dir loads, for a regression group, the cases of the checkpoint they come
// from: c2's regression of c1's core re-runs c1's cases, not c2's core.
func TestLoaderPluginSDKRegressionOrigin(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "originloader.wasm")
	if err := pluginbuild.Build("./testdata/originloader", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"config.yaml": fmt.Sprintf(`name: originloader
command: sh args.sh
timeout: 300
loader: {type: plugin, path: originloader.wasm, sha256: %s}
checkpoints:
  c1:
    groups:
      core: {type: Core}
  c2:
    path: second
    groups:
      core: {type: Core}
    regressions:
      - checkpoint: c1
`, digest),
		"c1/core/cases.jsonl":     `{"id":"add","arguments":["c1","add"]}` + "\n" + `{"id":"list","arguments":["c1","list"]}` + "\n",
		"second/core/cases.jsonl": `{"id":"add","arguments":["c2","add"]}` + "\n" + `{"id":"remove","arguments":["c2","remove"]}` + "\n",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := t.TempDir()
	if err := os.WriteFile(filepath.Join(sub, "args.sh"), []byte(`printf '[%s]' "$@"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Generous limits: a busy machine must not fail the test.
	h := runtest.Host(t, host.Options{Timeout: 5 * time.Minute})
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

	// Per group: each case's output (its arguments, from the cases.jsonl it
	// was loaded from) and the origin the loader was told.
	type seen struct {
		outputs map[string]string
		origin  string
	}
	want := map[string]seen{
		"c1/core":    {map[string]string{"add": "[c1][add]", "list": "[c1][list]"}, "c1/core"},
		"c2/core":    {map[string]string{"add": "[c2][add]", "remove": "[c2][remove]"}, "c2/core"},
		"c2/c1_core": {map[string]string{"add": "[c1][add]", "list": "[c1][list]"}, "c1/core"},
	}
	got := map[string]seen{}
	err = journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		key := r.Checkpoint + "/" + r.Group
		if !r.Passed || r.Case == nil {
			t.Errorf("%s/%s: passed=%v error=%q", key, r.ID, r.Passed, r.Result.Error)
			return nil
		}
		g, ok := got[key]
		if !ok {
			g = seen{outputs: map[string]string{}, origin: r.Case.Env["ORIGIN"]}
		}
		if o := r.Case.Env["ORIGIN"]; o != g.origin {
			t.Errorf("%s/%s: origin %q, another case of the group had %q", key, r.ID, o, g.origin)
		}
		g.outputs[r.ID] = r.Result.Output
		got[key] = g
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
