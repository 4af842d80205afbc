//go:build linux

package local

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	evalruntime "github.com/wasmeval/wasmeval/engine/runtime"
)

// The launcher is this same binary, started by the engine once per group
// (and once per server) to run and contain that group's processes; see
// contain_linux.go for the engine's side and RATIONALE.md for why. It is
// recognised by launcherEnv as the package initialises, so any binary that
// links the local runtime — the CLI, a test binary — can launch, and it
// never reaches the program's main.
const launcherEnv = "WASMEVAL_LOCAL_LAUNCHER"

func init() {
	switch os.Getenv(launcherEnv) {
	case "init":
		os.Exit(launcherMain())
	case "exec":
		execStage() // does not return
	}
}

// launcher is the state of a running launcher.
type launcher struct {
	sock  int
	setup launchSetup
	exe   *os.File // this binary, opened before anything is covered
	null  *os.File // /dev/null, the stdin of programs given none
	// exec, when set, is the thread programs are started from (started
	// by root, with namespaces).
	exec *execThread
	// bound is the workspace bound writable inside the read-only session
	// directory, and boundCopy which copy of it (programSpec.Workspace).
	bound     string
	boundCopy int
	sendM     sync.Mutex
}

func (l *launcher) send(r reply) {
	l.sendM.Lock()
	defer l.sendM.Unlock()
	sendMessage(l.sock, r)
}

// launcherMain serves the engine: it sets up the containment, then runs
// one program at a time. When a program exits — or the engine asks, or
// goes away — it kills every process the program left behind and reaps
// them all before it reports, so a program's end and its processes' end
// are one moment for the engine.
func launcherMain() int {
	syscall.CloseOnExec(launchFD)
	l := &launcher{sock: launchFD}
	// Nothing a program sends may stop the launcher: in a PID namespace
	// the kernel already protects its first process, elsewhere this covers
	// every signal but SIGKILL. They are caught, not ignored: an ignored
	// signal would stay ignored in the programs started after, a caught
	// one is reset to its default by exec.
	caught := make(chan os.Signal, 16)
	signal.Notify(caught, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGUSR1,
		syscall.SIGUSR2, syscall.SIGPIPE, syscall.SIGALRM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	go func() {
		for range caught {
		}
	}()

	var first request
	if _, err := recvMessage(l.sock, &first); err != nil || first.Op != "setup" || first.Setup == nil {
		l.send(reply{Op: "error", Error: fmt.Sprintf("launcher: no setup (%v)", err)})
		return 1
	}
	l.setup = *first.Setup
	// The binary may lie in a directory about to be covered, and the
	// memory cap's fallback needs it again (execStage).
	exe, err := os.Open("/proc/self/exe")
	if err != nil {
		l.send(reply{Op: "error", Error: fmt.Sprintf("open own executable: %v", err)})
		return 1
	}
	l.exe = exe
	if l.setup.Namespaces {
		err = setupMounts(&l.setup)
	} else if err = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		err = fmt.Errorf("become a subreaper: %w", err)
	}
	if err != nil {
		l.send(reply{Op: "error", Error: err.Error()})
		return 1
	}
	if l.setup.Namespaces && l.setup.Uid == 0 {
		if l.exec, err = newExecThread(); err != nil {
			l.send(reply{Op: "error", Error: err.Error()})
			return 1
		}
	}
	l.send(reply{Op: "ready"})
	if l.setup.Probe {
		return 0
	}
	done := make(chan struct{}) // closed when the last program's tree is reaped
	close(done)
	for {
		var req request
		files, err := recvMessage(l.sock, &req)
		if err != nil {
			// The engine closed the socket or died: nothing may outlive it.
			l.killAll()
			<-done
			return 0
		}
		switch req.Op {
		case "run":
			<-done
			pid, err := l.start(req.Run, files)
			closeAll(files)
			if err != nil {
				l.send(reply{Op: "error", Error: err.Error()})
				continue
			}
			done = make(chan struct{})
			go l.supervise(pid, done)
		case "kill":
			closeAll(files)
			l.killAll()
		default:
			closeAll(files)
		}
	}
}

