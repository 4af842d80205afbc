// Package placeholder is the one place the placeholders of command
// templates are defined, checked and expanded: {entry_file} in the command
// that starts a submission, {{host}} and {{port}} — where a server must
// listen — in a server's command, arguments and environment, and
// {{mock.NAME}} — the base URL of one of the group's mock services —
// wherever the submission's processes get arguments or environment.
//
// The two spellings differ for a reason: {entry_file} is SlopCodeBench's,
// kept so its problems load unchanged, and {{host}}/{{port}} are wasmeval's.
// A placeholder written with the other spelling, or one that does not exist,
// used to be passed to the submission as written, so that every case failed
// with the submission's own complaint. Check refuses it instead, naming the
// placeholders the field knows; loaders call it, so `wasmeval validate` and
// a run refuse a template before anything starts.
package placeholder

import (
	"fmt"
	"slices"
	"strings"
)

// The placeholders, as written in templates.
const (
	EntryFile = "{entry_file}"
	Host      = "{{host}}"
	Port      = "{{port}}"
)

// Command lists the placeholders of the command template that starts the
// submission: {entry_file}, and {{host}} and {{port}} when the submission
// is a server (api and browser adapters, an agent served over HTTP).
func Command(server bool) []string {
	if server {
		return []string{EntryFile, Host, Port}
	}
	return []string{EntryFile}
}

// Server lists the placeholders of a server's arguments and environment.
var Server = []string{Host, Port}

// MockPrefix starts the placeholder of a mock service's base URL,
// {{mock.NAME}}: the URL (http://HOST:PORT) at which the submission's
// processes reach the group's mock service NAME.
const MockPrefix = "{{mock."

// Mock is the placeholder of mock service name's base URL.
func Mock(name string) string { return MockPrefix + name + "}}" }

// Mocks are the placeholders of the named mock services.
func Mocks(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = Mock(n)
	}
	return out
}

// MocksIn returns the names of the mock services text's placeholders
// name ({{mock.payments}} gives payments), in order.
func MocksIn(text string) []string {
	var names []string
	for _, p := range Find(text) {
		if name, ok := strings.CutPrefix(p, MockPrefix); ok {
			names = append(names, strings.TrimSuffix(name, "}}"))
		}
	}
	return names
}

// Find returns the placeholders written in text, in order: {name} and
// {{name}}, where name is a word of letters, digits, '_', '-', '.' or ':'
// starting with a letter or '_'. Shell parameter expansions (${NAME}) are
// not placeholders, nor are braces around anything else ({a,b}, JSON).
func Find(text string) []string {
	var found []string
	for i := 0; i < len(text); {
		if text[i] != '{' || (i > 0 && text[i-1] == '$') {
			i++
			continue
		}
		if strings.HasPrefix(text[i:], "{{") {
			if end := strings.Index(text[i+2:], "}}"); end >= 0 && isName(text[i+2:i+2+end]) {
				found = append(found, text[i:i+2+end+2])
				i += 2 + end + 2
				continue
			}
		}
		if end := strings.IndexByte(text[i+1:], '}'); end >= 0 && isName(text[i+1:i+1+end]) {
			found = append(found, text[i:i+1+end+1])
			i += 1 + end + 1
			continue
		}
		i++
	}
	return found
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '.' || r == ':'):
		default:
			return false
		}
	}
	return true
}

// Check returns an error for the first placeholder in text that known
// does not hold, naming it and the known ones, and the known placeholder
// it most likely means. A word in double braces is always a placeholder
// ({{bogus}} is refused). A word in single braces is one only when it
// names or nearly names one of wasmeval's placeholders — {port} for {{port}},
// {entry-file} or {entryfile} for {entry_file} — since single braces are
// common in the commands themselves (awk '{print}', jq '{name}', a
// Python f-string), which must pass unchanged.
func Check(text string, known []string) error {
	for _, p := range Find(text) {
		if slices.Contains(known, p) {
			continue
		}
		if strings.HasPrefix(p, "{{") || meant(p, all) != "" {
			return unknown(p, known)
		}
	}
	return nil
}

// all are every placeholder wasmeval has: a single-brace word near one of
// them is a mistake wherever it is written ({port} in a command that gets
// no port), even where the field knows another.
var all = []string{EntryFile, Host, Port}

// CheckEnv is Check for an environment variable's value ({asctime} in a
// log format passes, {port} does not).
func CheckEnv(text string, known []string) error { return Check(text, known) }

func unknown(p string, known []string) error {
	hint := ""
	if r := meant(p, known); r != "" {
		hint = fmt.Sprintf("; did you mean %s?", r)
	}
	list := strings.Join(known, ", ")
	if list == "" {
		list = "none"
	}
	return fmt.Errorf("unknown placeholder %s (known here: %s%s)", p, list, hint)
}

// meant is the known placeholder p most likely means — the same name in
// the other braces, or a name at most two edits away ('-' for '_' costs
// nothing) — or "" if none.
func meant(p string, known []string) string {
	name := strings.ReplaceAll(strings.Trim(p, "{}"), "-", "_")
	best, bestDist := "", 3
	for _, k := range known {
		if k == p {
			continue
		}
		if d := editDistance(name, strings.Trim(k, "{}")); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Expand replaces every placeholder of values (keyed by the placeholder
// as written, e.g. Port) in text.
func Expand(text string, values map[string]string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	pairs := make([]string, 0, 2*len(values))
	for _, k := range sortedKeys(values) {
		pairs = append(pairs, k, values[k])
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Longer first: {{port}} is replaced before anything it contains.
	slices.SortFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return keys
}
