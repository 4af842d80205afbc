package docker_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/network"

	"github.com/wasmeval/wasmeval/engine/envspec"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
	"github.com/wasmeval/wasmeval/engine/runtime/upstreamtest"
)

// fetchPy gets BASE/one/I for I below N one after another, then
// BASE/together PARALLEL times at once, and prints each body on a line.
const fetchPy = `import sys, threading, urllib.request
base, n, par = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def get(p):
    try:
        with urllib.request.urlopen(base + p, timeout=120) as r:
            return r.read().decode()
    except Exception as e:
        return "error: %r" % (e,)
for i in range(n):
    print(get("/one/%d" % i))
out = [None] * par
def w(i):
    out[i] = get("/together")
ts = [threading.Thread(target=w, args=(i,)) for i in range(par)]
for t in ts: t.start()
for t in ts: t.join()
for o in out: print(o)
`

// fetch runs fetchPy as a case against addr.
func fetch(t *testing.T, s runtime.Session, addr string, n, parallel int) {
	t.Helper()
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"python3", "fetch.py", "http://" + addr, fmt.Sprint(n), fmt.Sprint(parallel)}, Env: env(s), Timeout: 3 * time.Minute})
	if err != nil || res.ExitCode != 0 || string(res.Stdout) != upstreamtest.Fetched(n, parallel) {
		t.Fatalf("fetch from the case: %+v %v\nstdout:\n%s\nstderr:\n%s", res, err, res.Stdout, res.Stderr)
	}
}

// upstream opens an upstream on s. Where the runtime runs cases through
// an exec each (WASMEVAL_DOCKER_CASES=exec), it is refused with a clear
// error instead, and ok is false.
func upstream(t *testing.T, rt *docker.Runtime, s runtime.Session, name string) (l net.Listener, addr string, ok bool) {
	t.Helper()
	up, isUp := s.(runtime.Upstreams)
	if !isUp {
		t.Fatal("the docker session offers no upstreams")
	}
	l, addr, err := up.Upstream(context.Background(), name)
	if !rt.UsesExecutor() {
		if err == nil || !strings.Contains(err.Error(), "need the in-container executor") || !strings.Contains(err.Error(), name) {
			t.Fatalf("upstream without the executor: %v", err)
		}
		return nil, "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("address %q", addr)
	}
	return l, addr, true
}

// A case in the container reaches the engine's listener at the address
// Upstream gave, one connection after another and many at once; a server
// started with Start does too; a second upstream gets its own address.
func TestUpstreamReachedFromCasesAndServers(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"fetch.py": fetchPy}, nil)
	l, addr, ok := upstream(t, rt, s, "payments")
	if !ok {
		return
	}
	const parallel = 8
	upstreamtest.Serve(t, l, parallel)
	fetch(t, s, addr, 5, 0)
	fetch(t, s, addr, 0, parallel)

	l2, addr2, _ := upstream(t, rt, s, "rates")
	if addr2 == addr {
		t.Fatalf("two upstreams at %s", addr)
	}
	upstreamtest.Serve(t, l2, 1)
	fetch(t, s, addr2, 2, 1)

	var out, errOut syncBuffer
	p, err := s.Start(context.Background(), runtime.StartRequest{
		Argv: []string{"python3", "fetch.py", "http://" + addr, "3", "0"}, Env: env(s), Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(3 * time.Minute):
		t.Fatal("the server's requests did not end")
	}
	if st := p.State(); st.ExitCode != 0 || out.String() != upstreamtest.Fetched(3, 0) {
		t.Fatalf("server: %+v\nstdout:\n%s\nstderr:\n%s", st, out.String(), errOut.String())
	}
	// A case still reaches it after the server is gone.
	fetch(t, s, addr, 1, 0)
}

// reachPy tries each HOST:PORT argument and prints "reached" or
// "unreachable" for it.
const reachPy = `import socket, sys
for a in sys.argv[1:]:
    host, port = a.rsplit(":", 1)
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
        print("reached", a)
    except OSError as e:
        print("unreachable", a, e)
`

