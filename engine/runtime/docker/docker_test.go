package docker_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/wasmeval/wasmeval/engine/envspec"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

func newRuntime(t *testing.T, spec *envspec.Spec) *docker.Runtime {
	t.Helper()
	rt, err := docker.New(context.Background(), docker.Options{Spec: spec, BaseDir: t.TempDir(), Client: dockertest.Client(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rt.Close()
		assertNoContainers(t, rt.RunID())
	})
	// The tests run on the executor unless told to run on the exec path;
	// a test binary that cannot serve as executor is a failure, not a
	// silent fallback.
	if want := os.Getenv(docker.ExecPerCaseEnv) != "exec"; rt.UsesExecutor() != want {
		t.Fatalf("cases run by the executor: %v, want %v (%s)", rt.UsesExecutor(), want, rt.Note())
	}
	return rt
}

// assertNoContainers fails when anything labelled with the run is left.
func assertNoContainers(t *testing.T, run string) {
	t.Helper()
	cs, err := dockertest.Client(t).ContainerList(context.Background(), container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", docker.LabelRun+"="+run))})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) > 0 {
		t.Errorf("%d containers of run %s left behind", len(cs), run)
	}
}

func openSession(t *testing.T, rt *docker.Runtime, files map[string]string, assets map[string]string) runtime.Session {
	t.Helper()
	sub := t.TempDir()
	for p, c := range files {
		full := filepath.Join(sub, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "cp/group one", StaticAssets: assets})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pythonSpec(t *testing.T, mutate func(*envspec.Spec)) *envspec.Spec {
	spec := dockertest.Spec(t, dockertest.Image(t, "python"))
	if mutate != nil {
		mutate(spec)
	}
	return spec
}

// env is what the CLI adapter passes: the host's PATH and workspace.
func env(s runtime.Session) map[string]string {
	return map[string]string{"PATH": os.Getenv("PATH"), "HOME": s.Workdir(), "TMPDIR": s.Workdir(), "A": "1"}
}

func TestExecBasics(t *testing.T) {
	asset := filepath.Join(t.TempDir(), "cat.csv")
	os.WriteFile(asset, []byte("id,name\n1,cat\n"), 0o644)
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{
		"run.py": "import os,sys\nprint('args:' + ' '.join(sys.argv[1:]))\nprint(sys.stdin.read(), end='')\nprint(os.environ['HOME'], os.environ['A'], os.getcwd())\nprint(open(sys.argv[2]).read(), end='')\nopen('out.txt','w').write('made')\nprint('oops', file=sys.stderr)\nsys.exit(3)\n",
	}, map[string]string{"catalog": asset})
	p, ok := s.StaticPath("catalog")
	if !ok || p != "/static/catalog/cat.csv" {
		t.Fatalf("static path %q %v", p, ok)
	}
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "run.py", "a b", p}, Env: env(s), Stdin: []byte("from stdin\n"), Timeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "args:a b /static/catalog/cat.csv\nfrom stdin\n/workspace 1 /workspace\nid,name\n1,cat\n"
	if string(res.Stdout) != want || string(res.Stderr) != "oops\n" || res.ExitCode != 3 || res.TimedOut || res.Signal != "" {
		t.Fatalf("got %+v (stdout %q stderr %q)", res, res.Stdout, res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(s.Workdir(), "out.txt")); err != nil || string(b) != "made" {
		t.Errorf("file written in the container not in the workspace: %q %v", b, err)
	}
	// Static assets are read-only.
	res, err = s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"sh", "-c", "echo x > " + p}, Env: env(s), Timeout: 10 * time.Second})
	if err != nil || res.ExitCode == 0 {
		t.Errorf("writing a static asset: %+v %v", res, err)
	}
	// Reset restores the submission in place.
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err = s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"ls", "-a"}, Env: env(s), Timeout: 10 * time.Second})
	if err != nil || strings.Fields(string(res.Stdout))[2] != "run.py" || len(strings.Fields(string(res.Stdout))) != 3 {
		t.Errorf("after reset: %q %v", res.Stdout, err)
	}
}

func TestExecEnvironmentIsExactlyTheRequest(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, func(s *envspec.Spec) { s.Env = map[string]string{"FROM_SPEC": "yes"} }))
	s := openSession(t, rt, nil, nil)
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "-c", "import os; print(' '.join(sorted(os.environ)))"}, Env: env(s), Timeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != "A FROM_SPEC HOME PATH TMPDIR" {
		t.Errorf("environment: %q (stderr %s)", got, res.Stderr)
	}
}

