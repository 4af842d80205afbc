// Package placeholder is the one place the placeholders of command
// templates are defined, checked and expanded: {entry_file} in the command
// that starts a submission, and {{host}} and {{port}} — where a server must
// listen — in a server's command, arguments and environment.
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
// it misspells when it is one with the other braces ({port} for
// {{port}}).
func Check(text string, known []string) error {
	for _, p := range Find(text) {
		if !slices.Contains(known, p) {
			return unknown(p, known)
		}
	}
	return nil
}

// CheckEnv is Check for an environment variable's value, where text in
// single braces is common ({asctime} in a log format): there only the
// double-brace spelling is a placeholder, and a single-brace one is
// refused only when it misspells a known placeholder ({port}).
func CheckEnv(text string, known []string) error {
	for _, p := range Find(text) {
		if slices.Contains(known, p) {
			continue
		}
		if strings.HasPrefix(p, "{{") || respelled(p, known) != "" {
			return unknown(p, known)
		}
	}
	return nil
}

func unknown(p string, known []string) error {
	hint := ""
	if r := respelled(p, known); r != "" {
		hint = fmt.Sprintf("; did you mean %s?", r)
	}
	return fmt.Errorf("unknown placeholder %s (known here: %s%s)", p, strings.Join(known, ", "), hint)
}

// respelled is the known placeholder p names with the other braces, "" if
// none.
func respelled(p string, known []string) string {
	name := strings.Trim(p, "{}")
	for _, k := range known {
		if strings.Trim(k, "{}") == name && k != p {
			return k
		}
	}
	return ""
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
