package docker_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/envspec"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
)

// Submissions that go after the way cases run (on the executor: its
// stream, its stdin, the executor itself, the process table): each is
// contained and reported on its own case, and the next case runs in a
// healthy container — the same one, since nothing of it was harmed.
func TestBadInputIsContainedOnItsCase(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, func(s *envspec.Spec) { s.Pids = 64 }))
	s := openSession(t, rt, nil, nil)
	for _, tc := range []struct {
		name string
		// executorOnly: on the exec path PID 1 is tini, which passes
		// signals on to the container's main process.
		executorOnly bool
		req          runtime.ExecRequest
		check        func(t *testing.T, res runtime.ExecResult)
	}{
		{name: "floods the stream", req: runtime.ExecRequest{
			Argv:      []string{"sh", "-c", "head -c 200000000 /dev/zero; head -c 50000000 /dev/zero >&2; echo done >&2"},
			OutputCap: 1000,
		}, check: func(t *testing.T, res runtime.ExecResult) {
			if res.ExitCode != 0 || len(res.Stdout) != 1000 || res.StdoutDropped != 200000000-1000 ||
				len(res.Stderr) != 1000 || res.StderrDropped != 50000005-1000 {
				t.Errorf("exit %d, stdout %d kept %d dropped, stderr %d kept %d dropped", res.ExitCode, len(res.Stdout), res.StdoutDropped, len(res.Stderr), res.StderrDropped)
			}
		}},
		{name: "closes stdin", req: runtime.ExecRequest{
			Argv:  []string{"sh", "-c", "exec 0<&-; echo closed"},
			Stdin: bytes.Repeat([]byte("x"), 8<<20),
		}, check: func(t *testing.T, res runtime.ExecResult) {
			if res.ExitCode != 0 || string(res.Stdout) != "closed\n" {
				t.Errorf("%+v %q", res, res.Stderr)
			}
		}},
		{name: "kill -9 -1", req: runtime.ExecRequest{
			// kill(-1) spares its caller, which then ends itself.
			Argv: []string{"sh", "-c", "sleep 600 & kill -9 -1; kill -9 $$"},
		}, check: func(t *testing.T, res runtime.ExecResult) {
			if res.ExitCode != 137 || res.Signal != "killed" || res.TimedOut {
				t.Errorf("%+v %q", res, res.Stderr)
			}
		}},
		{name: "signals PID 1", executorOnly: true, req: runtime.ExecRequest{
			Argv: []string{"sh", "-c", "kill -KILL 1; kill -STOP 1; kill -USR1 1; kill -SEGV 1; echo survived"},
		}, check: func(t *testing.T, res runtime.ExecResult) {
			if res.ExitCode != 0 || string(res.Stdout) != "survived\n" {
				t.Errorf("%+v %q", res, res.Stderr)
			}
		}},
		{name: "forks until the pids limit", req: runtime.ExecRequest{
			Argv: []string{"python3", "-c", `import os, time
n = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(600)
        os._exit(0)
    n += 1
print("full", n > 40, flush=True)
`},
		}, check: func(t *testing.T, res runtime.ExecResult) {
			if res.ExitCode != 0 || string(res.Stdout) != "full True\n" {
				t.Errorf("%+v %q %q", res, res.Stdout, res.Stderr)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.executorOnly && !docker.ByExecutor(s) {
				t.Skip("the exec path's PID 1 passes signals on")
			}
			before := runningContainer(t, rt)
			tc.req.Env, tc.req.Timeout = env(s), 2*time.Minute
			res, err := s.Exec(context.Background(), tc.req)
			if err != nil {
				t.Fatalf("an error, not an answer: %v", err)
			}
			tc.check(t, res)
			res, err = s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "-c", "print('alive')"}, Env: env(s), Timeout: 2 * time.Minute})
			if err != nil || string(res.Stdout) != "alive\n" {
				t.Fatalf("the next case: %+v %v", res, err)
			}
			if n := containerTasks(t, s); n != 0 {
				t.Errorf("the container holds %d tasks besides its own after the case", n)
			}
			if n, ok := docker.Tasks(s); ok && n != 0 {
				t.Errorf("the host counts %d tasks in the container besides its own", n)
			}
			if after := runningContainer(t, rt); after != before && docker.ByExecutor(s) {
				t.Errorf("the container was replaced")
			}
		})
	}
}