// supervise reaps everything until the program and all it left are gone,
// killing the rest as soon as the program exits, then reports.
func (l *launcher) supervise(pid int, done chan struct{}) {
	defer close(done)
	var st reply
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
				st = reply{Op: "exited", Code: ws.ExitStatus()}
			case ws.Signaled():
				st = reply{Op: "exited", Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
			}
			// Whatever the program left running ends with it.
			l.killAll()
		}
	}
	l.send(st)
}

// start starts the program as the launcher's child, in a process group of
// its own (so a program that signals its group, kill 0, does not signal
// the launcher), with the files the engine sent as its stdout, stderr and
// stdin.
func (l *launcher) start(p *programSpec, files []int) (int, error) {
	if p == nil || len(p.Argv) == 0 || len(files) < 2 || p.Stdin && len(files) < 3 {
		return 0, errors.New("launcher: bad run request")
	}
	if l.null == nil {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return 0, err
		}
		l.null = null
	}
	stdin := l.null.Fd()
	if p.Stdin {
		stdin = uintptr(files[2])
	}
	if l.setup.Namespaces && l.setup.Guard != "" && (l.bound != p.Dir || l.boundCopy != p.Workspace) {
		// Mounts are dear (an unmount waits for the kernel's RCU grace
		// period): only a new copy of the workspace needs a new bind.
		if err := l.bindWorkspace(p.Dir); err != nil {
			return 0, err
		}
		l.boundCopy = p.Workspace
	}
	attr := &syscall.ProcAttr{
		Dir:   p.Dir,
		Env:   p.Env,
		Files: []uintptr{stdin, uintptr(files[0]), uintptr(files[1])},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	}
	// The launcher may mount; a program, even as root, must not be able
	// to undo those mounts. Started by root, the launcher starts programs
	// from a thread that can pass on no capability (execThread). Started
	// by a user, it is root only of its own user namespace, and each
	// program gets a user namespace below it in which it is that user
	// again, holding no capability over the launcher's mounts.
	if l.setup.Namespaces && l.exec == nil {
		attr.Sys.Cloneflags = syscall.CLONE_NEWUSER
		attr.Sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: l.setup.Uid, HostID: os.Getuid(), Size: 1}}
		attr.Sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: l.setup.Gid, HostID: os.Getgid(), Size: 1}}
		attr.Sys.GidMappingsEnableSetgroups = false
	}
	var pid int
	var err error
	fork := func() {
		if p.MemoryBytes <= 0 {
			pid, err = syscall.ForkExec(p.Path, p.Argv, attr)
			return
		}
		pid, err = startCapped(p, attr)
		if errors.Is(err, errNoTrace) {
			pid, err = l.startCappedByExec(p, attr)
		}
	}
	if l.exec != nil {
		l.exec.do(fork)
	} else {
		fork()
	}
	if err != nil {
		return 0, evalruntime.StartError(p.Argv[0], err)
	}
	return pid, nil
}

var errNoTrace = errors.New("ptrace refused")

// startCapped applies a memory cap before the program's first instruction:
// the program starts traced, so the kernel stops it right after its exec;
// the cap is set then, and the program let go. Go cannot set a child's
// limits between fork and exec, and a cap set any later leaves whatever
// the program forks at once uncapped.
func startCapped(p *programSpec, attr *syscall.ProcAttr) (int, error) {
	// The tracer is a thread, not a process: fork, wait and detach must
	// all come from this one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	traced := *attr.Sys
	traced.Ptrace = true
	attr.Sys = &traced
	pid, err := syscall.ForkExec(p.Path, p.Argv, attr)
	if errors.Is(err, syscall.EPERM) {
		return 0, errNoTrace
	}
	if err != nil {
		return 0, err
	}
	var ws unix.WaitStatus
	for {
		_, err = unix.Wait4(pid, &ws, 0, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil || !ws.Stopped() {
		syscall.Kill(pid, syscall.SIGKILL)
		return 0, fmt.Errorf("the program did not stop at its start (%v)", err)
	}
	lim := unix.Rlimit{Cur: uint64(p.MemoryBytes), Max: uint64(p.MemoryBytes)}
	err = unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil)
	if derr := syscall.PtraceDetach(pid); err == nil && derr != nil {
		err = derr
	}
	if err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		return 0, fmt.Errorf("limit memory: %w", err)
	}
	return pid, nil
}

