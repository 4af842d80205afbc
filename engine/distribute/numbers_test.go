package distribute

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// A record crosses from a worker to the coordinator as JSON. Read back
// with encoding/json's defaults, every number in its verdicts became a
// float64: 187.0 was journaled as 187 and an id beyond 2^53 as its
// nearest float. The coordinator's journal must hold what a run on one
// machine holds, byte for byte in every verdict.
func TestDistributedRecordsKeepNumbersAsWritten(t *testing.T) {
	prob, sub := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{
		filepath.Join(prob, "config.yaml"): "name: numbers\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		filepath.Join(prob, "c1", "g.json"): `{
  "same":  {"case": {"arguments": ["same"]},  "expected": {"output": {"id": 12345678901234567890123, "total": 187.0}}},
  "other": {"case": {"arguments": ["other"]}, "expected": {"output": {"id": 12345678901234567890123, "total": 187.0, "tags": [1E+2]}}}
}`,
		filepath.Join(sub, "main.sh"): `case "$1" in
same) echo '{"total": 187.0, "id": 12345678901234567890123}' ;;
other) echo '{"total": 187.00, "id": 12345678901234567890124, "tags": [1e2]}' ;;
esac
`,
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := run.LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	// verdicts are the run's verdicts by case id, and where each case
	// came from.
	verdicts := func(executor run.Executor) (map[string]string, map[string]string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		got, sources := map[string]string{}, map[string]string{}
		runRead(ctx, t, p, sub, h, executor, func(r *result.CaseRecord) {
			data, err := json.Marshal(r.Attributes)
			if err != nil {
				t.Fatal(err)
			}
			got[r.ID] = string(data)
			if r.Case != nil {
				sources[r.ID] = r.Case.Source
			}
		})
		return got, sources
	}
	alone, aloneSources := verdicts(nil)

	e := embedded(t)
	log := &syncBuffer{}
	startWorker(t, e.URL(), "w1", "v-test", h, log)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	nc, js := connect(ctx, t, e.URL(), "coordinator")
	coord := &Coordinator{Conn: nc, JS: js, RunID: "run-numbers", Version: "v-test", ABI: 1,
		ProblemDir: prob, Submission: sub, Needs: HostCapability("local"), Log: log}
	spread, spreadSources := verdicts(coord)

	if len(alone) != 2 || len(spread) != 2 {
		t.Fatalf("records: %d on one machine, %d distributed, want 2 each\nlog:\n%s", len(alone), len(spread), log)
	}
	for id, want := range alone {
		if spread[id] != want {
			t.Errorf("%s: distributed verdicts\n%s\nwant what the run on one machine recorded\n%s", id, spread[id], want)
		}
	}
	// The file a case came from is named as on one machine, not as the
	// worker's copy of the problem, which is gone once the worker ends.
	for id, want := range aloneSources {
		if want != filepath.Join(prob, "c1", "g.json") || spreadSources[id] != want {
			t.Errorf("%s: case.source %q distributed, %q on one machine; want %s", id, spreadSources[id], want, filepath.Join(prob, "c1", "g.json"))
		}
	}
	if want := `"expected":12345678901234567890123,"actual":12345678901234567890124`; !json.Valid([]byte(spread["other"])) || !strings.Contains(spread["other"], want) {
		t.Errorf("other: %s\nwant the diff to hold both ids as written (%s)", spread["other"], want)
	}
}
