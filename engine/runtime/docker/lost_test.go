package docker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// A case runs for long enough that only the container's fate can end it,
// and says it has started by writing a marker into the workspace: the
// tests act on the container only once the marker is there, whatever the
// load on the machine.
const (
	marker     = "case-started"
	longCase   = "touch " + marker + "; sleep 600"
	caseLimit  = 5 * time.Minute
	startLimit = 2 * time.Minute
)

// runningContainer is the ID of the run's one running container (the
// session's), found by the run label every container carries.
func runningContainer(t *testing.T, rt *docker.Runtime) string {
	t.Helper()
	cs, err := dockertest.Client(t).ContainerList(context.Background(), container.ListOptions{
		Filters: filters.NewArgs(filters.Arg("label", docker.LabelRun+"="+rt.RunID()))})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("%d running containers of the run, want 1", len(cs))
	}
	return cs[0].ID
}

// whenStarted runs do on the session's container once the running case
// has written its marker; the returned channel reports how that went.
func whenStarted(t *testing.T, rt *docker.Runtime, s runtime.Session, do func(ctx context.Context, id string) error) <-chan error {
	id := runningContainer(t, rt)
	done := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(startLimit)
		for {
			if _, err := os.Stat(filepath.Join(s.Workdir(), marker)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				done <- errors.New("the case did not start within " + startLimit.String())
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		done <- do(context.Background(), id)
	}()
	return done
}

// assertGoesOn checks that the session runs a case normally after its
// container was lost mid-case, in a new container, with the workspace
// restored to the submission.
func assertGoesOn(t *testing.T, rt *docker.Runtime, s runtime.Session, old string) {
	t.Helper()
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"sh", "-c", "cat given.txt; ls"}, Env: env(s), Timeout: caseLimit})
	if err != nil || res.ExitCode != 0 || string(res.Stdout) != "given\ngiven.txt\n" {
		t.Fatalf("the case after: %+v stdout %q stderr %q err %v", res, res.Stdout, res.Stderr, err)
	}
	if id := runningContainer(t, rt); id == old {
		t.Errorf("still container %.12s", id)
	}
}

func TestContainerLostMidCaseIsAnError(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"given.txt": "given\n"}, nil)
	cli := dockertest.Client(t)
	for _, tc := range []struct {
		name string
		do   func(ctx context.Context, id string) error
		argv []string // the case (default: longCase)
		want []string // patterns the error must match
	}{
		{name: "docker kill", do: func(ctx context.Context, id string) error { return cli.ContainerKill(ctx, id, "KILL") },
			want: []string{"stopped during the case", "exit status 137", "SIGKILL", "through the Docker API with signal 9"}},
		{name: "docker stop", do: func(ctx context.Context, id string) error {
			return cli.ContainerStop(ctx, id, container.StopOptions{})
		}, want: []string{"stopped during the case", "exit status 143", "SIGTERM", "through the Docker API with signal 15"}},
		// Seen while it is down, or once it is up again.
		{name: "docker restart", do: func(ctx context.Context, id string) error {
			return cli.ContainerRestart(ctx, id, container.StopOptions{})
		}, want: []string{"(restarted|stopped) during the case"}},
		// Seen while it is being removed, or once it is gone.
		{name: "docker rm -f", do: func(ctx context.Context, id string) error {
			return cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true})
		}, want: []string{"(removed|stopped) during the case", "through the Docker API with signal 9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := runningContainer(t, rt)
			argv := tc.argv
			acted := make(<-chan error)
			if tc.do != nil {
				argv = []string{"sh", "-c", longCase}
				acted = whenStarted(t, rt, s, tc.do)
			}
			start := time.Now()
			res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: argv, Env: env(s), Timeout: caseLimit})
			if tc.do != nil {
				if aerr := <-acted; aerr != nil {
					t.Fatal(aerr)
				}
			}
			if err == nil {
				t.Fatalf("no error: %+v", res)
			}
			t.Log(err)
			for _, w := range tc.want {
				if !regexp.MustCompile(w).MatchString(err.Error()) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), "new container") {
				t.Errorf("error %q does not say the group goes on", err)
			}
			if el := time.Since(start); el > startLimit+time.Minute {
				t.Errorf("the case took %v", el)
			}
			if _, err := os.Stat(filepath.Join(s.Workdir(), marker)); !os.IsNotExist(err) {
				t.Errorf("the workspace was not restored: %v", err)
			}
			assertGoesOn(t, rt, s, old)
		})
	}
}

