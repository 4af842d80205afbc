package taskspecs

import (
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/diag"
)

// The getter types an evaluation function receives, normalised (the
// contract of plugins/stdlib/README.md): a file the agent left in the
// sandbox (read back after it ran), a file of the task, a literal rule,
// and a command's output captured in the sandbox.
const (
	getterVMFile        = "vm_file"
	getterTaskFile      = "task_file"
	getterRule          = "rule"
	getterCommandOutput = "command_output"
)

// commandOutputDir holds the captured output of vm_command_line getters
// in the sandbox.
const commandOutputDir = ".wasmeval-getters"

// getterBuild collects what normalising a task's getters asks of the
// case: files to read back after the agent, steps to run before reading.
type getterBuild struct {
	tracked []string
	post    []cases.SetupStep
}

// normalise turns a getter as written into the form an evaluation
// function receives, recording what it needs from the run in b.
func (l *suiteLoader) normalise(s *Spec, at string, g any, b *getterBuild, errs *diag.List) any {
	m, ok := g.(map[string]any)
	if !ok {
		errs.Add(s.File, at, 0, "malformed getter: expected an object with a type (vm_file, cloud_file, local_file, rule, vm_command_line), got %s", diag.DescribeJSON(g))
		return nil
	}
	typ, _ := m["type"].(string)
	str := func(key string) (string, bool) {
		v, ok := m[key].(string)
		if !ok || v == "" {
			errs.Add(s.File, at+"."+key, 0, "malformed getter: a %s getter needs %s (a string)", typ, key)
		}
		return v, ok && v != ""
	}
	switch typ {
	case "vm_file":
		p, ok := str("path")
		if !ok {
			return nil
		}
		rel, err := sandboxPath(l.home, p)
		if err != nil {
			errs.Add(s.File, at+".path", 0, "%v", err)
			return nil
		}
		b.tracked = append(b.tracked, rel)
		return map[string]any{"type": getterVMFile, "path": rel}
	case "cloud_file", "local_file", "task_file":
		p, ok := str("path")
		if !ok {
			return nil
		}
		if strings.Contains(p, "://") {
			errs.Add(s.File, at+".path", 0, "%q is a URL: wasmeval's sandbox has no network; put the file beside the spec and name it by its path relative to the task directory", p)
			return nil
		}
		f, err := l.taskFile(s, p)
		if err != nil {
			errs.Add(s.File, at+".path", 0, "%v", err)
			return nil
		}
		return map[string]any{"type": getterTaskFile, "path": l.problemRel(f)}
	case "rule":
		if _, given := m["rules"]; !given {
			errs.Add(s.File, at+".rules", 0, "malformed getter: a rule getter needs rules")
			return nil
		}
		return map[string]any{"type": getterRule, "rules": m["rules"]}
	case "vm_command_line":
		var command string
		switch c := m["command"].(type) {
		case string:
			command = c
		case []any:
			var words []string
			for _, w := range c {
				s2, ok := w.(string)
				if !ok {
					errs.Add(s.File, at+".command", 0, "malformed getter: expected a list of strings")
					return nil
				}
				words = append(words, shellQuote(s2))
			}
			command = strings.Join(words, " ")
		}
		if strings.TrimSpace(command) == "" {
			errs.Add(s.File, at+".command", 0, "malformed getter: a vm_command_line getter needs command (a string or a list of words)")
			return nil
		}
		rel := fmt.Sprintf("%s/%d.out", commandOutputDir, len(b.post))
		// The command's output is what the function gets, whatever its
		// exit status (grep finding nothing, cat of a file the agent did
		// not write): only failing to capture it is the step's failure.
		b.post = append(b.post, cases.SetupStep{Name: at + " vm_command_line",
			Command: []string{"sh", "-c", fmt.Sprintf("mkdir -p %s || exit 1; { %s ; } > %s; exit 0", commandOutputDir, l.inSandbox(command), rel)}})
		b.tracked = append(b.tracked, rel)
		return map[string]any{"type": getterCommandOutput, "path": rel}
	case "":
		errs.Add(s.File, at+".type", 0, "malformed getter: missing its type (vm_file, cloud_file, local_file, rule, vm_command_line)")
	default:
		errs.Add(s.File, at+".type", 0, "unknown getter type %q (expected vm_file, cloud_file, local_file, rule, vm_command_line)", typ)
	}
	return nil
}

// shellQuote quotes a word for sh.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
