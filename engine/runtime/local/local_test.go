//go:build linux

package local

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

func openSession(t *testing.T, files map[string]string) runtime.Session {
	t.Helper()
	return openSessionWith(t, Options{}, files)
}

// isolations are the isolations tests of containment run under: both must
// hold on every machine CI runs on.
var isolations = []Isolation{IsolationNamespaces, IsolationProcess}

// eachIsolation runs f as a subtest per isolation.
func eachIsolation(t *testing.T, f func(t *testing.T, iso Isolation)) {
	for _, iso := range isolations {
		t.Run(string(iso), func(t *testing.T) { f(t, iso) })
	}
}

func openSessionWith(t testing.TB, opts Options, files map[string]string) runtime.Session {
	t.Helper()
	sub := t.TempDir()
	for p, c := range files {
		full := filepath.Join(sub, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asset := filepath.Join(t.TempDir(), "cat.csv")
	if err := os.WriteFile(asset, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.BaseDir = t.TempDir()
	s, err := New(opts).Open(context.Background(), runtime.SessionSpec{
		Submission: sub, Label: "cp/group one", StaticAssets: map[string]string{"cat": asset},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var baseEnv = map[string]string{"PATH": os.Getenv("PATH")}

func sh(script string) runtime.ExecRequest {
	return runtime.ExecRequest{Argv: []string{"sh", "-c", script}, Env: baseEnv, Timeout: 20 * time.Second}
}

func TestExecBasics(t *testing.T) {
	s := openSession(t, map[string]string{"run.sh": "#!/bin/sh\necho \"args:$*\"\ncat\necho oops >&2\nexit 3\n"})
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"./run.sh", "a b", "c"}, Env: baseEnv, Stdin: []byte("from stdin\n"), Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "args:a b c\nfrom stdin\n" || string(res.Stderr) != "oops\n" || res.ExitCode != 3 || res.TimedOut || res.Signal != "" {
		t.Fatalf("got %+v (stdout %q stderr %q)", res, res.Stdout, res.Stderr)
	}
	p, ok := s.StaticPath("cat")
	if !ok {
		t.Fatal("no static path for a declared asset")
	}
	res, err = s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"cat", p}, Env: baseEnv, Timeout: 10 * time.Second})
	if err != nil || string(res.Stdout) != "a,b\n" {
		t.Errorf("static asset at %s: %+v %v (stderr %q)", p, res, err, res.Stderr)
	}
	if _, ok := s.StaticPath("nope"); ok {
		t.Error("unknown asset")
	}
}

func TestExecEnvironmentIsExactlyTheRequest(t *testing.T) {
	s := openSession(t, nil)
	os.Setenv("WASMEVAL_TEST_LEAK", "leaked")
	defer os.Unsetenv("WASMEVAL_TEST_LEAK")
	req := sh("env | sort")
	req.Env = map[string]string{"PATH": os.Getenv("PATH"), "B": "2", "A": "1"}
	res, err := s.Exec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		name := strings.SplitN(l, "=", 2)[0]
		// The shell itself adds a few variables of its own.
		if name != "PWD" && name != "SHLVL" && name != "_" && name != "OLDPWD" {
			lines = append(lines, name)
		}
	}
	if got := strings.Join(lines, ","); got != "A,B,PATH,"+runtime.SessionEnv {
		t.Errorf("environment variables: %s", got)
	}
}

func TestExecStartErrors(t *testing.T) {
	s := openSession(t, map[string]string{"data.txt": "x"})
	for _, argv := range [][]string{{"no-such-program-xyz"}, {"./missing.sh"}, {}} {
		if _, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: argv, Env: baseEnv}); err == nil {
			t.Errorf("%v: want an error", argv)
		}
	}
	os.Chmod(filepath.Join(s.Workdir(), "data.txt"), 0o644)
	if _, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"./data.txt"}, Env: baseEnv}); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("non-executable: %v", err)
	}
	// A script without a #! line: the kernel says only "exec format
	// error"; the message says what is missing.
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, map[string]string{"noshebang": "echo hi\n"})
		_, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"./noshebang"}, Env: baseEnv, Timeout: time.Minute})
		if err == nil || !strings.Contains(err.Error(), "start ./noshebang: not a program this system can run") || !strings.Contains(err.Error(), "#!/bin/sh") {
			t.Errorf("script without #!: %v", err)
		}
	})
}