func TestExecStartErrors(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"data.txt": "x", "noshebang": "echo hi\n"}, nil)
	os.Chmod(filepath.Join(s.Workdir(), "data.txt"), 0o644)
	for argv, want := range map[string]string{"no-such-program-xyz": "not found", "./missing.sh": "no such file", "./data.txt": "not an executable",
		"./noshebang": "not a program this system can run (exec format error): a script needs a first line naming its interpreter, such as #!/bin/sh"} {
		_, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{argv}, Env: env(s), Timeout: 10 * time.Second})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error with %q, got %v", argv, want, err)
		}
	}
	// An image program that busybox also provides runs the image's.
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "--version"}, Env: env(s), Timeout: 10 * time.Second})
	if err != nil || !strings.HasPrefix(string(res.Stdout), "Python 3") {
		t.Errorf("python3 --version: %q %v", res.Stdout, err)
	}
}

// psCount counts processes in the container whose command line holds
// marker (given in two halves, so the counting process does not match).
func psCount(t *testing.T, sess runtime.Session, marker string) int {
	t.Helper()
	h := len(marker) / 2
	res, err := sess.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "-c", `import os, sys
m = sys.argv[1] + sys.argv[2]
n = 0
for p in os.listdir("/proc"):
    try:
        if p.isdigit() and m in open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode() and "Z" not in open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()[0]:
            n += 1
    except OSError:
        pass
print(n)
`, marker[:h], marker[h:]},
		Env: env(sess), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscan(string(res.Stdout), &n); err != nil {
		t.Fatalf("count processes: %q %q", res.Stdout, res.Stderr)
	}
	return n
}

func TestTimeoutKillsWholeTreeIncludingEscapees(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"tree.py": `import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(1000)  # tree-marker-grandchild
    time.sleep(1000)
print("started", flush=True)
time.sleep(1000)
`}, nil)
	start := time.Now()
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "tree.py", "tree-marker"}, Env: env(s), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal != "killed" || string(res.Stdout) != "started\n" {
		t.Fatalf("got %+v stdout %q", res, res.Stdout)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("timeout took %v", el)
	}
	if n := psCount(t, s, "tree-marker"); n != 0 {
		t.Errorf("%d processes of the timed-out case survived", n)
	}
}

func TestBackgroundChildDoesNotHoldTheCase(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, nil, nil)
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"sh", "-c", "sleep 287 & echo bg-marker-x; exit 0"}, Env: env(s), Timeout: 20 * time.Second})
	if err != nil || res.TimedOut || res.ExitCode != 0 || res.Elapsed > 10*time.Second || string(res.Stdout) != "bg-marker-x\n" {
		t.Fatalf("got %+v %v", res, err)
	}
	if n := psCount(t, s, "sleep 287"); n != 0 {
		t.Errorf("background child survived (%d)", n)
	}
}

func TestDefaultSpecHasNoNetwork(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"net.py": `import socket
for host, port in [("1.1.1.1", 53), ("172.17.0.1", 2375), ("8.8.8.8", 443)]:
    try:
        socket.create_connection((host, port), timeout=3).close()
        print("reached", host)
    except OSError as e:
        print("unreachable", host, e.errno)
print(sorted(n for _, n in socket.if_nameindex()))
`}, nil)
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "net.py"}, Env: env(s), Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if strings.Contains(out, "reached") || strings.Count(out, "unreachable") != 3 || !strings.Contains(out, "['lo']") {
		t.Errorf("network reachable under the default spec:\n%s%s", out, res.Stderr)
	}
}

func TestMemoryHogIsOOMKilled(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, func(s *envspec.Spec) { s.Memory = 64 << 20 }))
	s := openSession(t, rt, nil, nil)
	before := runningContainer(t, rt)
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "-c", "x = []\nwhile True: x.append(bytearray(16 << 20))"}, Env: env(s), Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OOMKilled || res.TimedOut || res.Signal != "killed" || res.ExitCode != 137 {
		t.Fatalf("memory hog: %+v stderr %q", res, res.Stderr)
	}
	// The group goes on in the same container.
	res, err = s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "-c", "print('alive')"}, Env: env(s), Timeout: 20 * time.Second})
	if err != nil || string(res.Stdout) != "alive\n" || res.OOMKilled {
		t.Fatalf("after the hog: %+v %v", res, err)
	}
	// It is the case that was killed at the limit, not the container.
	if runningContainer(t, rt) != before {
		t.Error("the container was replaced")
	}
}

func TestForkBombIsStoppedByPidsLimit(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, func(s *envspec.Spec) { s.Pids = 64 }))
	s := openSession(t, rt, nil, nil)
	start := time.Now()
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"sh", "-c", "b() { b | b & }; b; sleep 1000"}, Env: env(s), Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Under the pids limit the shell itself may fail to fork its `sleep`
	// and exit at once, or run until the timeout: either way the case
	// fails, and what follows is the point — the container survives and
	// nothing of the bomb does.
	if !res.TimedOut && res.ExitCode == 0 {
		t.Errorf("fork bomb succeeded: exit %d, stderr %.200q", res.ExitCode, res.Stderr)
	}
	if el := time.Since(start); el > 3*time.Minute {
		t.Errorf("stopping the bomb took %v", el)
	}
	res, err = s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "-c", "print('alive')"}, Env: env(s), Timeout: 20 * time.Second})
	if err != nil || string(res.Stdout) != "alive\n" {
		t.Fatalf("after the bomb: %+v %v", res, err)
	}
	if n := psCount(t, s, "sleep 1000"); n != 0 {
		t.Errorf("%d bomb processes survived", n)
	}
}

