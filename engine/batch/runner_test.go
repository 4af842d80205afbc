package batch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wasmeval/wasmeval/engine/manifest"
)

func testPlan(subs, probs int) *Plan {
	p := &Plan{}
	for j := range probs {
		p.Problems = append(p.Problems, Problem{Name: fmt.Sprintf("p%d", j)})
	}
	for i := range subs {
		s := Submission{Name: fmt.Sprintf("s%d", i), Dirs: map[string]string{}}
		for j := range probs {
			if !(i == 0 && j == 0) { // s0 is missing p0
				s.Dirs[fmt.Sprintf("p%d", j)] = "/nowhere"
			}
		}
		p.Submissions = append(p.Submissions, s)
	}
	return p
}

// Run keeps the pairs running at once within --jobs and gives each the
// whole --jobs (their groups share one pool of slots: the CLI's test
// TestBatchJobsArePooled counts them), skips missing and finished pairs,
// resumes pairs with a journal, and records refusals.
func TestRunSchedulesPairs(t *testing.T) {
	dir := t.TempDir()
	plan := testPlan(3, 3) // 9 pairs, 1 missing
	// s1/p1 finished before; s2/p2 was interrupted with results.
	done := filepath.Join(dir, PairKey{Submission: "s1", Problem: "p1"}.RunDir())
	os.MkdirAll(done, 0o755)
	if err := manifest.Write(done, &manifest.Manifest{Schema: manifest.SchemaVersion, Status: manifest.StatusComplete}); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(dir, PairKey{Submission: "s2", Problem: "p2"}.RunDir())
	os.MkdirAll(half, 0o755)
	os.WriteFile(filepath.Join(half, "results.jsonl"), []byte("{}\n"), 0o644)

	var running, peak, changed atomic.Int32
	var mu sync.Mutex
	ran := map[string]bool{}
	resumed := map[string]bool{}
	var progress bytes.Buffer
	var pmu sync.Mutex
	st, err := Run(context.Background(), plan, Options{Dir: dir, Jobs: 4,
		Progress: writerFunc(func(b []byte) { pmu.Lock(); progress.Write(b); pmu.Unlock() }),
		Changed:  func() { changed.Add(1) },
		RunPair: func(ctx context.Context, k PairKey, rd string, resume bool, jobs int) (PairRun, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if jobs != 4 {
				t.Errorf("pair %s/%s given --jobs %d, want the batch's 4 (slots are pooled)", k.Submission, k.Problem, jobs)
			}
			mu.Lock()
			ran[k.Submission+"/"+k.Problem] = true
			resumed[k.Submission+"/"+k.Problem] = resume
			mu.Unlock()
			if k.Submission == "s0" && k.Problem == "p1" {
				return PairRun{Refused: "bad submission"}, nil
			}
			return PairRun{}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if peak.Load() > 4 {
		t.Errorf("%d pairs ran at once, over --jobs 4", peak.Load())
	}
	if len(ran) != 7 || ran["s0/p0"] || ran["s1/p1"] {
		t.Errorf("ran %v; want the 7 pairs neither missing nor finished", ran)
	}
	if !resumed["s2/p2"] || resumed["s0/p2"] {
		t.Errorf("resume flags %v; want only s2/p2 resumed", resumed)
	}
	if st.Refused["s0/p1"] != "bad submission" || st.Interrupted || st.Ran != 7 || changed.Load() != 7 {
		t.Errorf("state %+v, %d changes", st, changed.Load())
	}
	if !strings.Contains(progress.String(), "8/8 pairs done") {
		t.Errorf("progress never says every pair is done:\n%s", progress.String())
	}
}

// A cancelled batch starts no more pairs and says it was interrupted.
func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int32
	st, err := Run(ctx, testPlan(4, 4), Options{Dir: t.TempDir(), Jobs: 1,
		RunPair: func(ctx context.Context, k PairKey, rd string, resume bool, jobs int) (PairRun, error) {
			if n.Add(1) == 2 {
				cancel()
				return PairRun{Interrupted: true}, nil
			}
			return PairRun{}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Interrupted || n.Load() > 3 {
		t.Errorf("interrupted %v after %d pairs; want interrupted, no pair started after the cancel but the one in hand", st.Interrupted, n.Load())
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }
