// Package rundir opens a run directory — manifest, results journal and
// checkpoint summaries — and writes the files derived from it (Parquet,
// HTML). Everything derived is rebuilt from the journal, so `wasmeval
// report DIR` regenerates what `run` wrote, and a crashed run's results can
// still be reported.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/parquet"
	"github.com/wasmeval/wasmeval/engine/result"
)

// Run is an opened run directory.
type Run struct {
	Dir string
	// Manifest is nil for a directory written before manifests existed.
	Manifest  *manifest.Manifest
	Info      report.RunInfo
	Summaries []*report.CheckpointSummary
	// Writer says whether a process was writing the run when it was
	// opened (it holds the run directory's lock), and its pid. A report
	// of such a run covers the cases finished so far.
	Writer Writer
}

// Writer is what is known of the process writing a run directory.
type Writer struct {
	Active bool
	PID    int // 0 when it cannot be told
	// Known is false where the system cannot tell whether a writer is
	// active (outside Linux).
	Known bool
}

// Open reads the run in dir. The pass and error policies are the run's
// own (from its manifest) unless policy or errs is set.
func Open(dir string, policy result.Policy, errs result.ErrorPolicy) (*Run, error) {
	if _, err := os.Stat(filepath.Join(dir, journal.FileName)); err != nil {
		return nil, fmt.Errorf("%s is not a run directory (no %s): %w", dir, journal.FileName, err)
	}
	r := &Run{Dir: dir, Info: report.RunInfo{ManifestLink: manifest.FileName}}
	m, err := manifest.Read(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Info.ManifestLink = ""
	case err != nil:
		return nil, err
	default:
		r.Manifest = m
		r.Info.RunID, r.Info.Problem, r.Info.Status = m.RunID, m.Problem.Name, m.Status
	}
	var order []string
	if m != nil {
		order = m.Flags.Checkpoints
		if len(order) == 0 {
			order = m.Problem.Checkpoints
		}
		if policy == "" {
			policy = result.Policy(m.Flags.PassPolicy)
		}
		if errs == "" {
			errs = result.ErrorPolicy(m.Flags.ErrorPolicy)
		}
	}
	if policy == "" {
		policy = result.DefaultPolicy
	}
	pid, active, known := journal.Holder(dir)
	r.Writer = Writer{Active: active, PID: pid, Known: known}
	j := report.Judging{Policy: policy, Errors: errs}
	if m != nil {
		j.Epochs, j.Reducer = m.Flags.Epochs, result.Reducer(m.Flags.Reducer)
	}
	sums, err := report.FromRun(dir, order, j, r.Info.RunID)
	var ce *journal.CorruptError
	if errors.As(err, &ce) {
		// Say every corrupt line at once, not only the first.
		if c, cerr := journal.Check(ce.Path); cerr == nil && c != nil {
			return nil, c
		}
	}
	if err != nil {
		return nil, err
	}
	// A run that did not end normally (interrupted, failed, or crashed
	// while still "running") cannot have passed.
	if m != nil && m.Status != manifest.StatusComplete {
		for _, s := range sums {
			s.Complete, s.Passed = false, false
			if s.Verdict == result.VerdictPassed {
				s.Verdict = result.VerdictIncomplete
			}
		}
	}
	r.Summaries = sums
	for _, s := range sums {
		r.Info.DuplicatesIgnored += s.DuplicatesIgnored
	}
	if r.Info.Problem == "" && len(sums) > 0 {
		r.Info.Problem = sums[0].ProblemName
	}
	return r, nil
}

// Submission is the submission path recorded in the manifest.
func (r *Run) Submission() string {
	if r.Manifest == nil {
		return ""
	}
	return r.Manifest.Submission.Path
}

// HTMLOptions are the HTML report's settings for this run.
func (r *Run) HTMLOptions() html.Options {
	o := html.Options{Run: r.Info}
	if r.Manifest != nil {
		o.Engine = r.Manifest.Engine.Version
		if c := r.Manifest.Engine.Commit; len(c) >= 12 {
			o.Engine += " (" + c[:12] + ")"
		}
	}
	return o
}

// WriteFiles (re)writes results.parquet and report.html in the run
// directory from its journal.
func (r *Run) WriteFiles() error {
	if _, err := parquet.FromJournal(filepath.Join(r.Dir, journal.FileName), filepath.Join(r.Dir, parquet.FileName),
		r.Info.RunID, r.Submission()); err != nil {
		return err
	}
	return html.WriteFile(r.Dir, r.HTMLOptions(), r.Summaries)
}

// Salvage sets the corrupt lines of the run's journal aside
// (journal.Salvage: into journal.SetAsideName, byte for byte) and returns
// them; nil when the journal is sound. It takes the run directory's lock,
// so it is refused while a run writes the directory. A run that had
// completed is marked interrupted in its manifest: it now lacks the cases
// of those lines, so it must not pass, and `run --resume` runs them again.
func Salvage(dir string) (*journal.Corruption, error) {
	if _, err := os.Stat(filepath.Join(dir, journal.FileName)); err != nil {
		return nil, fmt.Errorf("%s is not a run directory (no %s): %w", dir, journal.FileName, err)
	}
	lock, err := journal.LockDir(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	c, err := journal.Salvage(filepath.Join(dir, journal.FileName))
	if err != nil || c == nil {
		return nil, err
	}
	m, err := manifest.Read(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if m.Status == manifest.StatusComplete {
		m.Status = manifest.StatusInterrupted
		if err := manifest.Write(dir, m); err != nil {
			return c, err
		}
	}
	return c, nil
}
