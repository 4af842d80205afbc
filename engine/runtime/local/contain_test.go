//go:build linux

package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// Namespaces must be available wherever the suite runs as root (CI does):
// otherwise every case would silently fall back to weaker containment.
func TestNamespacesAvailableAsRoot(t *testing.T) {
	if os.Getuid() != 0 && os.Getenv("CI") != "true" {
		t.Skip("not root: unprivileged user namespaces may be off on this machine")
	}
	if err := namespacesAvailable(); err != nil {
		t.Fatalf("namespaces: %v", err)
	}
	iso, err := New(Options{}).Isolation()
	if err != nil || iso != IsolationNamespaces {
		t.Fatalf("auto isolation = %q, %v", iso, err)
	}
}

// A program that signals its parent, its process group or the launcher
// ends only itself: the engine goes on and the next case runs.
func TestProgramCannotSignalTheEngine(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, nil)
		for _, attack := range []string{
			"kill -9 $PPID; sleep 1; echo parent-survived",
			"kill -TERM $PPID; kill -INT $PPID; kill -HUP $PPID; echo parent-signalled",
			"kill -9 0",
			"sh -c 'kill -9 $PPID' & wait; kill -9 $PPID; echo x",
		} {
			if _, err := s.Exec(context.Background(), sh(attack)); err != nil {
				t.Fatalf("%q: %v", attack, err)
			}
			res, err := s.Exec(context.Background(), sh("echo next"))
			if err != nil || string(res.Stdout) != "next\n" {
				t.Fatalf("after %q the next case got %+v %v", attack, res, err)
			}
		}
	})
}

// With namespaces, the program sees only its own processes: not the engine,
// its command line or its environment.
func TestNamespacesHideTheEngine(t *testing.T) {
	s := openSessionWith(t, Options{Isolation: IsolationNamespaces}, nil)
	self := strconv.Itoa(os.Getpid())
	res, err := s.Exec(context.Background(), sh(`
		ls -d /proc/[0-9]* | wc -l
		tr '\0' ' ' < /proc/$PPID/cmdline; echo
		[ -e /proc/`+self+` ] && echo engine-visible
		readlink /proc/self/ns/pid`))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) != 3 {
		t.Fatalf("output %q (stderr %q)", res.Stdout, res.Stderr)
	}
	// The launcher, the shell and ls, wc, tr and readlink at most.
	if n, err := strconv.Atoi(strings.TrimSpace(lines[0])); err != nil || n > 8 {
		t.Errorf("the case sees %s processes", lines[0])
	}
	if strings.TrimSpace(lines[1]) != "wasmeval-launcher" {
		t.Errorf("the parent's command line is %q", lines[1])
	}
	own, _ := os.Readlink("/proc/self/ns/pid")
	if lines[2] == own {
		t.Errorf("the case runs in the engine's PID namespace %s", own)
	}
}

