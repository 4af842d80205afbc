package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// mountedProblem is a problem whose one case prints a file its
// submission reads from /data, which an environment spec mounts from a
// directory outside the problem (shared, returned); spec is that spec.
func mountedProblem(t *testing.T, image, value string, writable bool) (prob, sub, shared, spec string) {
	t.Helper()
	root := writeTree(t, map[string]string{
		"problem/config.yaml": "name: mounted\nversion: 1\nentry_file: show.py\ncommand: python3 {entry_file}\nadapter: {type: cli}\ntimeout: 60\n" +
			"checkpoints:\n  c1:\n    groups:\n      g1: {type: Core}\n",
		"problem/c1/g1.yaml": "read:\n  arguments: [/data/value.txt]\n  expected: {status_code: 0, output: \"" + value + "\\n\"}\n",
		"sub/show.py":        "import sys\nprint(open(sys.argv[1]).read().strip())\n",
		"shared/value.txt":   value + "\n",
	})
	rw := ""
	if writable {
		rw = "\n    writable: true"
	}
	spec = writeSpec(t, "runtime: docker\nimage: "+image+"\nmemory: 256MiB\nmounts:\n  - source: "+filepath.Join(root, "shared")+"\n    target: /data"+rw+"\n")
	return filepath.Join(root, "problem"), filepath.Join(root, "sub"), filepath.Join(root, "shared"), spec
}

// The directory an environment spec mounts from outside the problem (under
// the coordinator's --mount-root) travels by digest: a Docker worker
// without that directory or the mount root mounts its copy, and the case
// reads what the coordinator's machine holds. A writable mount is refused
// before anything is handed out: each worker would write to a copy.
func TestDistributedRunSendsMountSources(t *testing.T) {
	image := dockertest.Image(t, "python")
	srv := natstest.Start(t)
	dock := startProc(t, "worker", "--queue", srv.URL(), "--slots", "1", "--name", "dock", "--runtime", "docker", "--cache", t.TempDir())
	waitUntil(t, "the worker serves", func() bool { return strings.Contains(dock.out.String(), "serving") })

	prob, sub, shared, spec := mountedProblem(t, image, "mounted-41", false)
	out := filepath.Join(t.TempDir(), "run")
	coord := startProc(t, "run", prob, "--submission", sub, "--env", spec, "--mount-root", shared, "--queue", srv.URL(),
		"--progress", "none", "--out", out, "--no-history")
	if code := coord.wait(t, "the coordinator"); code != 0 {
		t.Fatalf("run exited %d:\n%s\nworker:\n%s", code, coord.out, dock.out)
	}
	eachCaseOnce(t, out, 1, result.OutcomePassed)

	prob, sub, shared, spec = mountedProblem(t, image, "mounted-42", true)
	coord = startProc(t, "run", prob, "--submission", sub, "--env", spec, "--mount-root", shared, "--queue", srv.URL(),
		"--progress", "none", "--out", filepath.Join(t.TempDir(), "rw"), "--no-history")
	code := coord.wait(t, "the coordinator of a writable mount")
	if code != exitUsage || !strings.Contains(coord.out.String(), "mounts[0] ("+shared) ||
		!strings.Contains(coord.out.String(), "is writable: a distributed run's workers would each write to a copy of it") {
		t.Errorf("run with a writable mount exited %d, want %d and the mount named with why:\n%s", code, exitUsage, coord.out)
	}
}
