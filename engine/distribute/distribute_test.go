package distribute

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
)

const exampleDir = "../../examples/inventory"

// syncBuffer is a log several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if testing.Verbose() {
		os.Stderr.Write(p)
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func embedded(t *testing.T) *Embedded {
	t.Helper()
	e, err := StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

// connect connects to the server at url as name, until the test ends.
func connect(ctx context.Context, t *testing.T, url, name string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, js, err := Connect(ctx, url, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, js
}

// startWorker runs a worker of version in this process until the test
// ends; its groups run on the local runtime through run.Groups.
func startWorker(t *testing.T, url, name, version string, h *host.Host, log *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	nc, js, err := Connect(ctx, url, name)
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{Conn: nc, JS: js, Name: name, Slots: 2, Capabilities: []Capability{HostCapability("local")},
		Version: version, ABI: 1, CacheDir: t.TempDir(), Log: log,
		Prepare: func(ctx context.Context, job *Job, a *Fetched) (GroupRunner, error) {
			p, err := run.LoadProblem(a.ProblemDir)
			if err != nil {
				return nil, err
			}
			return run.NewGroups(ctx, run.Options{Problem: p, Submission: a.SubmissionDir, OutDir: t.TempDir(),
				Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: run.BuiltinLoader, Plugins: h, Command: job.Settings.Command})
		}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Serve(ctx); err != nil {
			t.Errorf("worker %s: %v", name, err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		nc.Close()
	})
}

// distributedRun runs the example through the queue at url and returns
// the journal's records by case key, counted.
func distributedRun(t *testing.T, url string, log *syncBuffer) (map[string]int, map[string]result.Outcome, *Coordinator) {
	t.Helper()
	p, err := run.LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	nc, js, err := Connect(ctx, url, "coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub := filepath.Join(exampleDir, "submissions", "reference")
	coord := &Coordinator{Conn: nc, JS: js, RunID: "run-" + strings.ReplaceAll(t.Name(), "/", "-"), Version: "v-test", ABI: 1,
		ProblemDir: exampleDir, Submission: sub, Needs: HostCapability("local"), Log: log}
	count := map[string]int{}
	outcome := map[string]result.Outcome{}
	runRead(ctx, t, p, sub, h, coord, func(r *result.CaseRecord) {
		count[r.Key()]++
		outcome[r.Key()] = result.OutcomeOf(r)
	})
	return count, outcome, coord
}

// runRead runs p against sub through executor (nil: on this machine),
// fails the test if the run could not finish, and hands each record of
// its journal to each, as the journal reads them back.
func runRead(ctx context.Context, t *testing.T, p *problem.Problem, sub string, h *host.Host, executor run.Executor, each func(*result.CaseRecord)) {
	t.Helper()
	out := t.TempDir()
	res, err := run.Run(ctx, run.Options{Problem: p, Submission: sub, OutDir: out, Loader: run.BuiltinLoader, Plugins: h,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Executor: executor})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted {
		t.Fatalf("run interrupted: %v", res.ExecutorError)
	}
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		each(r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestDistributedRunRecordsEveryCaseOnce(t *testing.T) {
	runtest.RequirePython(t)
	e := embedded(t)
	log := &syncBuffer{}
	h := runtest.Host(t, host.Options{})
	startWorker(t, e.URL(), "w1", "v-test", h, log)
	startWorker(t, e.URL(), "w2", "v-test", h, log)
	count, outcome, coord := distributedRun(t, e.URL(), log)
	if len(count) != 20 {
		t.Errorf("journal holds %d cases, want the example's 20: %v\nlog:\n%s", len(count), count, log)
	}
	for k, n := range count {
		if n != 1 {
			t.Errorf("%s: %d records, want 1", k, n)
		}
		if outcome[k] != result.OutcomePassed {
			t.Errorf("%s: %s, want passed", k, outcome[k])
		}
	}
	workers := coord.Workers()
	if len(workers) != 7 {
		t.Errorf("workers known for %d groups, want 7: %v", len(workers), workers)
	}
}

func TestWorkerOfAnotherVersionRefuses(t *testing.T) {
	runtest.RequirePython(t)
	e := embedded(t)
	log := &syncBuffer{}
	h := runtest.Host(t, host.Options{})
	startWorker(t, e.URL(), "old", "v-old", h, log)
	count, outcome, _ := distributedRun(t, e.URL(), log)
	if len(count) != 20 {
		t.Errorf("journal holds %d cases, want the example's 20", len(count))
	}
	for k, o := range outcome {
		if o != result.OutcomeError {
			t.Errorf("%s: %s, want error (refused, not run)", k, o)
		}
	}
	if !strings.Contains(log.String(), "worker old refused group") || !strings.Contains(log.String(), "this worker runs wasmeval v-old (plugin ABI 1), the run's coordinator wasmeval v-test") {
		t.Errorf("the refusal is not reported with its reason:\n%s", log)
	}
}