// With namespaces, private directories (the problem, the run) are empty to
// the program, and a static asset is readable where StaticPath says but
// cannot be changed.
func TestNamespacesCoverPrivateDirectoriesAndProtectAssets(t *testing.T) {
	problem := t.TempDir()
	secret := filepath.Join(problem, "checkpoint_1", "g", "case", "expected_output")
	os.MkdirAll(filepath.Dir(secret), 0o755)
	if err := os.WriteFile(secret, []byte("the answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	asset := filepath.Join(problem, "static", "catalog.csv")
	os.MkdirAll(filepath.Dir(asset), 0o755)
	if err := os.WriteFile(asset, []byte("id,name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt := New(Options{BaseDir: t.TempDir(), Isolation: IsolationNamespaces})
	s, err := rt.Open(context.Background(), runtime.SessionSpec{
		Submission: t.TempDir(), Label: "cover", Private: []string{problem},
		StaticAssets: map[string]string{"catalog": asset},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, _ := s.StaticPath("catalog")
	if strings.HasPrefix(p, problem) {
		t.Errorf("the asset is seen inside the problem directory: %s", p)
	}
	// Searching the whole file system takes its time on a loaded
	// machine: the case gets minutes, and one cut short says so rather
	// than failing on the output it did not print.
	req := sh(fmt.Sprintf(`
		cat %q && echo cat-ok
		ls -A %q | wc -l
		find / \( -path /proc -o -path /sys \) -prune -o -name expected_output -path '*checkpoint_1*' -print 2>/dev/null | head -1
		cat %q && echo found-secret
		cat %q
		echo tampered >> %q && echo asset-written
		true`, secret, problem, secret, p, p))
	req.Timeout = 5 * time.Minute
	res, err := s.Exec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut {
		t.Fatalf("the case did not finish in %v: %q", req.Timeout, res.Stdout)
	}
	out := string(res.Stdout)
	if strings.Contains(out, "the answer") || strings.Contains(out, "found-secret") || strings.Contains(out, "cat-ok") {
		t.Errorf("the case read the expected output: %q", out)
	}
	if !strings.Contains(out, "id,name\n") {
		t.Errorf("the static asset is not readable at %s: %q (stderr %q)", p, out, res.Stderr)
	}
	if strings.Contains(out, "asset-written") {
		t.Errorf("the case wrote to the static asset")
	}
	if lines := strings.Split(out, "\n"); len(lines) < 1 || strings.TrimSpace(lines[0]) != "0" {
		t.Errorf("the problem directory is not empty to the case: %q", out)
	}
	if data, _ := os.ReadFile(asset); string(data) != "id,name\n" {
		t.Errorf("asset on the host is now %q", data)
	}
}

// A memory cap holds from the program's first instruction, so a program
// that forks at once (every sh -c, every shim) passes it on: the cause of
// an escape seen under load, asserted directly rather than by racing.
func TestMemoryCapHoldsBeforeTheFirstInstruction(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		const capBytes = 200 << 20
		s := openSessionWith(t, Options{Isolation: iso, MemoryBytes: capBytes}, nil)
		res, err := s.Exec(context.Background(), runtime.ExecRequest{
			Argv: []string{"sh", "-c", "cat /proc/self/limits & wait"}, Env: baseEnv, Timeout: 30 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("Max data size             %d", capBytes)
		if !strings.Contains(string(res.Stdout), want) {
			t.Errorf("the forked child's limits lack %q:\n%s", want, res.Stdout)
		}
		// Without a cap, nothing is limited by the launcher.
		s = openSessionWith(t, Options{Isolation: iso}, nil)
		res, err = s.Exec(context.Background(), sh("grep 'Max data size' /proc/self/limits"))
		if err != nil || !strings.Contains(string(res.Stdout), "unlimited") {
			t.Errorf("uncapped: %q %v", res.Stdout, err)
		}
	})
}

// The launcher protects itself from signals without leaving them ignored
// in the program: an ignored signal would stay ignored across exec.
func TestProgramStartsWithDefaultSignals(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, nil)
		res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"grep", "^Sig[IB]", "/proc/self/status"}, Env: baseEnv, Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
			if f := strings.Fields(line); len(f) != 2 || strings.Trim(f[1], "0") != "" {
				t.Errorf("%s", line)
			}
		}
	})
}

// engineHelperEnv makes the test binary act as an engine that runs one
// case leaving escapees behind, then waits to be killed.
const engineHelperEnv = "WASMEVAL_TEST_LOCAL_ENGINE"

func TestMain(m *testing.M) {
	if iso := os.Getenv(engineHelperEnv); iso != "" {
		runEngineHelper(Isolation(iso))
		return
	}
	os.Exit(m.Run())
}

func runEngineHelper(iso Isolation) {
	sub, err := os.MkdirTemp("", "wasmeval-helper-")
	if err != nil {
		fmt.Println("submission:", err)
		os.Exit(2)
	}
	s, err := New(Options{Isolation: iso}).Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "helper"})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	// A case that never ends, with escapees of every kind.
	go s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"sh", "-c", "setsid env -i /bin/sh -c 'sleep 316.1' & (sh -c 'sleep 316.2 &'); echo ready; sleep 316.3"},
		Env:  baseEnv, Stdin: nil,
	})
	for len(procsWith("sleep 316.3")) == 0 || len(procsWith("sleep 316.1")) == 0 || len(procsWith("sleep 316.2")) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("ready")
	time.Sleep(time.Hour)
}