// procsWith lists live (non-zombie) processes whose command line holds s.
func procsWith(s string) []int {
	var out []int
	for _, pid := range procPIDs() {
		cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && strings.Contains(strings.ReplaceAll(string(cmd), "\x00", " "), s) && !isZombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// assertGone checks that no process with marker in its command line is
// alive. It does not wait: a launcher reports only once it has killed and
// reaped everything the program left, so by then they are gone.
func assertGone(t *testing.T, marker string) {
	t.Helper()
	if left := procsWith(marker); len(left) > 0 {
		t.Fatalf("processes survived: %v", left)
	}
}

func TestTimeoutKillsWholeTreeIncludingEscapees(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, nil)
		// A child, a grandchild in a new session (out of the process
		// group), a double-forked orphan, and one that cleared its
		// environment, all sleeping far past the timeout.
		req := sh("sleep 311.1 & setsid sleep 311.2 & (sh -c 'sleep 311.3 &') ; env -i sleep 311.5 & echo started; sleep 311.4")
		req.Timeout = 5 * time.Second // room to start them all on a loaded machine
		res, err := s.Exec(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.Signal != "killed" || res.ExitCode != 137 {
			t.Errorf("got %+v", res)
		}
		if string(res.Stdout) != "started\n" {
			t.Errorf("output before the timeout is kept: %q", res.Stdout)
		}
		assertGone(t, "sleep 311.")
	})
}

func TestBackgroundChildrenDoNotOutliveTheCase(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, nil)
		res, err := s.Exec(context.Background(), sh("sleep 312.1 >/dev/null 2>&1 & echo done"))
		if err != nil || res.ExitCode != 0 || res.TimedOut {
			t.Fatalf("%+v %v", res, err)
		}
		assertGone(t, "sleep 312.1")
		// A background child that keeps stdout open: the case ends when
		// the process it ran exits, not when the pipe closes, so it is not
		// a timeout.
		req := sh("sleep 312.3 & echo done")
		req.Timeout = 60 * time.Second
		res, err = s.Exec(context.Background(), req)
		if err != nil || res.TimedOut || res.ExitCode != 0 || string(res.Stdout) != "done\n" {
			t.Fatalf("background child holding stdout: %+v %v", res, err)
		}
		assertGone(t, "sleep 312.3")
		// Ones that left the group, the session or their environment
		// behind are gone as the case ends too, not at the group's end.
		for _, escape := range []string{
			"setsid sleep 312.2 >/dev/null 2>&1 < /dev/null & echo ok",
			"env -i /bin/sh -c 'sleep 312.4' >/dev/null 2>&1 < /dev/null & echo ok",
			"setsid env -i /bin/sh -c '(sleep 312.5 &)' >/dev/null 2>&1 < /dev/null & sleep 0.2; echo ok",
		} {
			if _, err := s.Exec(context.Background(), sh(escape)); err != nil {
				t.Fatal(err)
			}
		}
		assertGone(t, "sleep 312.")
	})
}

func TestOutputCap(t *testing.T) {
	s := openSession(t, nil)
	req := sh("head -c 50000000 /dev/zero; echo err >&2")
	req.OutputCap = 1000
	res, err := s.Exec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 1000 || res.StdoutDropped != 50000000-1000 || string(res.Stderr) != "err\n" || res.ExitCode != 0 {
		t.Fatalf("stdout %d kept, %d dropped, stderr %q, exit %d", len(res.Stdout), res.StdoutDropped, res.Stderr, res.ExitCode)
	}
}

func TestSignalExit(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, nil)
		res, err := s.Exec(context.Background(), sh("kill -TERM $$"))
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 143 || res.Signal != "terminated" || res.TimedOut {
			t.Fatalf("%+v", res)
		}
	})
}

