package journal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdLockEnv makes the test binary a process that takes a run
// directory's lock, says so on stdout and holds it until it is killed or
// its stdin closes.
const holdLockEnv = "JOURNAL_TEST_HOLD_LOCK"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdLockEnv); dir != "" {
		l, err := LockDir(dir)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		bufio.NewReader(os.Stdin).ReadString('\n')
		l.Unlock()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startHolder starts another process that holds dir's lock.
func startHolder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdLockEnv+"="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("lock holder: %q %v", line, err)
	}
	return cmd
}

// A second writer is refused at once with the holder's pid, and a lock
// left by a process killed with SIGKILL does not block: the kernel
// released it.
func TestLockRefusesSecondWriterUntilHolderDies(t *testing.T) {
	dir := t.TempDir()
	holder := startHolder(t, dir)
	pid := holder.Process.Pid

	_, err := LockDir(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != pid || le.Dir != dir {
		t.Fatalf("second writer: %v, want a LockedError naming pid %d", err, pid)
	}
	if msg := err.Error(); !strings.Contains(msg, dir) || !strings.Contains(msg, "pid "+strconv.Itoa(pid)) {
		t.Fatalf("message: %s", msg)
	}
	if got, held, known := Holder(dir); !known || !held || got != pid {
		t.Fatalf("Holder: pid %d held %v known %v, want %d", got, held, known, pid)
	}

	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	l, err := LockDir(dir)
	if err != nil {
		t.Fatalf("lock after the holder was killed: %v", err)
	}
	if got, held, _ := Holder(dir); !held || got != os.Getpid() {
		t.Fatalf("Holder while this process holds it: %d %v", got, held)
	}
	// Within one process too, a second lock is refused: each LockDir is
	// its own open file.
	if _, err := LockDir(dir); !errors.As(err, &le) {
		t.Fatalf("second lock in the same process: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, held, _ := Holder(dir); held {
		t.Fatal("Holder says held after Unlock")
	}
	if _, err := os.Stat(dir + "/" + LockName); err != nil {
		t.Fatalf("the lock file is kept: %v", err)
	}
}

// A holder that ends normally releases the lock too.
func TestLockIsReleasedWhenHolderExits(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdLockEnv+"="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("holder: %q", line)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("holder did not exit")
	}
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
}
