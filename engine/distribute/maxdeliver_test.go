package distribute

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// A group every worker takes and never finishes (they die, or hang
// without heartbeats) is given up after MaxDeliver deliveries: its cases
// are recorded as errors of the harness, with why, and the run ends.
func TestGroupsThatExhaustDeliveriesAreHarnessErrors(t *testing.T) {
	e := embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	nc, js := connect(ctx, t, e.URL(), "coordinator")
	cfg := Config{AckWait: time.Second, MaxDeliver: 2}
	// A worker that takes every job and never answers.
	if _, err := ensureStreams(ctx, js, cfg, nil); err != nil {
		t.Fatal(err)
	}
	cons, err := ensureWorkConsumer(ctx, js, HostCapability("local"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	silentCtx, stopSilent := context.WithCancel(ctx)
	defer stopSilent()
	go func() {
		for silentCtx.Err() == nil {
			fctx, cancel := context.WithTimeout(silentCtx, time.Second)
			batch, err := cons.Fetch(10, jetstream.FetchContext(fctx))
			if err == nil {
				for range batch.Messages() {
				}
			}
			cancel()
		}
	}()

	p, err := run.LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	sub := filepath.Join(exampleDir, "submissions", "reference")
	log := &syncBuffer{}
	coord := &Coordinator{Conn: nc, JS: js, Config: cfg, RunID: "run-exhausted", Version: "v-test", ABI: 1,
		ProblemDir: exampleDir, Submission: sub, Needs: HostCapability("local"), Log: log}
	out := t.TempDir()
	res, err := run.Run(ctx, run.Options{Problem: p, Submission: sub, OutDir: out, Loader: run.BuiltinLoader, Plugins: h,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Executor: coord})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted {
		t.Fatalf("run interrupted: %v", res.ExecutorError)
	}
	n := 0
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		n++
		if result.OutcomeOf(r) != result.OutcomeError || !strings.Contains(r.Result.Error, "not run: its work message was delivered 2 times") {
			t.Errorf("%s: outcome %s, error %q; want a harness error saying the deliveries ran out", r.Key(), result.OutcomeOf(r), r.Result.Error)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 20 {
		t.Errorf("journal holds %d records, want the example's 20", n)
	}
	if !strings.Contains(log.String(), "given up") {
		t.Errorf("the coordinator did not say it gave groups up:\n%s", log)
	}
}
