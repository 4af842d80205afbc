// Package batch evaluates many submissions against many problems in one
// batch directory: it plans the pairs (submission × problem), runs each as
// an ordinary run directory BATCH/runs/<submission>/<problem>/ through a
// caller-supplied function (the CLI's `run`, so resume, report and compare
// work on each pair unchanged), resumes an interrupted batch, and derives
// from the pairs' run directories a leaderboard (batch.json, a terminal
// table, an HTML page) and one Parquet table of every case of every pair.
package batch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// Problem is one problem of a batch: Name keys it (a path component of the
// pairs' run directories and the problem column of results.parquet), Path
// is its directory.
type Problem struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Submission is one submission of a batch: Name keys it; Dirs maps a
// problem's name to the submission's directory for it (absent: missing).
type Submission struct {
	Name string            `json:"name"`
	Dirs map[string]string `json:"dirs"`
}

// Plan is what a batch evaluates.
type Plan struct {
	Problems    []Problem    `json:"problems"`
	Submissions []Submission `json:"submissions"`
}

// Pairs lists every submission × problem, submissions then problems in
// name order; a pair whose submission has no directory for the problem is
// Missing.
func (p *Plan) Pairs() []PairKey {
	var out []PairKey
	for _, s := range p.Submissions {
		for _, pr := range p.Problems {
			dir, ok := s.Dirs[pr.Name]
			out = append(out, PairKey{Submission: s.Name, Problem: pr.Name, SubmissionDir: dir, ProblemDir: pr.Path, Missing: !ok})
		}
	}
	return out
}

// PairKey names one pair and where its inputs are.
type PairKey struct {
	Submission    string
	Problem       string
	SubmissionDir string
	ProblemDir    string
	Missing       bool
}

// RunDir is the pair's run directory relative to the batch directory.
func (k PairKey) RunDir() string {
	return filepath.Join(RunsDir, k.Submission, k.Problem)
}

// RunsDir holds the pairs' run directories inside a batch directory.
const RunsDir = "runs"

// ExpandProblems turns the PROBLEM arguments — directories, or glob
// patterns matching directories — into the batch's problems, named by
// their directory's base name. A pattern that matches nothing, a path that
// is no directory, a name that is not a safe path component and two
// problems of one name are errors.
func ExpandProblems(args []string) ([]Problem, error) {
	var out []Problem
	seen := map[string]string{}
	for _, arg := range args {
		paths := []string{arg}
		if strings.ContainsAny(arg, "*?[") {
			m, err := filepath.Glob(arg)
			if err != nil {
				return nil, fmt.Errorf("problem pattern %q: %w", arg, err)
			}
			paths = nil
			for _, p := range m {
				// A glob over a folder of problems also matches its
				// READMEs: only directories holding a config are problems.
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					paths = append(paths, p)
				}
			}
			if len(paths) == 0 {
				return nil, fmt.Errorf("problem pattern %q matches no directory", arg)
			}
		}
		for _, p := range paths {
			st, err := os.Stat(p)
			if err != nil {
				return nil, fmt.Errorf("problem %s: %w", p, err)
			}
			if !st.IsDir() {
				return nil, fmt.Errorf("problem %s: not a directory (a problem is a directory with config.yaml)", p)
			}
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			name := filepath.Base(abs)
			if err := problem.CheckName(name); err != nil {
				return nil, fmt.Errorf("problem %s: %w", p, err)
			}
			if prev, ok := seen[name]; ok {
				if prev == abs {
					continue
				}
				return nil, fmt.Errorf("problems %s and %s have the same name %q: a batch keys problems by directory name", prev, abs, name)
			}
			seen[name] = abs
			out = append(out, Problem{Name: name, Path: abs})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no problems given")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ScanSubmissions reads the layout SUBMISSIONS/<name>/<problem>/: every
// directory under root is a submission, and its sub-directory named like a
// problem is what is evaluated against it. A submission without one for a
// problem is missing there.
func ScanSubmissions(root string, problems []Problem) ([]Submission, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("submissions: %w", err)
	}
	var out []Submission
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !isDir(filepath.Join(abs, e.Name())) {
			continue
		}
		if err := problem.CheckName(e.Name()); err != nil {
			return nil, fmt.Errorf("submission %s: %w", filepath.Join(root, e.Name()), err)
		}
		s := Submission{Name: e.Name(), Dirs: map[string]string{}}
		for _, p := range problems {
			d := filepath.Join(abs, e.Name(), p.Name)
			if isDir(d) {
				s.Dirs[p.Name] = d
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("submissions: %s holds no submission directory (expected %s/<name>/<problem>/)", root, root)
	}
	return out, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// CheckPlan refuses a plan whose names are not safe path components or
// repeat, or (with dirs) whose submission directories are not directories.
func CheckPlan(p *Plan, dirs bool) error {
	if len(p.Problems) == 0 {
		return errors.New("batch: no problems")
	}
	if len(p.Submissions) == 0 {
		return errors.New("batch: no submissions")
	}
	probs := map[string]bool{}
	for _, pr := range p.Problems {
		if err := problem.CheckName(pr.Name); err != nil {
			return fmt.Errorf("batch: problem: %w", err)
		}
		if probs[pr.Name] {
			return fmt.Errorf("batch: problem %q is given twice", pr.Name)
		}
		probs[pr.Name] = true
	}
	subs := map[string]bool{}
	for _, s := range p.Submissions {
		if err := problem.CheckName(s.Name); err != nil {
			return fmt.Errorf("batch: submission: %w", err)
		}
		if subs[s.Name] {
			return fmt.Errorf("batch: submission %q is given twice", s.Name)
		}
		subs[s.Name] = true
		for pr, d := range s.Dirs {
			if !probs[pr] {
				return fmt.Errorf("batch: submission %q names problem %q, which is not in the batch", s.Name, pr)
			}
			if !dirs {
				continue
			}
			if st, err := os.Stat(d); err != nil {
				return fmt.Errorf("batch: submission %q for %q: %w", s.Name, pr, err)
			} else if !st.IsDir() {
				return fmt.Errorf("batch: submission %q for %q: %s is not a directory", s.Name, pr, d)
			}
		}
	}
	return nil
}

// errNotExist reports whether err means a file is absent.
func errNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
