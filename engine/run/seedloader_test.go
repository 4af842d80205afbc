package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// The run's seed reaches a loader plugin (abi.LoadInput.Seed, decoded by
// the Go SDK): the cases it generates differ by seed, are the same for one
// seed, and a run without a seed sends none.
func TestLoaderPluginGetsSeed(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "seedloader.wasm")
	if err := pluginbuild.Build("./testdata/seedloader", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("name: seeded\ncommand: sh echo.sh\ntimeout: 300\nloader: {type: plugin, path: seedloader.wasm, sha256: %s}\n"+
		"checkpoints:\n  c1:\n    groups:\n      core: {type: Core}\n", digest)
	if err := os.Mkdir(filepath.Join(dir, "c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := t.TempDir()
	if err := os.WriteFile(filepath.Join(sub, "echo.sh"), []byte(`printf '%s' "$1"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{Timeout: 5 * time.Minute})
	run := func(seed *int64) (seen string, args []string) {
		p, err := LoadProblem(dir)
		if err != nil {
			t.Fatal(err)
		}
		p.Seed = seed
		out := t.TempDir()
		if _, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out,
			Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Plugins: h}); err != nil {
			t.Fatal(err)
		}
		err = journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
			if !r.Passed || r.Case == nil {
				t.Errorf("%s: passed=%v error=%q", r.ID, r.Passed, r.Result.Error)
				return nil
			}
			seen = r.Case.Env["SEED"]
			args = append(args, r.Case.Arguments...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return seen, args
	}
	s7, s8 := int64(7), int64(8)
	seen7, a7 := run(&s7)
	seen7b, a7b := run(&s7)
	seen8, a8 := run(&s8)
	seenNone, _ := run(nil)
	if seen7 != "7" || seen7b != "7" || seen8 != "8" || seenNone != "none" {
		t.Errorf("the loader saw seeds %q %q %q %q, want 7 7 8 none", seen7, seen7b, seen8, seenNone)
	}
	if fmt.Sprint(a7) != fmt.Sprint(a7b) || fmt.Sprint(a7) == fmt.Sprint(a8) || len(a7) != 3 {
		t.Errorf("cases by seed: 7 %v, 7 again %v, 8 %v; want the same for one seed, others for another", a7, a7b, a8)
	}
}
