package run

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// twiceExecutor delivers every job's records twice, as a queue does when
// a worker is thought dead and its group runs again, and abandons the
// last job after its first case, as a group whose deliveries ran out.
type twiceExecutor struct{ groups *Groups }

func (e *twiceExecutor) Execute(ctx context.Context, jobs []*GroupJob, sink Sink) error {
	for i, j := range jobs {
		last := i == len(jobs)-1
		for range 2 {
			n := 0
			err := e.groups.Run(ctx, j.Checkpoint, j.Group, j.Epoch, func(rec *result.CaseRecord, retried bool) error {
				if last && n > 0 {
					return nil
				}
				n++
				return sink.Record(j, rec, retried)
			})
			if err != nil {
				sink.GroupError(j, err.Error())
			}
		}
		if last {
			if err := sink.Abandon(ctx, j, "the group's deliveries ran out"); err != nil {
				return err
			}
		}
		sink.Done(j)
		// Done: a late record of the job is dropped.
		_ = e.groups.Run(ctx, j.Checkpoint, j.Group, j.Epoch, func(rec *result.CaseRecord, retried bool) error {
			return sink.Record(j, rec, retried)
		})
	}
	return nil
}

func TestExecutorDuplicatesAndAbandonedGroups(t *testing.T) {
	runtest.RequirePython(t)
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	sub := filepath.Join(exampleDir, "submissions", "reference")
	rt := local.New(local.Options{BaseDir: t.TempDir()})
	groups, err := NewGroups(context.Background(), Options{Problem: p, Submission: sub, OutDir: t.TempDir(), Runtime: rt, Loader: BuiltinLoader, Plugins: h})
	if err != nil {
		t.Fatal(err)
	}
	defer groups.Close()
	out := t.TempDir()
	_, err = Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Runtime: rt, Loader: BuiltinLoader, Plugins: h,
		Executor: &twiceExecutor{groups: groups}})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	outcome := map[string]result.Outcome{}
	var order []string
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		count[r.Key()]++
		outcome[r.Key()] = result.OutcomeOf(r)
		order = append(order, r.Key())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, k := range expectedOrder {
		if count[k] != 1 {
			t.Errorf("%s: %d records, want exactly 1", k, count[k])
		}
	}
	if len(order) != len(expectedOrder) {
		t.Errorf("journal holds %d records, want %d: %v", len(order), len(expectedOrder), order)
	}
	// The last group (checkpoint_2/checkpoint_1_summary) ran its first
	// case only: the others are errors of the harness, not failures.
	for _, k := range expectedOrder[len(expectedOrder)-2:] {
		if outcome[k] != result.OutcomeError {
			t.Errorf("%s: outcome %s, want %s (abandoned)", k, outcome[k], result.OutcomeError)
		}
	}
	if k := expectedOrder[len(expectedOrder)-3]; outcome[k] != result.OutcomePassed {
		t.Errorf("%s: outcome %s, want passed (it ran)", k, outcome[k])
	}
}
