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
			err := e.groups.Run(ctx, j.Checkpoint, j.Group, j.Epoch, j.Finished, func(rec *result.CaseRecord, retried bool) error {
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
		_ = e.groups.Run(ctx, j.Checkpoint, j.Group, j.Epoch, j.Finished, func(rec *result.CaseRecord, retried bool) error {
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

// onceExecutor runs every job once through Groups, as a worker does.
type onceExecutor struct{ groups *Groups }

func (e *onceExecutor) Execute(ctx context.Context, jobs []*GroupJob, sink Sink) error {
	for _, j := range jobs {
		if err := e.groups.Run(ctx, j.Checkpoint, j.Group, j.Epoch, j.Finished, func(rec *result.CaseRecord, retried bool) error {
			return sink.Record(j, rec, retried)
		}); err != nil {
			sink.GroupError(j, err.Error())
		}
		sink.Done(j)
	}
	return nil
}

// A case retried by a resumed run (--retry-errors) on an executor that
// has no journal gets the attempt number after the journal's, so its new
// record is the one that counts.
func TestExecutorAttemptsFollowTheJournal(t *testing.T) {
	runtest.RequirePython(t)
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	sub := filepath.Join(exampleDir, "submissions", "reference")
	rt := local.New(local.Options{BaseDir: t.TempDir()})
	out := t.TempDir()
	jpath := filepath.Join(out, journal.FileName)
	jw, err := journal.Create(jpath)
	if err != nil {
		t.Fatal(err)
	}
	errored := &result.CaseRecord{Problem: p.Name, Checkpoint: "checkpoint_1", Group: "summary", GroupType: "Core", ID: "empty", Attempt: 1,
		Case: &result.CaseInfo{Arguments: []string{}}, Result: result.Execution{StatusCode: -1, AdapterError: true, Error: "the machine went away"}}
	result.Classification{}.Classify(errored)
	if err := jw.Append(errored); err != nil {
		t.Fatal(err)
	}
	jw.Close()
	finished, err := LoadFinished(jpath)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := NewGroups(context.Background(), Options{Problem: p, Submission: sub, OutDir: t.TempDir(), Runtime: rt, Loader: BuiltinLoader, Plugins: h})
	if err != nil {
		t.Fatal(err)
	}
	defer groups.Close()
	if _, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Runtime: rt, Loader: BuiltinLoader, Plugins: h,
		Checkpoints: []string{"checkpoint_1"}, Resume: finished, RetryErrors: 1, Executor: &onceExecutor{groups: groups}}); err != nil {
		t.Fatal(err)
	}
	again, err := LoadFinished(jpath)
	if err != nil {
		t.Fatal(err)
	}
	key := epochKey(errored.Key(), 0)
	if got := again.attempts(key); got != 2 {
		t.Errorf("attempts of %s: %d, want 2 (the journal's 1, then the retry)", key, got)
	}
	if fc := again.cases[key]; fc.outcome != result.OutcomePassed {
		t.Errorf("%s counts as %s, want the retry's passed", key, fc.outcome)
	}
}
