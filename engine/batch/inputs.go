package batch

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// inputFile is the batch manifest YAML (--manifest FILE):
//
//	problems: [problems/*, ../other/problem]   # directories or globs
//	submissions:
//	  reference: {dir: subs/reference}         # <dir>/<problem>/
//	  tuned:
//	    problems: {calc: elsewhere/calc}       # one directory per problem
//
// Relative paths are relative to the file. Unknown keys are errors.
type inputFile struct {
	Problems    []string                   `yaml:"problems"`
	Submissions map[string]inputSubmission `yaml:"submissions"`
}

type inputSubmission struct {
	Dir      string            `yaml:"dir"`
	Problems map[string]string `yaml:"problems"`
}

// LoadInputs reads a batch manifest YAML into a plan. Every problem in it
// (an unknown key, a wrong type, a name that cannot be a path component, a
// submission naming a problem not in the batch) is an error naming the
// file, the key and the line.
func LoadInputs(file string) (*Plan, error) {
	var errs diag.List
	root, ok := strictyaml.ParseFile(file, &errs)
	if !ok {
		return nil, errs.Err()
	}
	var in inputFile
	d := &strictyaml.Decoder{File: file, Errs: &errs}
	d.Decode(root, "", &in)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	base := filepath.Dir(file)
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	if len(in.Problems) == 0 {
		return nil, fmt.Errorf("%s: problems: expected a list of problem directories or globs, got none", file)
	}
	if len(in.Submissions) == 0 {
		return nil, fmt.Errorf("%s: submissions: expected a mapping of submission name to {dir} or {problems}, got none", file)
	}
	var args []string
	for _, p := range in.Problems {
		args = append(args, rel(p))
	}
	problems, err := ExpandProblems(args)
	if err != nil {
		return nil, fmt.Errorf("%s: problems: %w", file, err)
	}
	plan := &Plan{Problems: problems}
	names := make([]string, 0, len(in.Submissions))
	for n := range in.Submissions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := in.Submissions[n]
		key := "submissions." + n
		if (s.Dir == "") == (len(s.Problems) == 0) {
			return nil, fmt.Errorf("%s: %s: expected exactly one of dir (a directory of <problem>/ directories) or problems (problem name to directory)", file, key)
		}
		sub := Submission{Name: n, Dirs: map[string]string{}}
		if s.Dir != "" {
			for _, p := range problems {
				d := filepath.Join(rel(s.Dir), p.Name)
				if isDir(d) {
					sub.Dirs[p.Name] = absPath(d)
				}
			}
		}
		for pn, d := range s.Problems {
			sub.Dirs[pn] = absPath(rel(d))
		}
		plan.Submissions = append(plan.Submissions, sub)
	}
	if err := CheckPlan(plan, true); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return plan, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
