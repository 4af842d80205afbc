package cases

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/wasmeval/wasmeval/engine/verify"
)

// FieldError is one expected value of the wrong type.
type FieldError struct {
	// Key is the key below `expected` ("status_code", "files"); Entry the
	// key inside it, for files and headers ("out.txt").
	Key, Entry string
	Msg        string
}

// Path is the key path below `expected`.
func (e FieldError) Path() string {
	if e.Entry == "" {
		return e.Key
	}
	return e.Key + "." + e.Entry
}

// CheckExpected checks the types of a case's expected values, so a value
// no check could compare (status_code: "zero") is refused when the problem
// is validated instead of failing every run:
//
//   - status_code: an integer from 0 to 599;
//   - output, stderr: text or a structure (for JSON), not null;
//   - files: a mapping of relative workspace path → content;
//   - headers: a mapping of header name → text (numbers and booleans are
//     compared as text);
//   - any other key (a capture of the browser adapter, an attribute a
//     check names): any value but null.
//
// Problems are returned sorted by key.
func CheckExpected(expected map[string]any) []FieldError {
	var out []FieldError
	add := func(key, entry, format string, args ...any) {
		out = append(out, FieldError{Key: key, Entry: entry, Msg: fmt.Sprintf(format, args...)})
	}
	for key, v := range expected {
		switch key {
		case "status_code":
			// No adapter reports a status outside 0..599: an expected one
			// there (a sign slipped in, a signal as -9) would fail every
			// run.
			if n, ok := verify.IntegerValue(v); !ok {
				add(key, "", "expected an integer (an exit status, or an HTTP status for the api adapter), got %s", describe(v))
			} else if n < 0 || n > 599 {
				add(key, "", "expected an exit status (0 to 255; 128+N for a process killed by signal N) or an HTTP status (100 to 599), got %d", n)
			}
		case "files":
			files, ok := v.(map[string]any)
			if !ok {
				add(key, "", "expected a mapping of workspace path to content, got %s", describe(v))
				continue
			}
			for p, content := range files {
				if err := CheckRelPath(p); err != nil {
					add(key, p, "%v", err)
				} else if content == nil {
					add(key, p, "expected the file's content, got null")
				} else if ext := strings.ToLower(path.Ext(p)); (ext == ".yaml" || ext == ".yml") && verify.IsStructure(content) {
					// A structure is compared as the JSON document the
					// file holds; a YAML file is not read as YAML.
					add(key, p, "expected the YAML file's text (a block scalar, |), got %s: a structure is compared as a JSON document", describe(content))
				}
			}
		case "headers":
			headers, ok := v.(map[string]any)
			if !ok {
				add(key, "", "expected a mapping of header name to value, got %s", describe(v))
				continue
			}
			// Header names are compared without regard to case: two
			// that differ only in case would be one check, and which
			// value it took depended on the map's order.
			byFold := map[string]string{}
			for _, name := range slices.Sorted(maps.Keys(headers)) {
				fold := strings.ToLower(name)
				if other, dup := byFold[fold]; dup {
					add(key, name, "header %q is given twice (as %q too): header names are compared without regard to case", name, other)
				}
				byFold[fold] = name
			}
			for name, value := range headers {
				if !httpguts.ValidHeaderFieldName(name) {
					add(key, name, "expected a header name (letters, digits and !#$%%&'*+-.^_`|~, no spaces), got %q", name)
					continue
				}
				switch value.(type) {
				case string, int, int64, uint64, float64, json.Number, bool:
				default:
					add(key, name, "expected the header's value as text, got %s", describe(value))
				}
			}
		default:
			if v == nil {
				add(key, "", "expected a value to compare %s with, got null (remove the key to leave %s unchecked)", key, key)
			}
		}
	}
	for key, v := range expected {
		if where, bad := nonFinite(v, ""); bad {
			add(key, "", "holds .inf or .nan%s, which JSON has no form for: no check can compare it (quote it, as \"inf\" or \"nan\", for the text)", where)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path() < out[j].Path() })
	return out
}

// nonFinite reports whether v holds an infinity or NaN (YAML's .inf,
// .nan), and where below it (" at $.a[2]", "" at the top).
func nonFinite(v any, at string) (string, bool) {
	switch t := v.(type) {
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			if at == "" {
				return "", true
			}
			return " at $" + at, true
		}
	case []any:
		for i, item := range t {
			if w, bad := nonFinite(item, fmt.Sprintf("%s[%d]", at, i)); bad {
				return w, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if w, bad := nonFinite(t[k], at+"."+k); bad {
				return w, true
			}
		}
	}
	return "", false
}

func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", t)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case bool:
		return fmt.Sprintf("%v", t)
	}
	return fmt.Sprintf("%v", v)
}
