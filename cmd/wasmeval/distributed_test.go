package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
)

// waitUntil polls cond until it holds, failing the test after a generous
// deadline: the machine is shared and slow, nothing here is timed.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for: %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lockedBuffer is a process's output, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type proc struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{}
	err  error
}

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary, args...), out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for the process to end and returns its exit code.
func (p *proc) wait(t *testing.T, what string) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(5 * time.Minute):
		t.Fatalf("%s did not end; its output:\n%s", what, p.out)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// slowSubmission is the inventory example's reference submission made to
// take half a second per case, so a group is still running when a test
// kills what runs it.
func slowSubmission(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/inventory/submissions/reference/inventory.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	slow := strings.Replace(string(src), "import csv\n", "import csv\nimport time\ntime.sleep(0.5)\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "inventory.py"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// journalCounts counts the records of each case in the run's journal
// (none when it does not exist yet).
func queueJournalCounts(t *testing.T, out string) (map[string]int, map[string]result.Outcome) {
	t.Helper()
	count := map[string]int{}
	outcome := map[string]result.Outcome{}
	err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		count[r.Key()]++
		outcome[r.Key()] = result.OutcomeOf(r)
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return count, outcome
}

// journalLines counts the journal's complete lines, as it grows.
func journalLines(out string) int {
	f, err := os.Open(filepath.Join(out, journal.FileName))
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		n++
	}
	return n
}

// everyCaseOnce checks the run recorded each of the example's 20 cases
// exactly once, and that each passed.
func everyCaseOnce(t *testing.T, out string) { eachCaseOnce(t, out, 20, result.OutcomePassed) }

// eachCaseOnce checks the run recorded each case exactly once, with the
// outcome want, and that there are cases of them (at least one when 0).
func eachCaseOnce(t *testing.T, out string, cases int, want result.Outcome) {
	t.Helper()
	count, outcome := queueJournalCounts(t, out)
	switch {
	case cases > 0 && len(count) != cases:
		t.Errorf("%s: %d cases in the journal, want %d: %v", out, len(count), cases, count)
	case len(count) == 0:
		t.Errorf("%s: no case in the journal", out)
	}
	for k, n := range count {
		if n != 1 || outcome[k] != want {
			t.Errorf("%s: %s has %d records, %s; want exactly 1, %s", out, k, n, outcome[k], want)
		}
	}
}

// TestDistributedRunAgainstRealServer runs the inventory example through
// a real nats-server with three worker processes: one is killed (-9) in
// the middle of a group, then the coordinator is killed and resumed, then
// the server is stopped for a few seconds and started again on the same
// store. Each time every case is recorded exactly once.
func TestDistributedRunAgainstRealServer(t *testing.T) {
	srv := natstest.Start(t)
	sub := slowSubmission(t)
	cache := t.TempDir()
	var workers []*proc
	for i := 1; i <= 3; i++ {
		workers = append(workers, startProc(t, "worker", "--queue", srv.URL(), "--slots", "1", "--name", "w"+strconv.Itoa(i),
			"--cache", filepath.Join(cache, strconv.Itoa(i))))
	}
	for i, w := range workers {
		waitUntil(t, "worker "+strconv.Itoa(i+1)+" serves", func() bool { return strings.Contains(w.out.String(), "serving") })
	}
	runArgs := func(out string) []string {
		return []string{"run", "../../examples/inventory", "--submission", sub, "--queue", srv.URL(), "--ack-wait", "3s",
			"--progress", "none", "--out", out, "--no-history"}
	}

	t.Run("a worker killed mid-group", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "run")
		coord := startProc(t, runArgs(out)...)
		var victim *proc
		waitUntil(t, "a worker takes a group", func() bool {
			for _, w := range workers {
				if strings.Contains(w.out.String(), "running group") {
					victim = w
					return true
				}
			}
			return false
		})
		if err := victim.cmd.Process.Kill(); err != nil { // SIGKILL: no goodbye
			t.Fatal(err)
		}
		victim.wait(t, "the killed worker")
		midGroup := strings.Count(victim.out.String(), "running group") > strings.Count(victim.out.String(), "finished group")
		if code := coord.wait(t, "the coordinator"); code != 0 {
			t.Fatalf("run exited %d:\n%s", code, coord.out)
		}
		everyCaseOnce(t, out)
		if midGroup {
			// The group the killed worker held ran again elsewhere.
			redelivered := false
			for _, w := range workers {
				if w != victim && strings.Contains(w.out.String(), "(delivery 2)") {
					redelivered = true
				}
			}
			if !redelivered {
				t.Error("the killed worker's group was not delivered again to another worker")
			}
		} else {
			t.Log("the worker finished its group before it was killed")
		}
	})

	t.Run("the coordinator killed and resumed", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "run")
		coord := startProc(t, runArgs(out)...)
		waitUntil(t, "three records are in", func() bool { return journalLines(out) >= 3 })
		if err := coord.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		coord.wait(t, "the killed coordinator")
		if n := journalLines(out); n >= 20 {
			t.Logf("the run had finished (%d records) before the coordinator was killed", n)
		}
		again := startProc(t, "run", "--resume", out, "--queue", srv.URL(), "--ack-wait", "3s", "--progress", "none", "--no-history")
		if code := again.wait(t, "the resumed coordinator"); code != 0 {
			t.Fatalf("run --resume exited %d:\n%s", code, again.out)
		}
		everyCaseOnce(t, out)
		// Resumed once more, finished: nothing is handed out or waited for.
		done := startProc(t, "run", "--resume", out, "--queue", srv.URL(), "--ack-wait", "3s", "--progress", "none", "--no-history")
		if code := done.wait(t, "the coordinator of a finished run"); code != 0 {
			t.Fatalf("run --resume of a finished run exited %d:\n%s", code, done.out)
		}
		everyCaseOnce(t, out)
	})

	t.Run("the server stopped and started again", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "run")
		coord := startProc(t, runArgs(out)...)
		waitUntil(t, "two records are in", func() bool { return journalLines(out) >= 2 })
		srv.Stop()
		time.Sleep(3 * time.Second) // the outage itself, not a wait for a condition
		srv.Start()
		if code := coord.wait(t, "the coordinator"); code != 0 {
			t.Fatalf("run exited %d:\n%s", code, coord.out)
		}
		everyCaseOnce(t, out)
	})
	if t.Failed() {
		for i, w := range workers {
			t.Logf("worker %d:\n%s", i+1, w.out)
		}
	}
}

