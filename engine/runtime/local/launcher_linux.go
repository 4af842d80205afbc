//go:build linux

package local

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The launcher is this same binary, started by the engine for every process
// a case runs (see contain_linux.go for the engine's side and RATIONALE.md
// for why). It is recognised by launcherEnv as the package initialises, so
// any binary that links the local runtime — the CLI, a test binary — can
// launch, and it never reaches the program's main.
const launcherEnv = "WASMEVAL_LOCAL_LAUNCHER"

// File descriptors the engine hands the launcher.
const (
	// launchControlFD carries the launch config as one JSON line; the
	// engine keeps its end open while the case runs, and closing it (or
	// the engine dying) asks the launcher to kill everything and exit.
	launchControlFD = 3
	// launchStatusFD receives one JSON line: how the program ended.
	launchStatusFD = 4
)

// launchConfig is what the engine asks the launcher to run.
type launchConfig struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// MemoryBytes is RLIMIT_DATA for the program and everything it starts,
	// set before the program's first instruction; 0 means none.
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	// Namespaces says the launcher is the first process of a fresh PID and
	// mount namespace: it mounts a /proc of its own, the binds and the
	// covers below. Otherwise it is a child subreaper in the host's.
	Namespaces bool `json:"namespaces,omitempty"`
	// Binds are read-only bind mounts made before the covers (static
	// assets, seen at a path inside the session directory).
	Binds []bindMount `json:"binds,omitempty"`
	// Hide are directories covered with an empty read-only tmpfs: the
	// problem directory and the run directory, which hold what the
	// submission must not read (expected outputs, the journal).
	Hide []string `json:"hide,omitempty"`
	// Probe asks the launcher to set up the namespaces and report,
	// without running anything.
	Probe bool `json:"probe,omitempty"`
}

type bindMount struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// launchStatus is how the program ended, or why it did not start.
type launchStatus struct {
	Exited bool   `json:"exited,omitempty"`
	Code   int    `json:"code"`
	Signal int    `json:"signal,omitempty"`
	Error  string `json:"error,omitempty"`
	Probed bool   `json:"probed,omitempty"`
}

func init() {
	switch os.Getenv(launcherEnv) {
	case "init":
		os.Exit(launcherMain())
	case "exec":
		execStage() // does not return
	}
}

// launcherMain supervises one program: it starts it, reaps everything, and
// when the program exits — or the engine asks, or dies — kills every
// process the program left behind before it reports and exits.
func launcherMain() int {
	syscall.CloseOnExec(launchControlFD)
	syscall.CloseOnExec(launchStatusFD)
	control := os.NewFile(launchControlFD, "control")
	status := os.NewFile(launchStatusFD, "status")
	report := func(st launchStatus) int {
		line, _ := json.Marshal(st)
		status.Write(append(line, '\n'))
		return 0
	}
	// Nothing the program sends may stop the supervisor: in a PID
	// namespace the kernel already protects its first process, elsewhere
	// this covers every signal but SIGKILL. They are caught, not ignored:
	// an ignored signal stays ignored in the programs started after, a
	// caught one is reset to its default by exec.
	caught := make(chan os.Signal, 16)
	signal.Notify(caught, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGUSR1,
		syscall.SIGUSR2, syscall.SIGPIPE, syscall.SIGALRM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	go func() {
		for range caught {
		}
	}()

	in := bufio.NewReader(control)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return report(launchStatus{Error: fmt.Sprintf("read launch config: %v", err)})
	}
	var cfg launchConfig
	if err := json.Unmarshal(line, &cfg); err != nil {
		return report(launchStatus{Error: fmt.Sprintf("decode launch config: %v", err)})
	}
	// Opened before anything is covered: the binary itself may lie in a
	// hidden directory, and the memory cap needs it again (execStage).
	exe, err := os.Open("/proc/self/exe")
	if err != nil {
		return report(launchStatus{Error: fmt.Sprintf("open own executable: %v", err)})
	}
	if cfg.Namespaces {
		if err := setupMounts(&cfg); err != nil {
			return report(launchStatus{Error: err.Error()})
		}
	} else if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return report(launchStatus{Error: fmt.Sprintf("become a subreaper: %v", err)})
	}
	if cfg.Probe {
		return report(launchStatus{Probed: true})
	}

	pid, err := startProgram(&cfg, exe)
	exe.Close()
	if err != nil {
		return report(launchStatus{Error: err.Error()})
	}
	kill := func() { killAll(cfg.Namespaces) }
	go func() {
		// EOF, or anything: the engine wants the case over, or is gone.
		io.Copy(io.Discard, in)
		kill()
	}()

	var st launchStatus
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil { // ECHILD: everything is reaped
			break
		}
		if got == pid {
			switch {
			case ws.Exited():
				st = launchStatus{Exited: true, Code: ws.ExitStatus()}
			case ws.Signaled():
				st = launchStatus{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
			}
			// Whatever the program left running ends with it.
			kill()
		}
	}
	return report(st)
}

