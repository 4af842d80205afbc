package problem

import (
	"strconv"
	"strings"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// DefaultNameTemplate names expanded regression groups.
const DefaultNameTemplate = "{checkpoint}_{group}"

// expandRegression turns one regression spec into Regression groups that
// re-run earlier checkpoints' cases against the current submission.
//
// Sources are the earlier checkpoints' own groups: groups that are
// themselves regressions are skipped, since their cases are already reached
// through the checkpoint they came from (importing them again would run the
// same cases twice).
func (l *loader) expandRegression(file, path string, r *rawRegression, cp *Checkpoint, sc scope, earlier []*resolvedCheckpoint) []*Group {
	var sources []*resolvedCheckpoint
	switch {
	case r.Checkpoint != "" && r.Checkpoints.set:
		l.errs.Add(file, path, r.line, "give either `checkpoint` or `checkpoints`, not both")
		return nil
	case r.Checkpoint != "":
		src := findCheckpoint(earlier, r.Checkpoint)
		if src == nil {
			l.errs.Add(file, diag.JoinPath(path, "checkpoint"), r.line, "checkpoint %q does not exist or does not come before %q", r.Checkpoint, cp.Name)
			return nil
		}
		sources = append(sources, src)
	case r.Checkpoints.all:
		sources = earlier
	case r.Checkpoints.set:
		for i, name := range r.Checkpoints.names {
			src := findCheckpoint(earlier, name)
			if src == nil {
				l.errs.Add(file, pathIndex(diag.JoinPath(path, "checkpoints"), i), r.Checkpoints.line,
					"checkpoint %q does not exist or does not come before %q", name, cp.Name)
				continue
			}
			sources = append(sources, src)
		}
	default:
		l.errs.Add(file, path, r.line, "a regression needs `checkpoint` or `checkpoints` (a list of names or \"*\")")
		return nil
	}
	if r.TypeFilter != "" && !GroupType(r.TypeFilter).Valid() {
		l.errs.Add(file, diag.JoinPath(path, "type_filter"), r.line, "unknown group type %q (expected Core, Functionality, Error or Regression)", r.TypeFilter)
		return nil
	}
	tmpl := r.NameTemplate
	if tmpl == "" {
		tmpl = DefaultNameTemplate
	}
	if bad := unknownPlaceholder(tmpl); bad != "" {
		l.errs.Add(file, diag.JoinPath(path, "name_template"), r.line, "unknown placeholder %s (expected {checkpoint}, {group} or {idx})", bad)
		return nil
	}
	idx := 0
	if n := strings.LastIndex(path, "["); n >= 0 {
		idx, _ = strconv.Atoi(strings.TrimSuffix(path[n+1:], "]"))
	}
	exclude := map[string]bool{}
	for _, e := range r.Exclude {
		exclude[e] = true
	}

	var out []*Group
	for _, src := range sources {
		names := r.Groups
		if len(names) == 0 {
			for _, g := range src.cp.Groups {
				names = append(names, g.Name)
			}
		} else {
			for i, n := range names {
				if _, ok := src.groups[n]; !ok && (r.Checkpoint != "" || len(sources) == 1) {
					l.errs.Add(file, pathIndex(diag.JoinPath(path, "groups"), i), r.line, "checkpoint %q has no group %q", src.cp.Name, n)
				}
			}
		}
		for _, name := range names {
			sg, ok := src.groups[name]
			if !ok || exclude[name] || sg.IsRegression() {
				continue
			}
			if r.TypeFilter != "" && sg.Type != GroupType(r.TypeFilter) {
				continue
			}
			gname := strings.NewReplacer("{checkpoint}", src.cp.Name, "{group}", name, "{idx}", strconv.Itoa(idx)).Replace(tmpl)
			if err := CheckName(gname); err != nil {
				l.errs.Add(file, diag.JoinPath(path, "name_template"), r.line, "regression group %v", err)
				continue
			}
			out = append(out, &Group{
				Name: gname, Type: Regression,
				CaseOrder: sg.CaseOrder, CaseDefaults: sg.CaseDefaults, CaseDefaultsNode: sg.CaseDefaultsNode, Isolated: sg.Isolated,
				Timeout: sg.Timeout, Env: MergeEnv(sc.env, nil), GroupFiles: sg.GroupFiles,
				Checks: sg.Checks, Loader: sg.Loader, LoaderRef: sg.LoaderRef, Verifier: sg.Verifier,
				Mocks: sg.Mocks, OriginalCheckpoint: src.cp.Name, OriginalGroup: name,
				CasesDir: sg.CasesDir, CaseGroup: sg.CaseGroup, File: sg.File, Path: sg.Path,
			})
		}
	}
	return out
}

func findCheckpoint(list []*resolvedCheckpoint, name string) *resolvedCheckpoint {
	for _, c := range list {
		if c.cp.Name == name {
			return c
		}
	}
	return nil
}

// unknownPlaceholder returns the first {placeholder} not understood.
func unknownPlaceholder(t string) string {
	for {
		i := strings.Index(t, "{")
		if i < 0 {
			return ""
		}
		j := strings.Index(t[i:], "}")
		if j < 0 {
			return t[i:]
		}
		ph := t[i : i+j+1]
		switch ph {
		case "{checkpoint}", "{group}", "{idx}":
		default:
			return ph
		}
		t = t[i+j+1:]
	}
}
