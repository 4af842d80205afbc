package adapter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// Recorded scores results another agent framework already produced: a
// case's output is the result file recorded for its task, and nothing
// runs. A task with no recorded result is the case's error ("missing"),
// never skipped; RecordedFiles lists the files no task claims.
//
// In the directory layout, <task name>/sandbox/ holds what the agent left
// in its sandbox: the case's tracked files are read from it, and test
// functions read it as they read a live sandbox (Sandbox).
type Recorded struct {
	// Dir holds one result per task: <task name>.json, or
	// <task name>/result.json.
	Dir string
	// MaxFileBytes caps each tracked file (DefaultMaxFileBytes when 0).
	MaxFileBytes int64
}

// RecordedSandbox is the directory, beside a task's result.json, that
// holds the files the agent left in its sandbox.
const RecordedSandbox = "sandbox"

// Sandbox is the recorded sandbox of c's task, "" when none was recorded.
func (a *Recorded) Sandbox(c *cases.Case) string {
	name := recordedName(c)
	if !validName(name) {
		return ""
	}
	// The sandbox, and the task directory holding it, must lie in the
	// results directory, symlinks resolved: files are read from it into
	// verdicts and reports, so a sandbox that is a link to / would put
	// the host's files there.
	t, err := confine.New(a.Dir)
	if err != nil {
		return ""
	}
	rel := filepath.Join(name, RecordedSandbox)
	if st, err := t.Stat(rel); err != nil || !st.IsDir() {
		return ""
	}
	dir, err := t.Resolve(rel)
	if err != nil {
		return ""
	}
	return dir
}

func recordedName(c *cases.Case) string {
	if c.Task != nil && c.Task.Name != "" {
		return c.Task.Name
	}
	return c.ID
}

// validName says whether a task name can name its result file: one
// plain path component (problem.CheckName), so no name reaches outside
// the results directory.
func validName(name string) bool { return problem.CheckName(name) == nil }

// RecordedPaths are the files, relative to the results directory, where
// the result of the task named name may be, in the order they are tried.
func RecordedPaths(name string) []string {
	return []string{name + ".json", filepath.Join(name, "result.json")}
}

// Run implements Adapter.
func (a *Recorded) Run(ctx context.Context, sess runtime.Session, c *cases.Case) (result.Execution, error) {
	out, _ := a.Read(c)
	return out, nil
}

// Read is Run that also returns the result as parsed (nil when the case
// has none), so a caller that checks it need not parse it again.
func (a *Recorded) Read(c *cases.Case) (result.Execution, *agent.Result) {
	name := recordedName(c)
	out := result.Execution{Command: []string{"recorded", a.Dir}}
	fail := func(format string, args ...any) (result.Execution, *agent.Result) {
		out.AdapterError = true
		out.StatusCode = -1
		out.Error = fmt.Sprintf(format, args...)
		return out, nil
	}
	if !validName(name) {
		return fail("task name %q cannot name a result file", name)
	}
	var tried []string
	paths := RecordedPaths(name)
	for i, rel := range paths {
		p := filepath.Join(a.Dir, rel)
		data, err := a.readResultFile(rel)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENAMETOOLONG) {
			// A name of 255 bytes has no room for ".json": its result
			// can only be <name>/result.json.
			tried = append(tried, p)
			continue
		}
		for _, other := range paths[i+1:] {
			// Two results for one task: which one is the agent's is not
			// wasmeval's to guess.
			if st, serr := os.Lstat(filepath.Join(a.Dir, other)); serr == nil && !st.IsDir() {
				return fail("two recorded results for task %s: %s and %s; keep one", name, p, filepath.Join(a.Dir, other))
			}
		}
		out.Command = []string{"recorded", p}
		if err != nil {
			return fail("recorded result %s: %v", p, err)
		}
		out.Output = string(data)
		r := takeResult(&out, p)
		if r != nil && r.ElapsedSeconds != nil {
			out.Elapsed = *r.ElapsedSeconds
		}
		if r != nil && len(c.TrackedFiles) > 0 {
			out.Files = map[string]any{}
			if box := a.Sandbox(c); box != "" {
				max := a.MaxFileBytes
				if max <= 0 {
					max = DefaultMaxFileBytes
				}
				files, err := workspace.ReadTracked(box, c.TrackedFiles, max)
				if err != nil {
					out.AdapterError = true
					out.Error = fmt.Sprintf("recorded sandbox %s: %v", box, err)
					return out, nil
				}
				out.Files = files
			}
		}
		return out, r
	}
	return fail("missing: no recorded result for task %s (looked for %s)", name, strings.Join(tried, " and "))
}

// readResultFile reads the regular file rel of the results directory, of
// at most DefaultAgentResultBytes. A symlink is followed inside the
// directory only (one to /etc/passwd would put the host's file in the
// error and the reports), and only a regular file is opened: a FIFO or a
// device would block or never end (confine's rules).
func (a *Recorded) readResultFile(rel string) ([]byte, error) {
	t, err := confine.New(a.Dir)
	if err != nil {
		return nil, err
	}
	st, err := t.Stat(rel)
	if err != nil {
		var esc *confine.EscapeError
		if errors.As(err, &esc) {
			return nil, fmt.Errorf("a symlink that leads out of the results directory %s", a.Dir)
		}
		return nil, err
	}
	if st.IsDir() {
		return nil, fs.ErrNotExist
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if st.Size() > DefaultAgentResultBytes {
		return nil, fmt.Errorf("%d bytes, over the size limit of %s; make the agent write less", st.Size(), agent.HumanBytes(DefaultAgentResultBytes))
	}
	return t.ReadFileMax(rel, DefaultAgentResultBytes+1)
}

// RecordedFiles lists the result files in dir that none of the task names
// claims (see RecordedPaths), so a result for an unknown task is
// reported rather than ignored.
func RecordedFiles(dir string, names []string) (unclaimed []string, err error) {
	claimed := map[string]bool{}
	for _, n := range names {
		for _, rel := range RecordedPaths(n) {
			claimed[filepath.ToSlash(rel)] = true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		switch {
		case e.IsDir():
			rel := e.Name() + "/result.json"
			if _, err := os.Stat(filepath.Join(dir, rel)); err == nil && !claimed[rel] {
				unclaimed = append(unclaimed, rel)
			}
		case strings.HasSuffix(e.Name(), ".json") && !claimed[e.Name()]:
			unclaimed = append(unclaimed, e.Name())
		}
	}
	return unclaimed, nil
}