// startCappedByExec is the cap where tracing is refused (a seccomp policy,
// Yama's ptrace_scope): a second stage of this binary sets the limit on
// itself and then execs the program, at the cost of one more process
// start. It reports a failed exec on a close-on-exec pipe, which reads
// empty once the exec succeeded.
func (l *launcher) startCappedByExec(p *programSpec, attr *syscall.ProcAttr) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	attr.Files = append(attr.Files, l.exe.Fd(), w.Fd())
	attr.Env = append(append([]string{}, p.Env...), launcherEnv+"=exec")
	args := append([]string{"wasmeval-exec", strconv.FormatInt(p.MemoryBytes, 10), p.Path}, p.Argv...)
	pid, err := syscall.ForkExec("/proc/self/fd/3", args, attr)
	w.Close()
	if err != nil {
		return 0, err
	}
	if msg, _ := io.ReadAll(r); len(msg) > 0 {
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, 0, nil)
		return 0, errors.New(string(msg))
	}
	return pid, nil
}

// execStage is the second stage (see startCappedByExec): argv is
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

// killAll kills every process the launcher's programs left. In a PID
// namespace that is every other process in it (kill -1 from its first
// process); elsewhere it is every descendant of the launcher, which as a
// child subreaper also inherits the orphans of its tree, whatever their
// session, group or environment.
func (l *launcher) killAll() {
	if l.setup.Namespaces {
		syscall.Kill(-1, syscall.SIGKILL)
		return
	}
	self := os.Getpid()
	killRounds(1000, func() []int { return liveDescendants(self) })
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

// bindWorkspace makes dir (a workspace inside the read-only session
// directory) writable for the next program: a bind of the directory that
// is there now, since a reset puts a fresh copy in its place between
// programs.
func (l *launcher) bindWorkspace(dir string) error {
	if l.bound != "" {
		if err := unix.Unmount(l.bound, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("unbind workspace: %w", err)
		}
		l.bound = ""
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind workspace: %w", err)
	}
	l.bound = dir
	// A bind inside a read-only mount starts read-only.
	if err := remount(dir, unix.MS_NOSUID|unix.MS_NODEV); err != nil {
		return fmt.Errorf("make workspace writable: %w", err)
	}
	return nil
}

// coverSiblings covers root with an empty tmpfs and binds the session
// directory guard (inside root) back at its own path, then makes the
// tmpfs read-only: what else root holds is out of sight. The session
// directory is held open (O_PATH) before root is covered, since its path
// then leads into the tmpfs.
func coverSiblings(root, guard string) error {
	var err error
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return err
	}
	if guard, err = filepath.EvalSymlinks(guard); err != nil {
		return err
	}
	if !within(guard, root) || root == guard {
		return fmt.Errorf("session directory %s is not inside %s", guard, root)
	}
	fd, err := unix.Open(guard, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64k,mode=0755"); err != nil {
		return err
	}
	if err := os.MkdirAll(guard, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", fd), guard, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind the session directory back: %w", err)
	}
	return unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64k,mode=0755")
}

// remount sets the flags of the bind mount at target, keeping those of the
// mount it was made from that a user namespace may not clear (noexec,
// nosuid, nodev, the atime flags): leaving one out is refused there.
func remount(target string, flags uintptr) error {
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err != nil {
		return err
	}
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|flags, "")
}

// setupMounts gives the namespace its own /proc (so a program sees only its
// own processes, not the engine and its command line), then the read-only
// binds, then the covers. Mounts stay private to the namespace.
func setupMounts(s *launchSetup) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	if s.Siblings != "" && s.Guard != "" {
		if err := coverSiblings(s.Siblings, s.Guard); err != nil {
			return fmt.Errorf("cover the other sessions in %s: %w", s.Siblings, err)
		}
	}
	for _, b := range s.Binds {
		if err := unix.Mount(b.Source, b.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", b.Source, err)
		}
		if err := remount(b.Target, unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV); err != nil {
			return fmt.Errorf("make %s read-only: %w", b.Target, err)
		}
	}
	if s.Guard != "" {
		if err := unix.Mount(s.Guard, s.Guard, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind session directory: %w", err)
		}
		if err := remount(s.Guard, unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV); err != nil {
			return fmt.Errorf("make session directory read-only: %w", err)
		}
	}
	for _, h := range s.Hide {
		err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("cover %s: %w", h, err)
		}
	}
	return nil
}