// A server that cannot be reached, or that refuses the credentials, is
// one clear line and exit 2, for the coordinator and for a worker.
func TestQueueBadServerIsOneLine(t *testing.T) {
	natstest.Require(t)
	port := natstest.FreePort(t)
	srv := exec.Command(natstest.Bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", t.TempDir(), "--user", "eval", "--pass", "s3cret")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	good := "nats://eval:s3cret@127.0.0.1:" + strconv.Itoa(port)
	waitUntil(t, "nats-server answers", func() bool {
		nc, _, err := distribute.Connect(context.Background(), good, "probe")
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	unreachable := "nats://127.0.0.1:" + strconv.Itoa(natstest.FreePort(t))
	for _, tc := range []struct{ url, want string }{
		{unreachable, "cannot reach the NATS server at " + unreachable},
		{"nats://eval:wrong@127.0.0.1:" + strconv.Itoa(port), "refused the credentials (authorization violation)"},
		{"http://127.0.0.1:" + strconv.Itoa(port), "want nats://HOST:PORT"},
	} {
		for _, args := range [][]string{
			{"worker", "--queue", tc.url},
			{"run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/reference", "--queue", tc.url, "--out", filepath.Join(t.TempDir(), "run")},
		} {
			res := wasmeval(t, args...)
			if res.code != exitUsage || !strings.Contains(res.stderr, tc.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
				t.Errorf("wasmeval %s: exit %d, stderr %q; want exit 2 and one line with %q", args[0], res.code, res.stderr, tc.want)
			}
			if strings.Contains(res.stderr, "s3cret") || strings.Contains(res.stderr, ":wrong@") {
				t.Errorf("wasmeval %s: the password is shown: %q", args[0], res.stderr)
			}
		}
	}
}
