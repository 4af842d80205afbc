package taskspecs

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// specKeys are the keys a spec may have. Keys the benchmarks carry for
// their own harnesses (proxy, fixed_ip, …) are accepted and kept in
// summary.json; anything else is a typo to report.
var specKeys = map[string]bool{
	"id": true, "snapshot": true, "instruction": true, "source": true, "related_apps": true, "tags": true,
	"action_number": true, "counterpart": true, "config": true, "evaluation": true, "trajectory": true,
	"proxy": true, "fixed_ip": true, "possibility_of_env_change": true,
}

// evaluationKeys are the keys of `evaluation`.
var evaluationKeys = map[string]bool{
	"func": true, "conj": true, "arguments": true, "result": true, "expected": true, "options": true, "postconfig": true,
}

// Spec is one task spec as read.
type Spec struct {
	// File is the spec's path; Dir its task directory.
	File, Dir string
	// Tool is the directory the task lies in (its group).
	Tool        string
	ID          string
	Instruction string
	Snapshot    string
	Tags        []string
	Apps        []string
	Config      []Step
	Evaluation  Evaluation
	// Raw is the whole spec as written, for summary.json.
	Raw map[string]any
}

// Step is one setup function call: `{func, arguments}` (or `{type,
// parameters}`, the same).
type Step struct {
	Func      string
	Arguments map[string]any
	// At is its key path, for messages: config[1].
	At string
}

// Evaluation is `evaluation` as read: one function or several with conj.
type Evaluation struct {
	Funcs []string
	Conj  string
	// Arguments, Results, Expected and Options are aligned with Funcs (a
	// single value given for several funcs is repeated).
	Arguments  []map[string]any
	Results    []any
	Expected   []any
	Options    []map[string]any
	PostConfig []Step
}

// parseSpec reads a spec strictly, recording what is wrong in errs.
func parseSpec(file string, data []byte, errs *diag.List) *Spec {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if p := diag.CheckJSON(data); p != nil {
		// A key given twice would keep its last value silently.
		p.Add(errs, file)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		errs.Add(file, "", 0, "not a task spec: %v (expected one JSON object)", err)
		return nil
	}
	raw, ok := top.(map[string]any)
	if !ok {
		errs.Add(file, "", 0, "not a task spec: expected one JSON object, got %s", diag.DescribeJSON(top))
		return nil
	}
	s := &Spec{File: file, Raw: raw}
	for _, k := range sortedKeys(raw) {
		if !specKeys[k] {
			errs.Add(file, k, 0, "unknown key %q (known keys: %s)", k, strings.Join(sortedKeys(specKeys), ", "))
		}
	}
	str := func(key string, required bool) string {
		v, ok := raw[key]
		if !ok || v == nil {
			if required {
				errs.Add(file, key, 0, "required: a string")
			}
			return ""
		}
		t, ok := v.(string)
		if !ok {
			errs.Add(file, key, 0, "expected a string, got %s", diag.DescribeJSON(v))
		}
		return t
	}
	s.ID = str("id", true)
	s.Instruction = str("instruction", true)
	s.Snapshot = str("snapshot", false)
	s.Tags = strList(file, "tags", raw["tags"], errs)
	s.Apps = strList(file, "related_apps", raw["related_apps"], errs)
	s.Config = steps(file, "config", raw["config"], errs)
	s.Evaluation = evaluation(file, raw["evaluation"], errs)
	return s
}