// startProgram starts the configured program as the launcher's child, in a
// process group of its own (so a program that signals its group, kill 0,
// does not signal the launcher).
func startProgram(cfg *launchConfig, exe *os.File) (int, error) {
	attr := &syscall.ProcAttr{
		Dir:   cfg.Dir,
		Env:   cfg.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	if cfg.MemoryBytes <= 0 {
		pid, err := syscall.ForkExec(cfg.Path, cfg.Argv, attr)
		if err != nil {
			return 0, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
		}
		return pid, nil
	}
	// A limit must hold from the program's first instruction, or what it
	// forks at once escapes it. Go cannot set a child's limits between fork
	// and exec, so a second stage of this binary sets them on itself and
	// then execs the program. It reports a failed exec on a close-on-exec
	// pipe, which reads empty once the exec succeeded.
	r, w, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	defer r.Close()
	attr.Files = append(attr.Files, exe.Fd(), w.Fd())
	attr.Env = append(append([]string{}, cfg.Env...), launcherEnv+"=exec")
	args := append([]string{"wasmeval-exec", strconv.FormatInt(cfg.MemoryBytes, 10), cfg.Path}, cfg.Argv...)
	pid, err := syscall.ForkExec("/proc/self/fd/3", args, attr)
	w.Close()
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	if msg, _ := io.ReadAll(r); len(msg) > 0 {
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, 0, nil)
		return 0, fmt.Errorf("start %s: %s", cfg.Argv[0], msg)
	}
	return pid, nil
}

// execStage is the second stage (see startProgram): argv is
// [name, memory bytes, path, program argv...], fd 3 is this binary and fd 4
// the error pipe. Everything is prepared before the limit is set, so
// nothing allocates under it.
func execStage() {
	fail := func(err error) {
		os.NewFile(4, "error").WriteString(err.Error())
		os.Exit(127)
	}
	if len(os.Args) < 4 {
		fail(errors.New("launcher: bad exec stage arguments"))
	}
	mem, err := strconv.ParseInt(os.Args[1], 10, 64)
	if err != nil {
		fail(err)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, launcherEnv+"=") {
			env = append(env, kv)
		}
	}
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	path, err := syscall.BytePtrFromString(os.Args[2])
	if err != nil {
		fail(err)
	}
	argv, err := syscall.SlicePtrFromStrings(os.Args[3:])
	if err != nil {
		fail(err)
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		fail(err)
	}
	lim := unix.Rlimit{Cur: uint64(mem), Max: uint64(mem)}
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &lim); err != nil {
		fail(fmt.Errorf("limit memory: %w", err))
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envp[0])))
	fail(errno)
}

// killAll kills every process the program left. In a PID namespace that is
// every other process in it (kill -1 from its first process); elsewhere it
// is every descendant of the launcher, which as a child subreaper also
// inherits the orphans of its tree, whatever their session, group or
// environment. Rounds repeat because a dying tree can still fork.
func killAll(namespaces bool) {
	if namespaces {
		syscall.Kill(-1, syscall.SIGKILL)
		return
	}
	self := os.Getpid()
	for round := 0; round < 1000; round++ {
		victims := liveDescendants(self)
		if len(victims) == 0 {
			return
		}
		for _, v := range victims {
			syscall.Kill(v, syscall.SIGKILL)
		}
	}
}

// liveDescendants is descendants without the zombies, which are dead
// already and wait only to be reaped.
func liveDescendants(root int) []int {
	var out []int
	for _, pid := range descendants(root) {
		if !isZombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// setupMounts gives the namespace its own /proc (so the program sees only
// its own processes, not the engine and its command line), then the
// read-only binds, then the covers. Mounts stay private to the namespace.
func setupMounts(cfg *launchConfig) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	for _, b := range cfg.Binds {
		if err := unix.Mount(b.Source, b.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", b.Source, err)
		}
		if err := unix.Mount("", b.Target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
			return fmt.Errorf("make %s read-only: %w", b.Target, err)
		}
	}
	for _, h := range cfg.Hide {
		err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("cover %s: %w", h, err)
		}
	}
	return nil
}
