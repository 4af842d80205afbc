package evalcases

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// Categories are the dataset format's categories. Others are accepted
// (a team may add its own) but these are the ones its docs name.
var Categories = []string{"happy_path", "edge_case", "adversarial", "multi_step"}

// Entry is one case of a dataset as written.
type Entry struct {
	// Index is the entry's position in the dataset's list, as errors
	// name it.
	Index    int
	ID       string
	Category string
	Query    string
	// ExpectedTools is nil when absent; an empty, non-nil list when
	// written as [] (see Options.EmptyTools for what that means).
	ExpectedTools []string
	// ExpectedOutputContains: at least one phrase must appear in the
	// reply, case-insensitively.
	ExpectedOutputContains []string
	// ExpectedFlags, e.g. {"can_diagnose": false}.
	ExpectedFlags map[string]any
	// ExpectedToolOutput: per tool, key-value pairs one of its calls must
	// have returned (a nested subset).
	ExpectedToolOutput map[string]any
	Description        string
	Tags               []string
	Metadata           map[string]any
}

// keys are the entry keys a dataset may use, with the type each expects.
var keys = map[string]string{
	"id":                       "a string",
	"category":                 "a string",
	"query":                    "a string",
	"expected_tools":           "a list of tool names",
	"expected_output_contains": "a list of phrases (or one phrase)",
	"expected_flags":           "an object of flags, e.g. {\"can_diagnose\": false}",
	"expected_tool_output":     "an object mapping a tool name to the key-value pairs one of its calls returned",
	"description":              "a string",
	"tags":                     "a list of strings",
	"metadata":                 "an object",
}

// Parse reads a dataset: a JSON list of entries, or an object whose
// "cases" key holds that list. Every problem is recorded in errs, each
// naming file, the entry's index and key, and what was expected.
func Parse(file string, data []byte, errs *diag.List) []Entry {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if p := diag.CheckJSON(data); p != nil {
		// A key given twice would keep its last value silently; a
		// syntax error gets its line.
		p.Add(errs, file)
		return nil
	}
	var top any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		errs.Add(file, "", 0, "not JSON: %v; expected a list of eval cases", err)
		return nil
	}
	if dec.More() {
		errs.Add(file, "", 0, "data after the list of eval cases; expected one JSON value")
		return nil
	}
	list, ok := top.([]any)
	path := ""
	if obj, isObj := top.(map[string]any); isObj {
		list, ok = obj["cases"].([]any)
		path = "cases"
		if !ok {
			errs.Add(file, "", 0, "expected a list of eval cases (or an object whose \"cases\" key holds one), got an object with keys %s", keyList(obj))
			return nil
		}
	}
	if !ok {
		errs.Add(file, "", 0, "expected a list of eval cases, got %s", diag.DescribeJSON(top))
		return nil
	}
	if len(list) == 0 {
		errs.Add(file, path, 0, "the list of eval cases is empty")
		return nil
	}
	out := make([]Entry, 0, len(list))
	for i, item := range list {
		at := diag.IndexPath(path, i)
		obj, ok := item.(map[string]any)
		if !ok {
			errs.Add(file, at, 0, "expected an eval case (an object with at least a query), got %s", diag.DescribeJSON(item))
			continue
		}
		e := entry(file, at, obj, errs)
		e.Index = i
		out = append(out, e)
	}
	return out
}

// entry reads one entry strictly.
func entry(file, at string, obj map[string]any, errs *diag.List) Entry {
	var e Entry
	bad := func(key string, v any) {
		errs.Add(file, diag.JoinPath(at, key), 0, "expected %s, got %s", keys[key], diag.DescribeJSON(v))
	}
	str := func(key string) string {
		v, ok := obj[key]
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			bad(key, v)
		}
		return s
	}
	strs := func(key string, oneOK bool) []string {
		v, ok := obj[key]
		if !ok || v == nil {
			return nil
		}
		if s, isStr := v.(string); isStr && oneOK {
			return []string{s}
		}
		list, ok := v.([]any)
		if !ok {
			bad(key, v)
			return nil
		}
		out := make([]string, 0, len(list))
		for j, x := range list {
			s, ok := x.(string)
			if !ok || strings.TrimSpace(s) == "" {
				errs.Add(file, diag.IndexPath(diag.JoinPath(at, key), j), 0, "expected a non-empty string, got %s", diag.DescribeJSON(x))
				continue
			}
			out = append(out, s)
		}
		return out
	}
	object := func(key string) map[string]any {
		v, ok := obj[key]
		if !ok || v == nil {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			bad(key, v)
		}
		return m
	}
	for k := range obj {
		if _, known := keys[k]; !known {
			errs.Add(file, diag.JoinPath(at, k), 0, "unknown key %q (known keys: %s)", k, strings.Join(knownKeys(), ", "))
		}
	}
	e.ID = str("id")
	e.Category = str("category")
	e.Query = str("query")
	if strings.TrimSpace(e.Query) == "" {
		if _, given := obj["query"]; !given {
			errs.Add(file, diag.JoinPath(at, "query"), 0, "required: the query sent to the agent (a string)")
		} else if _, isStr := obj["query"].(string); isStr {
			errs.Add(file, diag.JoinPath(at, "query"), 0, "expected a non-empty query")
		}
	}
	e.ExpectedTools = strs("expected_tools", false)
	if v, ok := obj["expected_tools"].([]any); ok && len(v) == 0 {
		e.ExpectedTools = []string{}
	}
	e.ExpectedOutputContains = strs("expected_output_contains", true)
	e.ExpectedFlags = object("expected_flags")
	e.ExpectedToolOutput = object("expected_tool_output")
	// An empty expectation would pass every reply, as no expectation
	// does not: it is refused, as an empty expected_tools is.
	for _, k := range []string{"expected_flags", "expected_tool_output"} {
		if m, ok := obj[k].(map[string]any); ok && len(m) == 0 {
			errs.Add(file, diag.JoinPath(at, k), 0, "{} expects nothing, and every reply would pass it: give %s, or remove the key", keys[k])
		}
	}
	for tool, want := range e.ExpectedToolOutput {
		if _, ok := want.(map[string]any); !ok {
			errs.Add(file, diag.JoinPath(diag.JoinPath(at, "expected_tool_output"), tool), 0, "expected an object of key-value pairs the tool returned, got %s", diag.DescribeJSON(want))
		}
	}
	e.Description = str("description")
	e.Tags = strs("tags", false)
	e.Metadata = object("metadata")
	return e
}

func knownKeys() []string {
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func keyList(m map[string]any) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}
