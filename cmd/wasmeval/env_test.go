package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// containers counts the containers a process (a CLI run) made.
func containers(t *testing.T, pid int) int {
	t.Helper()
	cs, err := dockertest.Client(t).ContainerList(context.Background(), container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", docker.LabelManaged+"=true"))})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cs {
		if c.Labels[docker.LabelPID] == strconv.Itoa(pid) {
			n++
		}
	}
	return n
}

func writeSpec(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "env.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunOnDockerKeepsSetupApartAndLeavesNothing(t *testing.T) {
	image := dockertest.Image(t, "python")
	spec := writeSpec(t, "image: "+image+"\nmemory: 256MiB\nsetup: [\"echo setting up; python3 --version\"]\n")
	out := t.TempDir()
	cmd := exec.Command(binary, "run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/reference",
		"--env", spec, "--out", out, "--progress", "none", "--jobs", "2")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reference on docker: %v\n%s", err, b)
	}
	if n := containers(t, cmd.Process.Pid); n != 0 {
		t.Errorf("%d containers left behind", n)
	}
	recs := readJournal(t, out)
	if len(recs) == 0 {
		t.Fatal("no cases ran")
	}
	for _, r := range recs {
		if !r.Passed || strings.Contains(r.Result.Output, "setting up") {
			t.Errorf("%s: passed=%v output %q", r.Key(), r.Passed, r.Result.Output)
		}
	}
	// The manifest says where the cases ran and pins the image by digest.
	var man struct {
		Runtime struct {
			Name   string            `json:"name"`
			Images map[string]string `json:"images"`
		} `json:"runtime"`
	}
	if data, err := os.ReadFile(filepath.Join(out, "manifest.json")); err != nil || json.Unmarshal(data, &man) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if man.Runtime.Name != "docker" || !strings.HasPrefix(man.Runtime.Images[image], "sha256:") {
		t.Errorf("manifest runtime %+v", man.Runtime)
	}
	logs, _ := filepath.Glob(filepath.Join(out, "setup", "*.log"))
	if len(logs) == 0 {
		t.Fatal("no setup logs")
	}
	if b, _ := os.ReadFile(logs[0]); !strings.Contains(string(b), "setting up") || !strings.Contains(string(b), "Python 3") {
		t.Errorf("setup log: %q", b)
	}
	cmd = exec.Command(binary, "run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/broken",
		"--env", spec, "--out", t.TempDir(), "--progress", "none")
	b, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("broken on docker: %v\n%s", err, b)
	}
	if n := containers(t, cmd.Process.Pid); n != 0 {
		t.Errorf("a failing run left %d containers behind", n)
	}
}

func TestBadEnvironmentFailsBeforeAnyCase(t *testing.T) {
	dockertest.Client(t)
	outside := t.TempDir()
	cases := []struct {
		spec, want string
		env        []string
	}{
		{"image: x\ncpus: lots\n", "cpus: expected", nil},
		{"image: x\nmounts:\n  - {source: " + outside + ", target: /d}\n", "outside the allowed mount roots", nil},
		{"image: wasmeval/no-such-image:0\n", `"wasmeval/no-such-image:0" does not exist`, nil},
		{"image: " + dockertest.Image(t, "busybox") + "\n", "not reachable", []string{"DOCKER_HOST=unix:///nonexistent.sock"}},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(binary, "run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/reference",
			"--env", writeSpec(t, c.spec), "--out", out, "--progress", "none")
		cmd.Env = append(os.Environ(), c.env...)
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(b), c.want) || strings.Contains(string(b), "goroutine") {
			t.Errorf("%q: exit %v, output:\n%s\nwant %q", c.spec, err, b, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%q: output directory created for a run that never started", c.spec)
		}
	}
	if res := wasmeval(t, "run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/reference", "--runtime", "docker"); res.code != 2 || !strings.Contains(res.stderr, "needs an environment spec") {
		t.Errorf("--runtime docker without a spec: %d %s", res.code, res.stderr)
	}
}

func TestEnvCheck(t *testing.T) {
	image := dockertest.Image(t, "busybox")
	res := wasmeval(t, "env", "check", "--env", writeSpec(t, "image: "+image+"\n"))
	if res.code != 0 || !strings.Contains(res.stdout, "version:") || !strings.Contains(res.stdout, image+" (present)") ||
		!strings.Contains(res.stdout, "cases:   this binary, as each container's PID 1") {
		t.Errorf("check: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = wasmeval(t, "env", "check", "--env", writeSpec(t, "image: wasmeval/none:0\n"))
	if res.code != 1 || !strings.Contains(res.stderr, `image "wasmeval/none:0" does not exist`) {
		t.Errorf("missing image: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	cmd := exec.Command(binary, "env", "check")
	cmd.Env = append(os.Environ(), "DOCKER_HOST=unix:///nonexistent.sock")
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(b), "is not reachable") {
		t.Errorf("unreachable engine: %v\n%s", err, b)
	}
}

// Ctrl-C removes the run's containers; a run killed outright leaves its
// container, which `env clean` finds by label and removes.
func TestInterruptAndCleanLeaveNoContainers(t *testing.T) {
	image := dockertest.Image(t, "busybox")
	prob, sub := shProblem(t, "sleep 60\n", map[string]string{"a": "arguments: []\nexpected: {output: \"\"}\n"}, "")
	spec := writeSpec(t, "image: "+image+"\n")
	for _, sig := range []os.Signal{os.Interrupt, os.Kill} {
		cmd := exec.Command(binary, "run", prob, "--submission", sub, "--env", spec, "--out", t.TempDir(), "--progress", "lines")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the group's container is up.
		deadline := time.Now().Add(2 * time.Minute)
		for containers(t, cmd.Process.Pid) == 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if containers(t, cmd.Process.Pid) == 0 {
			t.Fatal("no container started")
		}
		time.Sleep(time.Second)
		cmd.Process.Signal(sig)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
			}
		}()
		cmd.Wait()
		if sig == os.Interrupt {
			if n := containers(t, cmd.Process.Pid); n != 0 {
				t.Errorf("Ctrl-C left %d containers", n)
			}
			continue
		}
		if containers(t, cmd.Process.Pid) == 0 {
			t.Fatal("a killed run left nothing to clean (test cannot tell)")
		}
		workDirs := filepath.Join(os.TempDir(), fmt.Sprintf("wasmeval-work-%d-*", cmd.Process.Pid))
		if left, _ := filepath.Glob(workDirs); len(left) != 1 {
			t.Fatalf("the killed run's work directory: %v", left)
		}
		res := wasmeval(t, "env", "clean")
		if res.code != 0 || !strings.Contains(res.stdout, "removed container") || !strings.Contains(res.stdout, "removed work directory") {
			t.Errorf("clean: %d %s %s", res.code, res.stdout, res.stderr)
		}
		if n := containers(t, cmd.Process.Pid); n != 0 {
			t.Errorf("after clean, %d of the killed run's containers left", n)
		}
		if left, _ := filepath.Glob(workDirs); len(left) != 0 {
			t.Errorf("after clean, the killed run's work directory is left: %v", left)
		}
	}
}