// A case can end its own container: its processes run as the container's
// main process does. The daemon's events say nobody asked it to stop the
// container, so it is the case's doing — an answer, as a tree that killed
// itself is, never an error a submission could use to hide a wrong
// answer. The group goes on in a new container.
func TestCaseEndingItsContainerIsAnAnswer(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"given.txt": "given\n"}, nil)
	old := runningContainer(t, rt)
	// On the executor, the container's main process is its PID 1, which
	// only the stop signals end from inside.
	argv := []string{"python3", "-c", `import os, signal, time
os.kill(1, signal.SIGTERM)
time.sleep(600)
`}
	if !docker.ByExecutor(s) {
		argv = []string{"python3", "-c", `import os, signal, time
for p in os.listdir("/proc"):
    try:
        if p.isdigit() and b"2147483647" in open("/proc/%s/cmdline" % p, "rb").read():
            os.kill(int(p), signal.SIGKILL)
    except OSError:
        pass
time.sleep(600)
`}
	}
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: argv, Env: env(s), Timeout: caseLimit})
	if err != nil {
		t.Fatalf("an error: %v", err)
	}
	if res.ExitCode != 137 || res.TimedOut || !strings.Contains(string(res.Stderr), "stopped during the case") ||
		!strings.Contains(string(res.Stderr), "not through the Docker API") {
		t.Errorf("result %+v, stderr %q", res, res.Stderr)
	}
	assertGoesOn(t, rt, s, old)
}

func TestContainerKilledMidCaseIsAnAdapterError(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"given.txt": "given\n"}, nil)
	cli := dockertest.Client(t)
	old := runningContainer(t, rt)
	acted := whenStarted(t, rt, s, func(ctx context.Context, id string) error { return cli.ContainerKill(ctx, id, "KILL") })
	a := &adapter.CLI{Command: []string{"sh", "-c", longCase}}
	x, err := a.Run(context.Background(), s, &cases.Case{ID: "killed", Timeout: caseLimit})
	if aerr := <-acted; aerr != nil {
		t.Fatal(aerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	rec := result.CaseRecord{ID: "killed", Case: &result.CaseInfo{}, Result: x}
	result.Classification{}.Classify(&rec)
	if rec.Outcome != result.OutcomeError || rec.ErrorKind != result.ErrorAdapter {
		t.Errorf("outcome %s (%s), want error (adapter): %+v", rec.Outcome, rec.ErrorKind, x)
	}
	if !x.AdapterError || !strings.Contains(x.Error, "stopped during the case (exit status 137") {
		t.Errorf("execution %+v", x)
	}
	assertGoesOn(t, rt, s, old)
}

func TestContainerStoppedBetweenCasesIsAnError(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"given.txt": "given\n"}, nil)
	old := runningContainer(t, rt)
	if err := dockertest.Client(t).ContainerKill(context.Background(), old, "KILL"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"true"}, Env: env(s), Timeout: caseLimit})
	if err == nil || !strings.Contains(err.Error(), "stopped before the case could start") {
		t.Fatalf("got %v", err)
	}
	assertGoesOn(t, rt, s, old)
}

func TestCaseKillingItselfIsAnAnswer(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"given.txt": "given\n"}, nil)
	old := runningContainer(t, rt)
	parent := []string{"sh", "-c", "kill -9 $PPID; sleep 600"} // the wrapper, the case's root
	if docker.ByExecutor(s) {
		// The executor, PID 1, which SIGKILL from inside does not reach.
		parent = []string{"sh", "-c", "kill -9 $PPID; kill -9 $$"}
	}
	for _, argv := range [][]string{{"sh", "-c", "kill -9 $$"}, parent} {
		res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: argv, Env: env(s), Timeout: caseLimit})
		if err != nil || res.ExitCode != 137 || res.Signal != "killed" || res.OOMKilled || res.TimedOut {
			t.Errorf("%q: %+v %v", argv[2], res, err)
		}
		x, err := (&adapter.CLI{Command: argv}).Run(context.Background(), s, &cases.Case{ID: "self", Timeout: caseLimit})
		if err != nil || x.AdapterError || x.StatusCode != 137 {
			t.Errorf("%q through the adapter: %+v %v", argv[2], x, err)
		}
	}
	if id := runningContainer(t, rt); id != old {
		t.Errorf("the container was replaced")
	}
}
