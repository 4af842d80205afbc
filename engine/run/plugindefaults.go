package run

import (
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// groupInfo is the group as a loader plugin sees it. Origin is where the
// cases live — the earlier checkpoint and group for a regression, the
// group itself otherwise — and Dir their directory relative to the
// problem, as read_asset takes it (empty when it is outside the problem,
// under a --mount-root).
func groupInfo(g cases.GroupInput) abi.GroupInfo {
	info := abi.GroupInfo{
		Checkpoint: g.Checkpoint, Group: g.Group, GroupType: string(g.GroupType),
		CaseGroup: g.CaseGroup, CaseOrder: g.CaseOrder, TimeoutS: g.Timeout.Seconds(),
		OriginCheckpoint: g.OriginalCheckpoint, OriginGroup: g.OriginalGroup,
	}
	if info.OriginCheckpoint == "" {
		info.OriginCheckpoint, info.OriginGroup = g.Checkpoint, g.CaseGroup
	}
	if g.ProblemDir != "" && g.CheckpointDir != "" {
		rel, err := filepath.Rel(g.ProblemDir, filepath.Join(g.CheckpointDir, g.CaseGroup))
		if err == nil && filepath.IsLocal(rel) {
			info.Dir = filepath.ToSlash(rel)
		}
	}
	return info
}

// withDefaults merges a loader plugin's case over the case its group's
// case_defaults make (def, from cases.DefaultCase; nil for none), as a
// case file's keys are merged over them: what the case leaves out
// (arguments absent, stdin, tracked_files, timeout, request fields) is the
// defaults'; env, expected, extra and a request's headers and query merge
// key by key, the case winning; reset: true in case_defaults resets every
// case. Input files, steps and checks are finished by finishDefaults.
func withDefaults(def *cases.Case, g cases.GroupInput, ac abi.Case) abi.Case {
	if def == nil {
		return ac
	}
	if ac.Arguments == nil {
		ac.Arguments = append([]string{}, def.Arguments...)
	}
	if ac.Stdin == nil {
		ac.Stdin = def.Stdin
	}
	env := make(map[string]string, len(def.Env)+len(ac.Env))
	for k, v := range def.Env {
		env[k] = v
	}
	for k, v := range ac.Env {
		env[k] = v
	}
	ac.Env = env
	ac.Expected = mergeData(def.Expected, ac.Expected)
	ac.Extra = mergeData(def.Extra, ac.Extra)
	if ac.TimeoutS <= 0 && def.Timeout != g.Timeout {
		ac.TimeoutS = def.Timeout.Seconds()
	}
	ac.Reset = ac.Reset || def.Reset
	if len(ac.TrackedFiles) == 0 && len(def.TrackedFiles) > len(g.TrackedFiles) {
		// The defaults' own; the adapter's are added to every case.
		ac.TrackedFiles = def.TrackedFiles[len(g.TrackedFiles):]
	}
	if def.Request != nil {
		ac.Request = mergeRequest(def.Request, ac.Request)
	}
	return ac
}

// finishDefaults gives c, built from the plugin's case ac, what its
// group's case_defaults say that has no envelope form to merge: input
// files and browser steps when the case gives none, and the checks.
func finishDefaults(def *cases.Case, ac abi.Case, c *cases.Case) {
	if def == nil {
		return
	}
	if len(ac.InputFiles) == 0 {
		c.InputFiles = append(c.InputFiles, def.InputFiles...)
	}
	if ac.Steps == nil && def.Steps != nil {
		c.Steps = def.Steps
	}
	c.Checks = def.Checks
}

// mergeData merges over onto base recursively, in a new map: case_defaults'
// values under a case's (mappings merge key by key, the case winning).
func mergeData(base, over map[string]any) map[string]any {
	if len(base) == 0 {
		return over
	}
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeData(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}

// mergeRequest is a plugin case's request (case-file form) over the one
// case_defaults give: fields the case leaves out are the defaults', its
// headers and query merge key by key, and a body it gives replaces theirs.
func mergeRequest(def *cases.Request, req map[string]any) map[string]any {
	out := def.Data()
	for _, body := range []string{"json", "body", "body_base64"} {
		if _, ok := req[body]; ok {
			delete(out, "json")
			delete(out, "body")
			delete(out, "body_base64")
			break
		}
	}
	for k, v := range req {
		if k == "headers" || k == "query" {
			bm, ok1 := out[k].(map[string]any)
			om, ok2 := v.(map[string]any)
			if ok1 && ok2 {
				out[k] = mergeData(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}
