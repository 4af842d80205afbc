package run

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// runExampleOn evaluates the example problem on a runtime and returns
// its records by case key.
func runExampleOn(t *testing.T, rt runtime.Runtime, submission string) map[string]*result.CaseRecord {
	t.Helper()
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Run(context.Background(), Options{
		Problem: p, Submission: filepath.Join(exampleDir, "submissions", submission),
		OutDir: out, Jobs: 2, Runtime: rt, Loader: BuiltinLoader, Plugins: runtest.Host(t, host.Options{}),
	}); err != nil {
		t.Fatal(err)
	}
	recs := map[string]*result.CaseRecord{}
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs[r.Key()] = r
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

// The same submission gives the same per-case outcomes on the host and in
// containers: every adapter and check sees the same results.
func TestExampleSameOutcomesLocalAndDocker(t *testing.T) {
	runtest.RequirePython(t)
	spec := dockertest.Spec(t, dockertest.Image(t, "python"))
	drt, err := docker.New(context.Background(), docker.Options{Spec: spec, BaseDir: t.TempDir(), Client: dockertest.Client(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer drt.Close()
	for _, sub := range []string{"reference", "broken"} {
		t.Run(sub, func(t *testing.T) {
			want := runExampleOn(t, local.New(local.Options{BaseDir: t.TempDir()}), sub)
			got := runExampleOn(t, drt, sub)
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("local ran %d cases, docker %d", len(want), len(got))
			}
			failed, compared := 0, 0
			for key, w := range want {
				g, ok := got[key]
				if !ok {
					t.Errorf("%s: missing on docker", key)
					continue
				}
				// A case that hit its timeout on either side says the
				// machine was overloaded, not how the runtimes differ.
				if w.Result.TimedOut || g.Result.TimedOut {
					t.Logf("%s: timed out (local %v, docker %v); not compared", key, w.Result.TimedOut, g.Result.TimedOut)
					continue
				}
				compared++
				if g.Passed != w.Passed || g.Score != w.Score || g.Result.StatusCode != w.Result.StatusCode || g.Result.AdapterError {
					t.Errorf("%s: local passed=%v score=%v status=%d; docker passed=%v score=%v status=%d error=%q stderr=%q",
						key, w.Passed, w.Score, w.Result.StatusCode, g.Passed, g.Score, g.Result.StatusCode, g.Result.Error, g.Result.Stderr)
				}
				if !w.Passed {
					failed++
				}
			}
			if compared*4 < len(want)*3 {
				t.Fatalf("only %d of %d cases finished within their timeouts on both runtimes: the machine is too loaded to compare", compared, len(want))
			}
			if (sub == "broken") != (failed > 0) {
				t.Errorf("%s: %d failed cases", sub, failed)
			}
		})
	}
}
