package batch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
)

// PairRun is how one pair ran.
type PairRun struct {
	// Interrupted: the run stopped before its cases all finished (the
	// batch was interrupted); it is resumed next time.
	Interrupted bool
	// Refused is set when the run refused the pair before any case ran
	// (a bad problem, a bad submission): the batch goes on with the rest.
	Refused string
}

// RunPairFunc runs one pair in its run directory dir: a fresh run, or with
// resume the continuation of the run already there. jobs is the batch's
// --jobs: the pair may run that many groups at once, and the function must
// draw them from one pool of jobs slots shared by every pair (run.Slots),
// so that the batch's groups together never exceed it. An error stops the
// batch.
type RunPairFunc func(ctx context.Context, k PairKey, dir string, resume bool, jobs int) (PairRun, error)

// Options drive Run.
type Options struct {
	// Dir is the batch directory.
	Dir string
	// Jobs bounds concurrency in total: up to Jobs pairs run side by side,
	// and their groups share Jobs slots (see RunPairFunc).
	Jobs    int
	RunPair RunPairFunc
	// Progress, when set, receives a line each ProgressEvery (and when a
	// pair ends): pairs done, running and left, cases finished and cases
	// per second.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Changed is called (one call at a time) after each pair ends, so the
	// caller can rewrite batch.json.
	Changed func()
}

// State is what Run left: pairs refused (by "submission/problem") and
// whether the batch was interrupted.
type State struct {
	Refused     map[string]string
	Interrupted bool
	Ran         int
}

// Done reports whether a pair's run directory holds a finished run: its
// manifest says complete. Such a pair is not run again on resume.
func Done(dir string) bool {
	m, err := manifest.Read(dir)
	return err == nil && m.Status == manifest.StatusComplete
}

// started reports whether a pair's run directory holds results to resume.
func started(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, journal.FileName))
	return err == nil && st.Size() > 0
}

// Run runs every pair of the plan that is not missing and not done.
// Interrupted pairs (a journal, a manifest not complete) are resumed.
func Run(ctx context.Context, plan *Plan, o Options) (*State, error) {
	var todo []PairKey
	all := 0
	for _, k := range plan.Pairs() {
		if k.Missing {
			continue
		}
		all++
		if !Done(filepath.Join(o.Dir, k.RunDir())) {
			todo = append(todo, k)
		}
	}
	st := &State{Refused: map[string]string{}}
	workers := min(max(o.Jobs, 1), len(todo))
	if workers == 0 {
		return st, nil
	}
	jobs := max(o.Jobs, 1)
	meter := &caseMeter{dir: o.Dir, start: time.Now(), total: all, done: all - len(todo), running: map[string]bool{}}
	meter.baseline(todo)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	queue := make(chan PairKey)
	stopTicker := meter.tick(o.Progress, o.ProgressEvery)
	defer stopTicker()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range queue {
				dir := filepath.Join(o.Dir, k.RunDir())
				meter.begin(k)
				res, err := o.RunPair(ctx, k, dir, started(dir), jobs)
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = fmt.Errorf("pair %s/%s: %w", k.Submission, k.Problem, err)
					}
				case res.Refused != "":
					st.Refused[k.Submission+"/"+k.Problem] = res.Refused
				case res.Interrupted:
					st.Interrupted = true
				}
				st.Ran++
				if o.Changed != nil {
					o.Changed()
				}
				mu.Unlock()
				meter.end(k, err == nil && !res.Interrupted, o.Progress)
			}
		}()
	}
feed:
	for _, k := range todo {
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		select {
		case queue <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if ctx.Err() != nil {
		st.Interrupted = true
	}
	return st, firstErr
}

// caseMeter counts pairs and cases for the progress line. Cases are
// counted as lines appended to the running pairs' journals (one record a
// line), read incrementally, so the count costs what the runs write.
type caseMeter struct {
	mu      sync.Mutex
	dir     string
	start   time.Time
	total   int
	done    int
	cases   int64
	offsets map[string]int64
	running map[string]bool
}

func (m *caseMeter) baseline(todo []PairKey) {
	m.offsets = map[string]int64{}
	for _, k := range todo {
		if st, err := os.Stat(filepath.Join(m.dir, k.RunDir(), journal.FileName)); err == nil {
			m.offsets[k.RunDir()] = st.Size() // cases before this batch started
		}
	}
}

func (m *caseMeter) begin(k PairKey) {
	m.mu.Lock()
	m.running[k.RunDir()] = true
	m.mu.Unlock()
}

func (m *caseMeter) end(k PairKey, finished bool, w io.Writer) {
	m.mu.Lock()
	m.count(k.RunDir())
	delete(m.running, k.RunDir())
	if finished {
		m.done++
	}
	m.mu.Unlock()
	if w != nil {
		m.print(w, fmt.Sprintf(" (%s/%s ended)", k.Submission, k.Problem))
	}
}

// count adds the lines appended to a pair's journal since last counted.
// Called with mu held.
func (m *caseMeter) count(rel string) {
	f, err := os.Open(filepath.Join(m.dir, rel, journal.FileName))
	if err != nil {
		return
	}
	defer f.Close()
	off := m.offsets[rel]
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		// Only whole lines count: a line being written is counted once
		// its newline is there.
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			m.cases += int64(bytes.Count(buf[:i+1], []byte{'\n'}))
			off += int64(i + 1)
			if i+1 < n {
				if _, err := f.Seek(off, io.SeekStart); err != nil {
					break
				}
			}
		} else if n > 0 {
			break
		}
		if err != nil {
			break
		}
	}
	m.offsets[rel] = off
}

func (m *caseMeter) print(w io.Writer, suffix string) {
	m.mu.Lock()
	for rel := range m.running {
		m.count(rel)
	}
	el := time.Since(m.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(m.cases) / el
	}
	line := fmt.Sprintf("batch: %d/%d pairs done, %d running, %d cases (%.1f/s)%s\n", m.done, m.total, len(m.running), m.cases, rate, suffix)
	m.mu.Unlock()
	fmt.Fprint(w, line)
}

// tick prints the progress line every d until the returned stop is called.
func (m *caseMeter) tick(w io.Writer, d time.Duration) func() {
	if w == nil || d <= 0 {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.print(w, "")
			case <-stop:
				return
			}
		}
	}()
	return func() { close(stop); <-done }
}