func TestCancelKillsAndReportsCancellation(t *testing.T) {
	s := openSession(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := s.Exec(ctx, sh("sleep 314.1"))
	if !errors.Is(err, context.Canceled) || res.TimedOut {
		t.Fatalf("want context.Canceled and not a timeout, got %v %+v", err, res)
	}
	assertGone(t, "sleep 314.1")
}

func TestResetAndClose(t *testing.T) {
	s := openSession(t, map[string]string{"keep.txt": "original", "sub/x.txt": "x"})
	w := s.Workdir()
	os.WriteFile(filepath.Join(w, "keep.txt"), []byte("changed"), 0o644)
	os.Remove(filepath.Join(w, "sub/x.txt"))
	os.WriteFile(filepath.Join(w, "new.txt"), []byte("new"), 0o644)
	os.Mkdir(filepath.Join(w, "locked"), 0o755)
	os.WriteFile(filepath.Join(w, "locked/f"), nil, 0o644)
	os.Chmod(filepath.Join(w, "locked"), 0o500)
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(w, "keep.txt")); string(data) != "original" {
		t.Errorf("keep.txt %q", data)
	}
	if _, err := os.Stat(filepath.Join(w, "sub/x.txt")); err != nil {
		t.Error("deleted file not restored")
	}
	if _, err := os.Stat(filepath.Join(w, "new.txt")); err == nil {
		t.Error("new file survived the reset")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(w)); !os.IsNotExist(err) {
		t.Errorf("session directory left behind: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	r := New(Options{BaseDir: t.TempDir()})
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := r.Open(context.Background(), runtime.SessionSpec{Submission: missing}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing submission: %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := r.Open(context.Background(), runtime.SessionSpec{Submission: f}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as submission: %v", err)
	}
}

// A reset skips the copy when no case touched the workspace, and copies
// when anything did — even a file merely opened for writing.
func TestResetSkipsUntouchedWorkspace(t *testing.T) {
	s := openSession(t, map[string]string{"keep.txt": "original", "sub/x.txt": "x"})
	w := s.Workdir()
	stat := func() os.FileInfo {
		st, err := os.Stat(filepath.Join(w, "keep.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := stat()
	if _, err := s.Exec(context.Background(), sh("cat keep.txt sub/x.txt >/dev/null")); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, stat()) {
		t.Error("an untouched workspace must not be copied again")
	}
	sess := s.(*session)
	if sess.resets != 0 {
		t.Errorf("resets = %d after an untouched case", sess.resets)
	}
	for _, script := range []string{"echo more >> keep.txt", ": >> sub/x.txt", "touch new.txt", "rm sub/x.txt", "chmod 600 keep.txt", "mkdir d"} {
		n := sess.resets
		if _, err := s.Exec(context.Background(), sh(script)); err != nil {
			t.Fatal(err)
		}
		if err := s.Reset(context.Background()); err != nil {
			t.Fatal(err)
		}
		// (Inode numbers cannot tell: the old tree is removed in the
		// background and its numbers may be reused by the new copy.)
		if sess.resets != n+1 {
			t.Errorf("%q: the workspace was not restored", script)
		}
		after := stat()
		if data, _ := os.ReadFile(filepath.Join(w, "keep.txt")); string(data) != "original" || after.Mode().Perm() != 0o755 {
			t.Errorf("%q: keep.txt is %q %v", script, data, after.Mode())
		}
		if _, err := os.Stat(filepath.Join(w, "sub", "x.txt")); err != nil {
			t.Errorf("%q: sub/x.txt not restored", script)
		}
		for _, gone := range []string{"new.txt", "d"} {
			if _, err := os.Stat(filepath.Join(w, gone)); err == nil {
				t.Errorf("%q: %s survived the reset", script, gone)
			}
		}
	}
}

// With a memory cap, a process that allocates without end fails at the
// cap (its own allocation error, here Python's MemoryError) instead of
// taking the host's memory, and so do the processes it starts; the group
// goes on. Servers started with Start are capped the same way.
func TestMemoryCapPerProcess(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed for this test:", err)
	}
	sub := t.TempDir()
	s, err := New(Options{BaseDir: t.TempDir(), MemoryBytes: 96 << 20}).Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "mem"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hog := "x = []\nwhile True: x.append(bytearray(16 << 20))"
	for _, argv := range [][]string{{"python3", "-c", hog}, {"sh", "-c", "python3 -c '" + hog + "'"}} {
		res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: argv, Env: baseEnv, Timeout: 60 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode == 0 || res.TimedOut || !strings.Contains(string(res.Stderr), "MemoryError") {
			t.Errorf("%v: %+v stderr %q", argv[0], res, res.Stderr)
		}
	}
	res, err := s.Exec(context.Background(), runtime.ExecRequest{Argv: []string{"python3", "-c", "x = bytearray(32 << 20); print('fits')"}, Env: baseEnv, Timeout: 20 * time.Second})
	if err != nil || string(res.Stdout) != "fits\n" {
		t.Errorf("under the cap: %+v %v (stderr %q)", res, err, res.Stderr)
	}
	p, err := s.Start(context.Background(), runtime.StartRequest{Argv: []string{"python3", "-c", hog}, Env: baseEnv})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(60 * time.Second):
		t.Error("a server over the cap kept running")
	}
}