// steps reads a list of setup function calls.
func steps(file, key string, v any, errs *diag.List) []Step {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		errs.Add(file, key, 0, "expected a list of setup functions ({func, arguments}), got %s", diag.DescribeJSON(v))
		return nil
	}
	var out []Step
	for i, item := range list {
		at := diag.IndexPath(key, i)
		m, ok := item.(map[string]any)
		if !ok {
			errs.Add(file, at, 0, "expected a setup function ({func, arguments}), got %s", diag.DescribeJSON(item))
			continue
		}
		st := Step{At: at}
		for _, k := range sortedKeys(m) {
			switch k {
			case "func", "type":
				name, ok := m[k].(string)
				if !ok || name == "" {
					errs.Add(file, at+"."+k, 0, "expected the setup function's name, got %s", diag.DescribeJSON(m[k]))
				}
				st.Func = name
			case "arguments", "parameters":
				if m[k] == nil {
					continue
				}
				args, ok := m[k].(map[string]any)
				if !ok {
					errs.Add(file, at+"."+k, 0, "expected an object of arguments, got %s", diag.DescribeJSON(m[k]))
				}
				st.Arguments = args
			default:
				errs.Add(file, at+"."+k, 0, "unknown key %q (a setup function has func and arguments)", k)
			}
		}
		if st.Func == "" {
			if _, given := m["func"]; !given {
				if _, given := m["type"]; !given {
					errs.Add(file, at+".func", 0, "required: the setup function's name")
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// evaluation reads `evaluation`: func a name or a list, and the
// arguments, getters and options aligned with it.
func evaluation(file string, v any, errs *diag.List) Evaluation {
	var e Evaluation
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			errs.Add(file, "evaluation", 0, "required: the evaluation ({func, arguments} or {func, result, expected})")
		} else {
			errs.Add(file, "evaluation", 0, "expected an object ({func, …}), got %s", diag.DescribeJSON(v))
		}
		return e
	}
	for _, k := range sortedKeys(m) {
		if !evaluationKeys[k] {
			errs.Add(file, "evaluation."+k, 0, "unknown key %q (known keys: %s)", k, strings.Join(sortedKeys(evaluationKeys), ", "))
		}
	}
	switch f := m["func"].(type) {
	case string:
		e.Funcs = []string{f}
	case []any:
		for i, x := range f {
			name, ok := x.(string)
			if !ok || name == "" {
				errs.Add(file, diag.IndexPath("evaluation.func", i), 0, "expected a function name, got %s", diag.DescribeJSON(x))
				continue
			}
			e.Funcs = append(e.Funcs, name)
		}
		if len(f) == 0 {
			errs.Add(file, "evaluation.func", 0, "expected at least one function")
		}
	default:
		errs.Add(file, "evaluation.func", 0, "expected a function name or a list of them, got %s", diag.DescribeJSON(m["func"]))
	}
	n := len(e.Funcs)
	e.Conj = "and"
	if c, given := m["conj"]; given {
		s, ok := c.(string)
		if !ok || (s != "and" && s != "or") {
			errs.Add(file, "evaluation.conj", 0, "expected \"and\" or \"or\", got %s", diag.DescribeJSON(c))
		} else {
			e.Conj = s
		}
	}
	// aligned spreads a value over the funcs: a list must have one item
	// per func; a single value serves them all.
	aligned := func(key string) []any {
		v, given := m[key]
		if !given || v == nil {
			return make([]any, n)
		}
		if list, ok := v.([]any); ok && n > 1 {
			if len(list) != n {
				errs.Add(file, "evaluation."+key, 0, "expected %d items, one per function of func, got %d", n, len(list))
				return make([]any, n)
			}
			return list
		}
		out := make([]any, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	objects := func(key string) []map[string]any {
		out := make([]map[string]any, n)
		for i, v := range aligned(key) {
			if v == nil {
				continue
			}
			obj, ok := v.(map[string]any)
			if !ok {
				errs.Add(file, "evaluation."+key, 0, "expected an object, got %s", diag.DescribeJSON(v))
				continue
			}
			out[i] = obj
		}
		return out
	}
	e.Arguments = objects("arguments")
	e.Options = objects("options")
	e.Results = aligned("result")
	e.Expected = aligned("expected")
	e.PostConfig = steps(file, "evaluation.postconfig", m["postconfig"], errs)
	return e
}

func strList(file, key string, v any, errs *diag.List) []string {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		errs.Add(file, key, 0, "expected a list of strings, got %s", diag.DescribeJSON(v))
		return nil
	}
	var out []string
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			errs.Add(file, diag.IndexPath(key, i), 0, "expected a string, got %s", diag.DescribeJSON(x))
			continue
		}
		out = append(out, s)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
