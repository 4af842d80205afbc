package cases

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// staticRef matches {{static:NAME}}.
var staticRef = regexp.MustCompile(`\{\{static:([^{}]+)\}\}`)

// staticPrefix starts every reference. Looking for it first keeps text
// without references untouched: the regexp's ReplaceAllStringFunc copies
// its input twice even when nothing matches (100 MB for a 50 MB expected
// output).
const staticPrefix = "{{static:"

// StaticMaxBytes is the largest input file of the problem whose
// {{static:NAME}} references are resolved. Resolving needs the content in
// memory; a larger file is copied into the workspace as it is, references
// and all, so a 50 MB input is never held to look for them.
const StaticMaxBytes = 1 << 20

// holdIfStatic reads a problem file of at most StaticMaxBytes and keeps
// its content when it is text holding a reference, so the references can
// be resolved (and, when validating, checked) like inline content's. Any
// other file stays a reference to be copied when the case runs.
func holdIfStatic(f InputFile) (InputFile, error) {
	if f.From == nil || f.From.Size > StaticMaxBytes {
		return f, nil
	}
	data, err := f.Bytes()
	if err != nil {
		return InputFile{}, err
	}
	if !bytes.Contains(data, []byte(staticPrefix)) || !utf8.Valid(data) {
		return f, nil
	}
	return InputFile{Path: f.Path, Content: data}, nil
}

// ExpandStatic replaces every {{static:NAME}} in s with the path at which
// the runtime exposes the asset (lookup), and returns the names lookup
// does not know, left as written.
func ExpandStatic(s string, lookup func(name string) (string, bool)) (string, []string) {
	if !strings.Contains(s, staticPrefix) {
		return s, nil
	}
	var missing []string
	out := staticRef.ReplaceAllStringFunc(s, func(m string) string {
		name := staticRef.FindStringSubmatch(m)[1]
		p, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
			return m
		}
		return p
	})
	return out, missing
}

// ResolveStatic replaces every {{static:NAME}} in the case — arguments,
// stdin, env, text input files held in memory (inline content, and files
// of the problem up to StaticMaxBytes that hold a reference), expected
// values and extra keys — with the
// path at which the runtime exposes the asset (lookup). An unknown name is
// an error; the case is left untouched for anything it could not resolve.
func ResolveStatic(c *Case, lookup func(name string) (string, bool)) error {
	var missing []string
	repl := func(s string) string {
		out, unknown := ExpandStatic(s, lookup)
		missing = append(missing, unknown...)
		return out
	}
	// Everything is rewritten into fresh slices and maps: a case may share
	// them with its group's case_defaults.
	args := make([]string, len(c.Arguments))
	for i, a := range c.Arguments {
		args[i] = repl(a)
	}
	c.Arguments = args
	if c.Stdin != nil {
		s := repl(*c.Stdin)
		c.Stdin = &s
	}
	if c.Env != nil {
		env := make(map[string]string, len(c.Env))
		for k, v := range c.Env {
			env[k] = repl(v)
		}
		c.Env = env
	}
	// A problem file (From) is copied as it is: one that needed resolving
	// was read when its case was loaded (holdIfStatic).
	files := make([]InputFile, len(c.InputFiles))
	for i, f := range c.InputFiles {
		files[i] = f
		if bytes.Contains(f.Content, []byte(staticPrefix)) && utf8.Valid(f.Content) {
			files[i].Content = []byte(repl(string(f.Content)))
		}
	}
	c.InputFiles = files
	c.Expected = walkStrings(c.Expected, repl).(map[string]any)
	if c.Extra != nil {
		c.Extra = walkStrings(c.Extra, repl).(map[string]any)
	}
	if len(missing) > 0 {
		return fmt.Errorf("case %s uses {{static:%s}} but no such static asset is declared", c.ID, missing[0])
	}
	return nil
}

// StaticNames lists the asset names a case refers to, sorted and unique,
// so validation can check them before anything runs.
func StaticNames(c *Case) []string {
	seen := map[string]bool{}
	collect := func(s string) string {
		if !strings.Contains(s, staticPrefix) {
			return s
		}
		for _, m := range staticRef.FindAllStringSubmatch(s, -1) {
			seen[m[1]] = true
		}
		return s
	}
	for _, a := range c.Arguments {
		collect(a)
	}
	if c.Stdin != nil {
		collect(*c.Stdin)
	}
	for _, v := range c.Env {
		collect(v)
	}
	for _, f := range c.InputFiles {
		if bytes.Contains(f.Content, []byte(staticPrefix)) && utf8.Valid(f.Content) {
			collect(string(f.Content))
		}
	}
	walkStrings(c.Expected, collect)
	walkStrings(c.Extra, collect)
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// walkStrings applies f to every string inside v (maps and lists
// recursively) and returns the rewritten copy; v itself is not modified, as
// expected values may be shared with case defaults.
func walkStrings(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case map[string]any:
		if t == nil {
			return t
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = walkStrings(x, f)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = walkStrings(x, f)
		}
		return out
	}
	return v
}