// The upstream is the only way out of the container: a listener on the
// host, at the Docker bridge's gateway, at every address of the host and
// at 127.0.0.1, and an address outside, all stay out of reach while the
// upstream answers.
func TestUpstreamIsTheOnlyWayOut(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"fetch.py": fetchPy, "reach.py": reachPy}, nil)
	l, addr, ok := upstream(t, rt, s, "payments")
	if !ok {
		return
	}
	upstreamtest.Serve(t, l, 1)

	host, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := host.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := fmt.Sprint(host.Addr().(*net.TCPAddr).Port)
	targets := []string{"127.0.0.1:" + port, "1.1.1.1:53", "8.8.8.8:443"}
	bridge, err := dockertest.Client(t).NetworkInspect(context.Background(), "bridge", network.InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range bridge.IPAM.Config {
		if c.Gateway != "" {
			targets = append(targets, net.JoinHostPort(c.Gateway, port))
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			targets = append(targets, net.JoinHostPort(ipn.IP.String(), port))
		}
	}
	// Checked from the host, so the test knows the targets are there to
	// be reached by anyone but the container.
	local := append(targets[:1:1], targets[3:]...)
	for _, a := range local {
		c, err := net.DialTimeout("tcp", a, time.Minute)
		if err != nil {
			t.Fatalf("the host cannot reach its own listener at %s: %v", a, err)
		}
		c.Close()
	}
	for deadline := time.Now().Add(2 * time.Minute); accepted.Load() != int32(len(local)); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the host's listener accepted %d of the host's %d connections", accepted.Load(), len(local))
		}
	}

	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: append([]string{"python3", "reach.py", addr}, targets...), Env: env(s), Timeout: 3 * time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%+v %v stderr %q", res, err, res.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) != 1+len(targets) || lines[0] != "reached "+addr {
		t.Fatalf("the upstream from the container:\n%s", res.Stdout)
	}
	for _, line := range lines[1:] {
		if !strings.HasPrefix(line, "unreachable ") {
			t.Errorf("from the container: %s", line)
		}
	}
	if n := accepted.Load() - int32(len(local)); n != 0 {
		t.Errorf("the host's listener accepted %d connections from the container", n)
	}
	fetch(t, s, addr, 1, 0)
}

// When the container is replaced mid-group (it was killed under a case),
// the new container reaches the upstream at the same address.
func TestUpstreamOutlivesItsContainer(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"fetch.py": fetchPy}, nil)
	l, addr, ok := upstream(t, rt, s, "payments")
	if !ok {
		return
	}
	upstreamtest.Serve(t, l, 4)
	fetch(t, s, addr, 1, 0)
	cli := dockertest.Client(t)
	old := runningContainer(t, rt)
	acted := whenStarted(t, rt, s, func(ctx context.Context, id string) error { return cli.ContainerKill(ctx, id, "KILL") })
	_, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"sh", "-c", longCase}, Env: env(s), Timeout: caseLimit})
	if aerr := <-acted; aerr != nil {
		t.Fatal(aerr)
	}
	if err == nil || !strings.Contains(err.Error(), "new container") {
		t.Fatalf("the killed case: %v", err)
	}
	if runningContainer(t, rt) == old {
		t.Fatal("the container was not replaced")
	}
	fetch(t, s, addr, 2, 4)
}

// Without the in-container executor there is nothing in the container
// to carry connections: Upstream says so, with why the executor is not
// in use.
func TestUpstreamNeedsTheExecutor(t *testing.T) {
	rt, err := docker.New(context.Background(), docker.Options{Spec: pythonSpec(t, nil), BaseDir: t.TempDir(), Client: dockertest.Client(t), ExecPerCase: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	s := openSession(t, rt, nil, nil)
	_, _, err = s.(runtime.Upstreams).Upstream(context.Background(), "payments")
	if err == nil || !strings.Contains(err.Error(), "mocks on Docker need the in-container executor") || !strings.Contains(err.Error(), "payments") ||
		!strings.Contains(err.Error(), docker.ExecPerCaseEnv) {
		t.Fatalf("got %v", err)
	}
}

// A container running as another user than root (the executor too)
// binds the port and connects to the socket all the same.
func TestUpstreamReachedAsAnotherUser(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, func(s *envspec.Spec) { s.User = "65534:65534" }))
	s := openSession(t, rt, map[string]string{"fetch.py": fetchPy}, nil)
	l, addr, ok := upstream(t, rt, s, "payments")
	if !ok {
		return
	}
	upstreamtest.Serve(t, l, 3)
	fetch(t, s, addr, 2, 3)
}

// The forward is no process: the container holds nothing but the
// executor's threads after a case used it, and a case that kills every
// process it may (as root in the container) leaves it working.
func TestUpstreamIsNoProcess(t *testing.T) {
	rt := newRuntime(t, pythonSpec(t, nil))
	s := openSession(t, rt, map[string]string{"fetch.py": fetchPy}, nil)
	l, addr, ok := upstream(t, rt, s, "payments")
	if !ok {
		return
	}
	upstreamtest.Serve(t, l, 2)
	fetch(t, s, addr, 1, 2)
	if n, ok := docker.Tasks(s); ok && n != 0 {
		t.Errorf("%d tasks in the container besides the executor's", n)
	}
	before := runningContainer(t, rt)
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"sh", "-c", "kill -9 -1; kill -9 1; sleep 1"}, Env: env(s), Timeout: time.Minute})
	if err != nil {
		t.Fatalf("%+v %v", res, err)
	}
	fetch(t, s, addr, 2, 0)
	if runningContainer(t, rt) != before {
		t.Error("the container was replaced")
	}
}
