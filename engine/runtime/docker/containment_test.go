package docker_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// These tests perform, in real containers, the attacks a hostile
// submission has: processes that shed what the engine finds them by, and
// symlinks planted in the workspace while the engine (root on the host)
// works in it.

// eachSettleMode runs f on a fresh session once per way the runtime
// settles a case: counting the container's tasks from the host, and
// sweeping from inside (when the host's cgroups are not visible).
func eachSettleMode(t *testing.T, files map[string]string, f func(t *testing.T, s runtime.Session)) {
	for _, mode := range []string{"host count", "from inside"} {
		t.Run(mode, func(t *testing.T) {
			rt := newRuntime(t, pythonSpec(t, nil))
			s := openSession(t, rt, files, nil)
			if mode == "from inside" {
				docker.CountFromInside(s)
			} else if !docker.HostCounted(s) {
				// CI's dockerd runs on the machine the tests run on,
				// whose cgroups they see: a mode not tested there would
				// pass unseen.
				if os.Getenv("CI") == "true" {
					t.Fatal("the host's cgroup filesystem is not visible to this test")
				}
				t.Skip("the host's cgroup filesystem is not visible to this test")
			}
			f(t, s)
		})
	}
}

// containerTasks is how many tasks the container holds besides its own
// (PID 1's threads, and on the exec path the main process) and the ones
// that count them (this probe: python3, and on the exec path its
// wrapper), as the container's own pids cgroup says: a process no /proc
// scan catches is counted all the same. Zero when nothing of the
// submission runs.
func containerTasks(t *testing.T, s runtime.Session) int {
	t.Helper()
	own := "3" // the main process, the probe's wrapper and python3
	if docker.ByExecutor(s) {
		own = "1" // python3
	}
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "-c", `import os, sys
init = [l for l in open("/proc/1/status") if l.startswith("Threads:")][0].split()[1]
for f in ("/sys/fs/cgroup/pids.current", "/sys/fs/cgroup/pids/pids.current"):
    if os.path.exists(f):
        print(int(open(f).read()) - int(init) - int(sys.argv[1]))
        break
`, own}, Env: env(s), Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscan(string(res.Stdout), &n); err != nil {
		t.Fatalf("count tasks: %q %q", res.Stdout, res.Stderr)
	}
	return n
}

// assertNothingLeft checks that no process carrying marker survives and
// that the container is down to its own two tasks.
func assertNothingLeft(t *testing.T, s runtime.Session, marker string) {
	t.Helper()
	if n := psCount(t, s, marker); n != 0 {
		t.Errorf("%d processes of the case survived it", n)
	}
	if n := containerTasks(t, s); n != 0 {
		t.Errorf("the container holds %d tasks besides its own once the case is over, want 0", n)
	}
	if n, ok := docker.Tasks(s); ok && n != 0 {
		t.Errorf("the host counts %d tasks in the container besides its own, want 0", n)
	}
}

// shed.py starts two children that drop every marker the engine could
// have given them — one through `env -i`, one through an execve with an
// empty environment — detached (own session, output closed), each to
// sleep and then act; it returns once both run. With "wrapper" it then
// kills its wrapper, so the wrapper's own sweep never runs and only the
// engine's settling can find them.
const shedPy = `import os, sys, time
marker, how = sys.argv[1], sys.argv[2]

def detach():
    os.setsid()
    fd = os.open("/dev/null", os.O_RDWR)
    for i in range(3):
        os.dup2(fd, i)

if os.fork() == 0:
    detach()
    os.execvp("env", ["env", "-i", "sh", "-c", "sleep 3600; echo acted > acted-env # " + marker + "-env"])
if os.fork() == 0:
    detach()
    if os.fork() == 0:
        os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600); open('acted-execve', 'w').write('x') # " + marker + "-execve"], {})
    os._exit(0)

def running(m):
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and m.encode() in open("/proc/%s/cmdline" % p, "rb").read():
                env = open("/proc/%s/environ" % p, "rb").read()
                return env == b"" or b"WASMEVAL" not in env
        except OSError:
            pass
    return False

while not (running(marker + "-env") and running(marker + "-execve")):
    time.sleep(0.05)
print("both running, no environment", flush=True)
if how == "wrapper":
    os.kill(os.getppid(), 9)
elif how == "hang":
    time.sleep(3600)
`

func TestCaseChildrenThatShedTheirEnvironmentDieWithTheCase(t *testing.T) {
	for _, how := range []string{"exit", "wrapper", "hang"} {
		t.Run(how, func(t *testing.T) {
			eachSettleMode(t, map[string]string{"shed.py": shedPy}, func(t *testing.T, s runtime.Session) {
				marker := "shed-" + how
				timeout := 60 * time.Second
				if how == "hang" {
					// Long enough for python and its children to start
					// and say so on a loaded machine, short enough to wait.
					timeout = 20 * time.Second
				}
				res, err := s.Exec(context.Background(), runtime.ExecRequest{
					Argv: []string{"python3", "shed.py", marker, how}, Env: env(s), Timeout: timeout})
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(res.Stdout), "both running") {
					t.Fatalf("the children did not start: %+v %q %q", res, res.Stdout, res.Stderr)
				}
				if (how == "hang") != res.TimedOut {
					t.Errorf("timed out: %v", res.TimedOut)
				}
				assertNothingLeft(t, s, marker)
			})
		})
	}
}

