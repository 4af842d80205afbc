package taskspecs

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/diag"
)

// DefaultVMHome is the directory of the benchmark's virtual machine that
// the sandbox stands for: an absolute path in a spec under it names the
// same path under the sandbox's working directory.
const DefaultVMHome = "/home/user"

// sandboxPath maps a path a spec names inside its machine to the
// sandbox: relative, slash-separated, inside it. An absolute path must
// lie under home; a path that leaves the sandbox is refused.
func sandboxPath(home, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("expected a path in the sandbox, got an empty string")
	}
	rel := p
	if strings.HasPrefix(p, "/") {
		h := strings.TrimSuffix(home, "/")
		if p != h && !strings.HasPrefix(p, h+"/") {
			return "", fmt.Errorf("path %q is outside the sandbox (absolute paths must lie under %s, which is the sandbox's working directory)", p, h)
		}
		rel = strings.TrimPrefix(strings.TrimPrefix(p, h), "/")
	}
	rel = path.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("path %q is outside the sandbox", p)
	}
	return rel, nil
}

// builtinSetup lists the setup functions wasmeval performs itself.
var builtinSetup = []string{"upload_file_to_vm", "upload_file", "upload_script_and_execute", "execute", "command", "sleep"}

// setupStep turns a setup function call into steps in the sandbox: a
// built-in function's one step, or the steps a setup plugin's actions
// make (the first plugin in setup_plugins that declares the function).
func (l *suiteLoader) setupStep(s *Spec, st Step, errs *diag.List) ([]cases.SetupStep, bool) {
	if slices.Contains(builtinSetup, st.Func) {
		step, ok := l.builtinStep(s, st, errs)
		return []cases.SetupStep{step}, ok
	}
	for i, fns := range l.setupFns {
		if !slices.Contains(fns, st.Func) || l.runSetup == nil {
			continue
		}
		// A setup plugin's function: its actions become the steps, so
		// its logic stays in the sandbox of the plugin host and what it
		// does to the agent's sandbox is declared, not done.
		ref := l.setups[i]
		steps, err := l.runSetup(ref, st.Func, st.Arguments, s.ID, s.Instruction, s.Dir, st.At+" "+st.Func)
		if err != nil {
			errs.Add(s.File, st.At, 0, "setup function %s: %v", st.Func, err)
			return nil, false
		}
		return steps, true
	}
	errs.Add(s.File, st.At+".func", 0, "unknown setup function %q (wasmeval performs %s%s; steps that need a desktop, a browser or the network cannot run in its sandbox)", st.Func, strings.Join(builtinSetup, ", "), l.setupOffered())
	return nil, false
}