func TestOutputCap(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, nil, nil)
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "-c", "import sys; sys.stdout.write('x' * 3000000)"}, Env: env(s), Timeout: 20 * time.Second, OutputCap: 1000})
	if err != nil || len(res.Stdout) != 1000 || res.StdoutDropped != 3000000-1000 {
		t.Fatalf("cap: len %d dropped %d %v", len(res.Stdout), res.StdoutDropped, err)
	}
}

// syncBuffer collects a server's output from the stream goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStartServerReachedAtDial(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"server.py": `import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("hello from " + self.path).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
print("listening", flush=True)
http.server.HTTPServer((sys.argv[1], int(sys.argv[2])), H).serve_forever()
`}, nil)
	ep, err := s.Endpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	p, err := s.Start(context.Background(), runtime.StartRequest{
		Argv: []string{"python3", "server.py", ep.Host, fmt.Sprint(ep.Port)}, Env: env(s), Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	var body string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + ep.Dial + "/ping")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if body != "hello from /ping" {
		t.Fatalf("server answered %q (stdout %q stderr %q)", body, stdout.String(), stderr.String())
	}
	// A case timing out in the same session leaves the server alone.
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"sleep", "100"}, Env: env(s), Timeout: 500 * time.Millisecond})
	if err != nil || !res.TimedOut {
		t.Fatalf("case: %+v %v", res, err)
	}
	if resp, err := http.Get("http://" + ep.Dial + "/again"); err != nil {
		t.Fatalf("server gone after a case timed out: %v", err)
	} else {
		resp.Body.Close()
	}
	p.Stop()
	select {
	case <-p.Exited():
	default:
		t.Fatal("Stop returned before the server exited")
	}
	if st := p.State(); st.Signal != "killed" {
		t.Errorf("server state %+v", st)
	}
	if !strings.HasPrefix(stdout.String(), "listening") {
		t.Errorf("server stdout %q", stdout.String())
	}
	if n := psCount(t, s, "server.py"); n != 0 {
		t.Errorf("server survived Stop")
	}
}

func TestCanceledRunRemovesContainers(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(500 * time.Millisecond); cancel() }()
	_, err := s.Exec(ctx, runtime.ExecRequest{Argv: []string{"sleep", "100"}, Env: env(s), Timeout: time.Minute})
	if err == nil {
		t.Fatal("want the context's error")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoContainers(t, rt.RunID())
	if _, err := os.Stat(s.Workdir()); !os.IsNotExist(err) {
		t.Errorf("workspace left behind: %v", err)
	}
}

func TestMissingImageIsAClearError(t *testing.T) {
	spec := dockertest.Spec(t, "wasmeval/no-such-image:1")
	_, err := docker.New(context.Background(), docker.Options{Spec: spec, Client: dockertest.Client(t)})
	if err == nil || !strings.Contains(err.Error(), `"wasmeval/no-such-image:1" does not exist`) || !strings.Contains(err.Error(), spec.File) {
		t.Fatalf("got %v", err)
	}
}

func TestUnreachableEngineIsAClearError(t *testing.T) {
	dockertest.Client(t)
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	_, err := docker.New(context.Background(), docker.Options{Spec: pythonSpec(t, nil)})
	if err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("got %v", err)
	}
}

func TestSpecUserAndLimitsApply(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, func(s *envspec.Spec) { s.User = "65534:65534"; s.Pids = 77; s.NanoCPUs = 500_000_000 }))
	s := openSession(t, rt, map[string]string{"in.txt": "x"}, nil)
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "-c", `import os
open("out.txt", "w").write("w")
print(os.getuid(), os.getgid(), open("/sys/fs/cgroup/pids/pids.max" if os.path.exists("/sys/fs/cgroup/pids/pids.max") else "/sys/fs/cgroup/pids.max").read().strip())`},
		Env: env(s), Timeout: 20 * time.Second})
	if err != nil || string(res.Stdout) != "65534 65534 77\n" {
		t.Fatalf("got %q %q %v", res.Stdout, res.Stderr, err)
	}
	if st, err := os.Stat(filepath.Join(s.Workdir(), "out.txt")); err != nil || st.Size() != 1 {
		t.Errorf("file written by a non-root user: %v", err)
	}
	// Reset copes with files the container's user owns.
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Workdir(), "out.txt")); !os.IsNotExist(err) {
		t.Errorf("reset kept out.txt: %v", err)
	}
}