// A chain of processes each forking the next and exiting at once is never
// still there when a scan of /proc gets to it; the container's task count
// sees it all the same.
func TestForkAndExitChainDiesWithTheCase(t *testing.T) {
	eachSettleMode(t, nil, func(t *testing.T, s runtime.Session) {
		res, err := s.Exec(context.Background(), runtime.ExecRequest{
			Argv: []string{"sh", "-c", `env -i sh -c 'f() { f & exit 0; }; f' </dev/null >/dev/null 2>&1 & sleep 1; exit 0`},
			Env:  env(s), Timeout: 60 * time.Second})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("case: %+v %v", res, err)
		}
		if n := containerTasks(t, s); n != 0 {
			t.Errorf("the container holds %d tasks besides its own once the case is over, want 0", n)
		}
		if n, ok := docker.Tasks(s); ok && n != 0 {
			t.Errorf("the host counts %d tasks in the container besides its own, want 0", n)
		}
		// The group goes on.
		res, err = s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "-c", "print('alive')"}, Env: env(s), Timeout: 30 * time.Second})
		if err != nil || string(res.Stdout) != "alive\n" {
			t.Fatalf("after the chain: %+v %v", res, err)
		}
	})
}

// hostTarget is a directory on the host that a planted link points at:
// it holds a file the submission would like to overwrite and a secret it
// would like to read.
func hostTarget(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "victim"), []byte("safe"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("host secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// assertHostTargetUntouched checks that nothing was created, written,
// chmodded or chowned in the host directory.
func assertHostTargetUntouched(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "victim" && e.Name() != "secret.txt" {
			t.Errorf("the engine created %s on the host through a planted link", filepath.Join(dir, e.Name()))
		}
	}
	for name, want := range map[string]string{"victim": "safe", "secret.txt": "host secret"} {
		p := filepath.Join(dir, name)
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Errorf("%s on the host: %q %v", p, got, err)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s on the host changed mode: %v %v", p, st.Mode(), err)
		}
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("%s on the host changed mode: %v", dir, err)
	}
}

// assertCleanWorkspace checks that the workspace holds the submission
// exactly: sub a real directory, no planted links.
func assertCleanWorkspace(t *testing.T, s runtime.Session) {
	t.Helper()
	st, err := os.Lstat(filepath.Join(s.Workdir(), "sub"))
	if err != nil || !st.IsDir() {
		t.Fatalf("after reset, sub is not the submission's directory: %v %v", st, err)
	}
	got, err := os.ReadFile(filepath.Join(s.Workdir(), "sub", "payload"))
	if err != nil || string(got) != "chosen content\n" {
		t.Errorf("after reset, sub/payload: %q %v", got, err)
	}
	ents, _ := os.ReadDir(s.Workdir())
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "plant.sh sub" {
		t.Errorf("after reset the workspace holds %v", names)
	}
}

// plant.sh keeps replacing the workspace's sub by a symlink to a host
// directory (and back), as fast as the shell goes: whatever the engine
// checked a moment ago may have become a link by the time it acts.
const plantSh = `T=$1
echo planting
while :; do rm -rf sub; ln -s "$T" sub; rm -f sub; mkdir sub; done
`