// builtinStep performs a built-in setup function's call as one step.
func (l *suiteLoader) builtinStep(s *Spec, st Step, errs *diag.List) (cases.SetupStep, bool) {
	out := cases.SetupStep{Name: st.At + " " + st.Func}
	arg := func(key string) (string, bool) {
		v, ok := st.Arguments[key]
		str, isStr := v.(string)
		if !ok || !isStr || str == "" {
			errs.Add(s.File, st.At+".arguments."+key, 0, "required: a string (%s needs %s)", st.Func, key)
			return "", false
		}
		return str, true
	}
	upload := func(localKey, remoteKey string) (string, bool) {
		local, ok1 := arg(localKey)
		remote, ok2 := arg(remoteKey)
		if !ok1 || !ok2 {
			return "", false
		}
		f, err := l.taskFile(s, local)
		if err != nil {
			errs.Add(s.File, st.At+".arguments."+localKey, 0, "%v", err)
		}
		rel, err2 := sandboxPath(l.home, remote)
		if err2 != nil {
			errs.Add(s.File, st.At+".arguments."+remoteKey, 0, "%v", err2)
		}
		if err != nil || err2 != nil {
			return "", false
		}
		f.Path = rel
		out.Files = append(out.Files, f)
		return rel, true
	}
	switch st.Func {
	case "upload_file_to_vm":
		_, ok := upload("local_path", "remote_path")
		return out, ok
	case "upload_file":
		// The list form: {files: [{local_path, path}]}.
		list, ok := st.Arguments["files"].([]any)
		if !ok {
			errs.Add(s.File, st.At+".arguments.files", 0, "required: a list of {local_path, path}")
			return out, false
		}
		good := true
		for i, item := range list {
			m, _ := item.(map[string]any)
			at := diag.IndexPath(st.At+".arguments.files", i)
			// Made as an upload_file_to_vm step of its own, whose
			// problems are then moved to the keys this item has.
			var mine diag.List
			one, ok := l.builtinStep(s, Step{Func: "upload_file_to_vm", Arguments: map[string]any{"local_path": m["local_path"], "remote_path": m["path"]}, At: at}, &mine)
			for _, e := range mine {
				e.Path = strings.NewReplacer(at+".arguments.local_path", at+".local_path", at+".arguments.remote_path", at+".path").Replace(e.Path)
			}
			*errs = append(*errs, mine...)
			good = good && ok
			out.Files = append(out.Files, one.Files...)
		}
		return out, good
	case "upload_script_and_execute":
		rel, ok := upload("local_path", "remote_path")
		if !ok {
			return out, false
		}
		out.Command = append(interpreter(rel), rel)
		return out, true
	case "execute", "command":
		switch c := st.Arguments["command"].(type) {
		case string:
			if strings.TrimSpace(c) == "" {
				break
			}
			out.Command = []string{"sh", "-c", l.inSandbox(c)}
			return out, true
		case []any:
			for i, w := range c {
				s2, ok := w.(string)
				if !ok {
					errs.Add(s.File, diag.IndexPath(st.At+".arguments.command", i), 0, "expected a string, got %s", diag.DescribeJSON(w))
					return out, false
				}
				out.Command = append(out.Command, l.inSandbox(s2))
			}
			if len(out.Command) > 0 {
				if shell, _ := st.Arguments["shell"].(bool); shell {
					out.Command = []string{"sh", "-c", strings.Join(out.Command, " ")}
				}
				return out, true
			}
		}
		errs.Add(s.File, st.At+".arguments.command", 0, "required: the command, a string (run by sh) or a list of words")
		return out, false
	case "sleep":
		secs, ok := number(st.Arguments["seconds"])
		if !ok || secs < 0 || secs > 60 {
			errs.Add(s.File, st.At+".arguments.seconds", 0, "expected a number of seconds between 0 and 60")
			return out, false
		}
		out.Command = []string{"sleep", fmt.Sprint(secs)}
		return out, true
	}
	return out, false
}

// setupOffered names the setup plugins' functions, for messages.
func (l *suiteLoader) setupOffered() string {
	var all []string
	for _, fns := range l.setupFns {
		all = append(all, fns...)
	}
	if len(all) == 0 {
		return ""
	}
	return "; its setup_plugins offer " + strings.Join(all, ", ")
}

// interpreter is the command a script is run with, by its extension.
func interpreter(rel string) []string {
	switch path.Ext(rel) {
	case ".py":
		return []string{"python3"}
	case ".sh", "":
		return []string{"sh"}
	}
	return []string{"sh"}
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case interface{ Float64() (float64, error) }:
		f, err := t.Float64()
		return f, err == nil
	case float64:
		return t, true
	}
	return 0, false
}

// inSandbox rewrites the machine paths a command names under vm_home
// (/home/user/out.csv, /home/user) to the sandbox, its working
// directory (./out.csv, .): specs write absolute paths of the machine
// they were made for, and on the local runtime those would name the
// host's own files.
func (l *suiteLoader) inSandbox(cmd string) string {
	home := strings.TrimSuffix(l.home, "/")
	if home == "" || !strings.Contains(cmd, home) {
		return cmd
	}
	var b strings.Builder
	for {
		i := strings.Index(cmd, home)
		if i < 0 {
			b.WriteString(cmd)
			return b.String()
		}
		end := i + len(home)
		// Only the whole path component: /home/username is not under
		// /home/user, nor is /x/home/user.
		startOK := i == 0 || !isPathByte(cmd[i-1])
		next := byte(0)
		if end < len(cmd) {
			next = cmd[end]
		}
		if !startOK || (next != 0 && next != '/' && isPathByte(next)) {
			b.WriteString(cmd[:end])
			cmd = cmd[end:]
			continue
		}
		b.WriteString(cmd[:i])
		b.WriteString(".")
		cmd = cmd[end:]
	}
}

// isPathByte says whether c may continue a path component.
func isPathByte(c byte) bool {
	return c == '/' || c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