// When the engine dies (kill -9), nothing a case started lives on.
func TestEngineDeathKillsEveryCaseProcess(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), engineHelperEnv+"="+string(iso), "TMPDIR="+t.TempDir())
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A helper that never gets ready is killed, and fails the test.
		stuck := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
		buf := make([]byte, 64)
		n, _ := out.Read(buf)
		stuck.Stop()
		if string(buf[:n]) != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper engine: %q", buf[:n])
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		waitFor(t, "the case's processes to die with the engine", func() bool {
			return len(procsWith("sleep 316.")) == 0
		})
	})
}

// With namespaces, a case can change its workspace but nothing around it:
// not the workspace's own name (swapped for a link to elsewhere, the
// engine would write the next case's files there), not the spare copy a
// reset is about to put in place, not the static assets' mount points.
// After such attempts the next case still gets a real, fresh workspace and
// nothing outside was written.
func TestNamespacesKeepTheSessionDirectoryReadOnly(t *testing.T) {
	outside := t.TempDir()
	s := openSessionWith(t, Options{Isolation: IsolationNamespaces}, map[string]string{"keep.txt": "original"})
	// A first case and reset, so that a spare copy is being prepared.
	if _, err := s.Exec(context.Background(), sh("touch dirty")); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := s.Exec(context.Background(), sh(fmt.Sprintf(`
		echo changed > keep.txt && echo workspace-writable
		mv ../work ../moved 2>/dev/null && echo renamed-workspace
		ln -s %[1]q ../planted 2>/dev/null && echo planted-link
		for i in $(seq 600); do [ -d ../spare-1 ] && break; sleep 0.1; done
		[ -d ../spare-1 ] && echo spare-present
		ln -s %[1]q ../spare-1/link 2>/dev/null && echo planted-in-spare
		rm -rf ../spare-1 2>/dev/null; [ -d ../spare-1 ] || echo removed-spare
		touch ../static/new 2>/dev/null && echo wrote-static
		true`, outside)))
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if !strings.Contains(out, "workspace-writable") || !strings.Contains(out, "spare-present") {
		t.Fatalf("the workspace is not writable, or no spare copy was seen: %q %q", out, res.Stderr)
	}
	for _, bad := range []string{"renamed-workspace", "planted-link", "planted-in-spare", "removed-spare", "wrote-static"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s", bad)
		}
	}
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(s.Workdir()); err != nil || !st.IsDir() {
		t.Fatalf("workspace after reset: %v %v", st, err)
	}
	res, err = s.Exec(context.Background(), sh("cat keep.txt"))
	if err != nil || string(res.Stdout) != "original" {
		t.Errorf("after reset: %q %v", res.Stdout, err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("something was written outside: %v", ents)
	}
}