// The attack as reported: a case leaves a child that sheds its
// environment and, during the next reset, plants a symlink to a host
// directory where the engine copies the submission's files.
func TestSymlinkPlantedByALeftoverDuringResetIsNotFollowed(t *testing.T) {
	target := hostTarget(t)
	files := map[string]string{"sub/payload": "chosen content\n", "sub/victim": "owned\n", "plant.sh": plantSh}
	eachSettleMode(t, files, func(t *testing.T, s runtime.Session) {
		res, err := s.Exec(context.Background(), runtime.ExecRequest{
			Argv: []string{"sh", "-c", `env -i sh ./plant.sh "$1" </dev/null >/dev/null 2>&1 & sleep 1; kill -9 $PPID`, "case", target},
			Env:  env(s), Timeout: 60 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if err := s.Reset(context.Background()); err != nil {
				t.Fatalf("reset %d: %v", i, err)
			}
			assertCleanWorkspace(t, s)
		}
		assertHostTargetUntouched(t, target)
		if t.Failed() {
			t.Logf("case: %+v", res)
		}
	})
}

// A server lives through case ends by design, so it can plant links for
// as long as its group runs: the reset, input files and tracked files
// must not follow them either.
func TestSymlinksPlantedByARunningServerAreNotFollowed(t *testing.T) {
	target := hostTarget(t)
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"sub/payload": "chosen content\n", "sub/victim": "owned\n", "plant.sh": plantSh}, nil)
	var out syncBuffer
	p, err := s.Start(context.Background(), runtime.StartRequest{Argv: []string{"sh", "plant.sh", target}, Env: env(s), Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); out.String() == "" && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if out.String() != "planting\n" {
		t.Fatalf("the planting server did not start: %q", out.String())
	}
	resets := 0
	for i := 0; i < 40; i++ {
		// Each may fail (a name the copy needs was planted first), with
		// an error that says so; none may act outside the workspace.
		if err := s.Reset(context.Background()); err == nil {
			resets++
		} else if !strings.HasPrefix(err.Error(), "reset workspace: ") {
			t.Errorf("reset: %v", err)
		}
		workspace.WriteFiles(s.Workdir(), []cases.InputFile{{Path: "sub/victim", Content: []byte("owned\n")}, {Path: "sub/new.txt", Content: []byte("x")}})
		if got, err := workspace.ReadTracked(s.Workdir(), []string{"sub", "sub/secret.txt"}, 1<<20); err == nil {
			for name, content := range got {
				if c, ok := content.(string); ok && strings.Contains(c, "host secret") {
					t.Fatalf("tracked file %s was read from the host through a planted link", name)
				}
			}
		}
	}
	select {
	case <-p.Exited():
		t.Fatalf("the planting server exited: %+v", p.State())
	default:
	}
	p.Stop()
	assertHostTargetUntouched(t, target)
	// Once nothing plants any more, a reset restores the submission.
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertCleanWorkspace(t, s)
	t.Logf("%d of 40 resets completed under the planting server", resets)
}

// serverPy serves HTTP; a copy that cannot bind its port (a case
// mimicking the server) lives on all the same.
const serverPy = `import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
try:
    srv = http.server.HTTPServer((sys.argv[1], int(sys.argv[2])), H)
except OSError:
    time.sleep(3600)
print("listening", flush=True)
srv.serve_forever()
`

// mimicPy finds the server and starts, detached, a process with its
// executable, command line and environment, marker included.
const mimicPy = `import os, sys, time
def find():
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and b"server.py" in open("/proc/%s/cmdline" % p, "rb").read() and "python" in os.readlink("/proc/%s/exe" % p):
                yield p
        except OSError:
            pass
srv = next(find())
argv = open("/proc/%s/cmdline" % srv, "rb").read().rstrip(b"\0").split(b"\0")
env = dict(kv.split(b"=", 1) for kv in open("/proc/%s/environ" % srv, "rb").read().split(b"\0") if b"=" in kv)
exe = os.readlink("/proc/%s/exe" % srv)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        fd = os.open("/dev/null", os.O_RDWR)
        for i in range(3):
            os.dup2(fd, i)
        os.execve(exe, argv, env)
    os._exit(0)
while len(list(find())) < 2:
    time.sleep(0.05)
print("mimic running", flush=True)
`

func TestServerSurvivesCaseEndsAndItsMimicDoesNot(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"server.py": serverPy, "mimic.py": mimicPy}, nil)
	ep, err := s.Endpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuffer
	p, err := s.Start(context.Background(), runtime.StartRequest{
		Argv: []string{"python3", "server.py", ep.Host, fmt.Sprint(ep.Port)}, Env: env(s), Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	get := func() error {
		resp, err := http.Get("http://" + ep.Dial + "/")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
			return fmt.Errorf("server answered %q", b)
		}
		return nil
	}
	deadline := time.Now().Add(30 * time.Second)
	for get() != nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if err := get(); err != nil {
		t.Fatalf("server: %v (stdout %q)", err, stdout.String())
	}
	before := psCount(t, s, "server.py")

	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "mimic.py"}, Env: env(s), Timeout: 60 * time.Second})
	if err != nil || string(res.Stdout) != "mimic running\n" {
		t.Fatalf("mimic: %+v %q %v", res, res.Stderr, err)
	}
	if n := psCount(t, s, "server.py"); n != before {
		t.Errorf("%d processes with the server's command line after the case, want %d: the mimic survived", n, before)
	}
	// A case timing out leaves the server alone too.
	if res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"sleep", "100"}, Env: env(s), Timeout: time.Second}); err != nil || !res.TimedOut {
		t.Fatalf("timed-out case: %+v %v", res, err)
	}
	select {
	case <-p.Exited():
		t.Fatalf("the server did not survive the group's cases: %+v", p.State())
	default:
	}
	if err := get(); err != nil {
		t.Fatalf("server after the cases: %v", err)
	}
	p.Stop()
	if n := psCount(t, s, "server.py"); n != 0 {
		t.Errorf("%d server processes survived Stop", n)
	}
}