// A case cannot undo the covers, whatever namespaces it makes of its own,
// and runs as the engine's user.
func TestNamespacesCannotBeUndoneByTheCase(t *testing.T) {
	problem := t.TempDir()
	if err := os.WriteFile(filepath.Join(problem, "expected_output"), []byte("the answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt := New(Options{BaseDir: t.TempDir(), Isolation: IsolationNamespaces})
	s, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: t.TempDir(), Label: "undo", Private: []string{problem}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Exec(context.Background(), sh(fmt.Sprintf(`
		id -u
		grep -E '^Cap(Prm|Eff|Amb):' /proc/self/status | grep -v '0000000000000000$' | sed 's/^/capability /'
		umount %[1]q 2>/dev/null; umount -l %[1]q 2>/dev/null
		cat %[1]q/expected_output 2>/dev/null
		unshare -rm sh -c 'umount -l %[1]q; cat %[1]q/expected_output' 2>/dev/null
		true`, problem)))
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if strings.Contains(out, "the answer") {
		t.Errorf("the case undid the cover: %q", out)
	}
	if strings.Contains(out, "capability ") {
		t.Errorf("the case holds capabilities: %q", out)
	}
	if uid := strings.SplitN(out, "\n", 2)[0]; uid != strconv.Itoa(os.Getuid()) {
		t.Errorf("the case runs as uid %q, the engine as %d", uid, os.Getuid())
	}
}

// Run as an unprivileged user (the engine is most often not root), the
// containment tests pass the same: namespaces come with a user namespace,
// in which the launcher may mount and its programs may not.
func TestContainmentWithoutRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("already unprivileged: the other tests cover it")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv (util-linux) is needed to run the tests as another user:", err)
	}
	// Not t.TempDir(): its parent is the test's own, private to root.
	dir, err := os.MkdirTemp("", "wasmeval-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	bin := filepath.Join(dir, "local.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin,
		"-test.count=1", "-test.run=^(TestNamespaces|TestProgram|TestMemoryCap|TestTimeout|TestBackground|TestSignalExit|TestEngineDeath|TestCloseStops)")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + dir, "HOME=" + dir}
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("as an unprivileged user: %v\n%s", err, out)
	}
}

// A private directory given relative to wasmeval's working directory (a
// run's --out out/run) is covered as the same path made absolute, not as
// that path from the case's workspace.
func TestRelativePrivateDirectoryIsCovered(t *testing.T) {
	cwd := t.TempDir()
	t.Chdir(cwd)
	journal := filepath.Join(cwd, "out", "run", "results.jsonl")
	os.MkdirAll(filepath.Dir(journal), 0o755)
	if err := os.WriteFile(journal, []byte(`{"expected": "SECRET-7731"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rt := New(Options{BaseDir: t.TempDir(), Isolation: IsolationNamespaces})
	s, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: t.TempDir(), Label: "relative", Private: []string{filepath.Join("out", "run")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	req := sh(fmt.Sprintf(`cat %q; ls -A %q | wc -l`, journal, filepath.Dir(journal)))
	req.Timeout = 5 * time.Minute
	res, err := s.Exec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if out := string(res.Stdout); strings.Contains(out, "SECRET") || strings.TrimSpace(out) != "0" {
		t.Errorf("the case saw the run directory given as a relative path: %q (stderr %q)", out, res.Stderr)
	}
}

// Two groups' sessions of one runtime, with namespaces, cannot reach
// each other's workspace: a case of one neither reads nor writes the
// other's files, while its own workspace works as before.
func TestSessionsCannotReachEachOther(t *testing.T) {
	rt := New(Options{BaseDir: t.TempDir(), Isolation: IsolationNamespaces})
	open := func(label string) *session {
		s, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: t.TempDir(), Label: label})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s.(*session)
	}
	a, b := open("ga"), open("gb")
	secret := filepath.Join(b.work, "answer.txt")
	if err := os.WriteFile(secret, []byte("SECRET-B"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := sh(fmt.Sprintf(`cat %q; echo tampered > %q && echo wrote-b; ls %q | wc -l; echo mine > own.txt && cat own.txt`, secret, secret, filepath.Dir(b.dir)))
	req.Timeout = 5 * time.Minute
	res, err := a.Exec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if strings.Contains(out, "SECRET-B") || strings.Contains(out, "wrote-b") {
		t.Errorf("a case of group a reached group b's workspace: %q", out)
	}
	if data, _ := os.ReadFile(secret); string(data) != "SECRET-B" {
		t.Errorf("group b's file is now %q", data)
	}
	if lines := strings.Fields(out); len(lines) < 2 || lines[len(lines)-2] != "1" || lines[len(lines)-1] != "mine" {
		t.Errorf("group a's own view: %q (stderr %q): want only its own session directory and a writable workspace", out, res.Stderr)
	}
}
