//go:build linux

package executor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

func init() {
	if len(os.Args) >= 3 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2]))
	}
}

// drainDelay bounds how long a case's output is awaited once everything
// that could write it was killed (a process spared as a server's could
// still hold it).
const drainDelay = 2 * time.Second

// cleanLimit bounds how long the executor keeps killing what a case left.
const cleanLimit = 30 * time.Second

// Main is the executor process: the container's PID 1, connected to the
// engine through the socket at sock. It returns when the engine goes away,
// which stops the container with everything in it.
func Main(sock string) int {
	// Not dumpable: a process in the container without CAP_SYS_PTRACE
	// (which Docker does not grant) cannot trace it or read its memory,
	// even as the same user.
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	goruntime.GOMAXPROCS(2)
	// As its PID namespace's init the kernel already drops, from inside,
	// every signal it has no handler for, SIGKILL and SIGSTOP included.
	// Go installs handlers for all of them, so all are caught here and
	// dropped but the stop signals (caught, not ignored: an ignored signal
	// would stay ignored in the cases, a caught one is reset by exec).
	// SIGCHLD wakes the reaper for orphans the container's other
	// processes leave.
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs)
	r := theReaper()
	go func() {
		for s := range sigs {
			switch s {
			case syscall.SIGCHLD:
				r.wake()
			case syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT:
				// What docker stop sends (and restart): the container
				// stops as any main process would have it stop, with
				// everything in it. From inside, only a case allowed to
				// signal PID 1 can send them, and ending its own
				// container is then the case's doing (the engine tells
				// the two apart by the daemon's events).
				os.Exit(128 + int(s.(syscall.Signal)))
			}
		}
	}()
	warmThreads()
	c, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wasmeval executor: connect to the engine at %s: %v\n", sock, err)
		return 1
	}
	x := &executor{conn: c, reaper: r, self: os.Getpid()}
	if err := x.serve(); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(os.Stderr, "wasmeval executor: %v\n", err)
		return 1
	}
	return 0
}

// warmThreads makes the runtime start a few OS threads while it can: a
// case that spends the container's pids limit leaves the executor unable
// to create one, and the Go runtime aborts when it needs a thread it
// cannot have. Idle threads are kept, and reused.
func warmThreads() {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := unix.NsecToTimespec(int64(30 * time.Millisecond))
			unix.Nanosleep(&ts, nil)
		}()
	}
	wg.Wait()
}

// Serve answers the engine on c as an executor would, without the
// process-wide setup of Main (tests run it in process).
func Serve(c net.Conn) error {
	x := &executor{conn: c, reaper: theReaper(), self: os.Getpid(), local: true}
	return x.serve()
}

type executor struct {
	conn   net.Conn
	wmu    sync.Mutex
	reaper *reaper
	self   int
	// local says the executor is not its namespace's init (in-process
	// tests): it kills a case's tree at its timeout, and nothing else
	// (the process is not its own, and orphans are not its to reap).
	local bool

	mu     sync.Mutex
	active *run // the case running, if any

	// fwd are the services of the engine's the container reaches.
	fwd forwards
}

func (x *executor) send(kind byte, payload []byte) error {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	return writeFrame(x.conn, kind, payload)
}

func (x *executor) reply(r Reply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return x.send(kindJSON, b)
}

// serve runs the handshake, then requests until the engine closes the
// connection.
func (x *executor) serve() error {
	defer x.conn.Close()
	if err := writeJSON(x.conn, Hello{Protocol: Protocol, Version: Version, PID: x.self}); err != nil {
		return err
	}
	kind, payload, err := readFrame(x.conn)
	if err != nil {
		return fmt.Errorf("no hello from the engine: %w", err)
	}
	if _, err := checkHello(kind, payload, "engine"); err != nil {
		x.reply(Reply{Op: "error", Error: err.Error()})
		return err
	}
	if err := x.reply(Reply{Op: "ready"}); err != nil {
		return err
	}
	var cur *run // the last run started: stdin frames go to it
	defer func() {
		// The engine is gone: nothing may outlive it.
		x.fwd.closeAll()
		x.clean(false)
	}()
	for {
		kind, payload, err := readFrame(x.conn)
		if err != nil {
			if cur != nil {
				cur.kill()
			}
			return err
		}
		switch kind {
		case kindStdin:
			if cur != nil && !cur.stdinClosed {
				cur.stdin <- payload
			}
			continue
		case kindEOF:
			if cur != nil && !cur.stdinClosed {
				cur.stdinClosed = true
				close(cur.stdin)
			}
			continue
		case kindJSON:
		default:
			return fmt.Errorf("executor protocol: unexpected %q frame", kind)
		}
		var req Request
		if err := json.Unmarshal(payload, &req); err != nil {
			return fmt.Errorf("executor protocol: decode request: %w", err)
		}
		x.mu.Lock()
		busy := x.active
		x.mu.Unlock()
		switch req.Op {
		case "run":
			if busy != nil {
				x.reply(Reply{Op: "error", Error: "a case is already running"})
				continue
			}
			cur = newRun(req)
			x.mu.Lock()
			x.active = cur
			x.mu.Unlock()
			go x.run(cur)
		case "kill":
			if busy != nil {
				busy.kill()
			}
		case "sweep":
			if busy != nil {
				x.reply(Reply{Op: "error", Error: "a case is running"})
				continue
			}
			killed, left := x.clean(req.SpareExecs)
			x.reply(Reply{Op: "swept", Killed: killed, Left: left})
		case "empty":
			if busy != nil {
				x.reply(Reply{Op: "error", Error: "a case is running"})
				continue
			}
			rep := Reply{Op: "emptied"}
			if err := empty(req.Dir); err != nil {
				rep.Error = err.Error()
			}
			x.reply(rep)
		case "forward":
			// Independent of cases: the engine sends it between them
			// (a new container gets its group's forwards before its
			// first case).
			if err := x.fwd.open(req.Listen, req.To); err != nil {
				x.reply(Reply{Op: "error", Error: err.Error()})
				continue
			}
			x.reply(Reply{Op: "forwarding"})
		default:
			x.reply(Reply{Op: "error", Error: fmt.Sprintf("unknown request %q", req.Op)})
		}
	}
}

// run is one case in progress.
type run struct {
	req         Request
	stdin       chan []byte
	stdinClosed bool // touched by the request loop only
	killed      chan struct{}
	killOnce    sync.Once
}

func newRun(req Request) *run {
	return &run{req: req, stdin: make(chan []byte, 1024), killed: make(chan struct{})}
}

func (r *run) kill() { r.killOnce.Do(func() { close(r.killed) }) }

// run runs the case to its end and reports it: the exit status once the
// case's root exited (or was killed at the timeout), everything else it
// started was killed and reaped, and its output read.
func (x *executor) run(r *run) {
	rep := x.runCase(r)
	x.mu.Lock()
	x.active = nil
	x.mu.Unlock()
	x.reply(rep)
}

func (x *executor) runCase(r *run) Reply {
	req := r.req
	fail := func(err error) Reply {
		if !r.req.Stdin {
			return Reply{Op: "error", Error: err.Error()}
		}
		go func() { // drain what is still on its way
			for range r.stdin {
			}
		}()
		return Reply{Op: "error", Error: err.Error()}
	}
	if len(req.Argv) == 0 {
		return fail(errors.New("empty command"))
	}
	path, err := lookPath(req.Argv[0], envPath(req.Env), req.Dir)
	if err != nil {
		return fail(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fail(err)
	}
	var in *os.File
	var inW *os.File
	if req.Stdin {
		in, inW, err = os.Pipe()
	} else {
		in, err = os.Open(os.DevNull)
	}
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return fail(err)
	}
	attr := &syscall.ProcAttr{
		Dir:   req.Dir,
		Env:   req.Env,
		Files: []uintptr{in.Fd(), outW.Fd(), errW.Fd()},
		// A session of its own: the case shares nothing with the
		// executor's, and a case that signals its process group (kill 0)
		// does not signal the executor.
		Sys: &syscall.SysProcAttr{Setsid: true},
	}
	pid, exited, err := x.reaper.start(func() (int, error) { return syscall.ForkExec(path, req.Argv, attr) })
	in.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		return fail(runtime.StartError(req.Argv[0], err))
	}
	if inW != nil {
		go func() {
			for b := range r.stdin {
				inW.Write(b) // a case that closed its stdin gets nothing more
			}
			inW.Close()
		}()
	}
	limit := req.OutputCap
	if limit <= 0 {
		limit = 16 << 20
	}
	var pumps sync.WaitGroup
	var dropped [2]int64
	for i, p := range []struct {
		f    *os.File
		kind byte
	}{{outR, kindStdout}, {errR, kindStderr}} {
		pumps.Add(1)
		go func() {
			defer pumps.Done()
			dropped[i] = x.pump(p.f, p.kind, limit)
		}()
	}

	var timeout <-chan time.Time
	if req.TimeoutMS > 0 {
		t := time.NewTimer(time.Duration(req.TimeoutMS) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	rep := Reply{Op: "exited"}
	var st waitResult
	select {
	case st = <-exited:
	case <-timeout:
		rep.Timed = true
		rep.Killed += x.killTree(pid)
		st = <-exited
	case <-r.killed:
		rep.Killed += x.killTree(pid)
		st = <-exited
	}
	// Whatever the case left running ends with it.
	killed, left := x.clean(req.SpareExecs)
	rep.Killed += killed
	rep.Left = left
	drained := make(chan struct{})
	go func() {
		pumps.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(drainDelay):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()
	rep.StdoutDropped, rep.StderrDropped = dropped[0], dropped[1]
	switch ws := st.ws; {
	case ws.Exited():
		rep.Code = ws.ExitStatus()
	case ws.Signaled():
		rep.Signal = int(ws.Signal())
		rep.Code = 128 + rep.Signal
	}
	rep.Usage = &Usage{
		UserMicros:   st.ru.Utime.Sec*1e6 + st.ru.Utime.Usec,
		SystemMicros: st.ru.Stime.Sec*1e6 + st.ru.Stime.Usec,
		MaxRSSKiB:    st.ru.Maxrss,
	}
	return rep
}

// pump sends what f yields as frames of kind, up to limit bytes, and
// drains and counts the rest: a flooding case is never blocked, and never
// buffered past the cap.
func (x *executor) pump(f *os.File, kind byte, limit int64) (dropped int64) {
	buf := make([]byte, 64<<10)
	var kept int64
	for {
		n, err := f.Read(buf)
		if n > 0 {
			keep := min(int64(n), limit-kept)
			if keep > 0 {
				x.send(kind, buf[:keep])
				kept += keep
			}
			dropped += int64(n) - keep
		}
		if err != nil {
			return dropped
		}
	}
}

// killTree kills the case's root and its descendants (stopped first, so
// none forks in between); orphans go with the clean that follows.
func (x *executor) killTree(root int) int {
	n := 0
	for round := 0; round < 64; round++ {
		procs := scanProcs()
		var tree []int
		for pid := range procs {
			if pid != x.self && descends(pid, root, procs) && procs[pid].state != 'Z' {
				tree = append(tree, pid)
			}
		}
		if len(tree) == 0 {
			return n
		}
		for _, p := range tree {
			unix.Kill(p, unix.SIGSTOP)
		}
		for _, p := range tree {
			unix.Kill(p, unix.SIGKILL)
		}
		n += len(tree)
	}
	return n
}

// clean kills every process in the container that no `docker exec`
// started (those have parent 0: Docker's shim, outside the namespace),
// and waits until the executor has reaped them: a zombie still holds its
// slot under the pids limit. When none of those run and the engine
// expects none, one kill(-1) does it: the kernel signals every process
// but init in one pass, and a fork racing it fails, so no process escapes
// by forking. Otherwise processes are stopped before they are killed, and
// only two clean scans in a row end it. It returns how many processes it
// killed and how many are left if it gave up.
func (x *executor) clean(spareExecs bool) (killed, left int) {
	if x.local {
		return 0, 0
	}
	deadline := time.Now().Add(cleanLimit)
	cleanScans := 0
	for time.Now().Before(deadline) {
		procs := scanProcs()
		var doomed []int
		execs, zombies := false, false
		for pid, p := range procs {
			switch {
			case pid == x.self:
			case fromExec(pid, procs):
				execs = true
			case p.state == 'Z':
				zombies = true
			default:
				doomed = append(doomed, pid)
			}
		}
		if len(doomed) > 0 {
			cleanScans = 0
			killed += len(doomed)
			if !spareExecs && !execs {
				unix.Kill(-1, unix.SIGKILL)
				continue
			}
			for _, p := range doomed {
				unix.Kill(p, unix.SIGSTOP)
			}
			for _, p := range doomed {
				unix.Kill(p, unix.SIGKILL)
			}
			continue
		}
		if zombies {
			x.reaper.wake()
			time.Sleep(time.Millisecond)
			continue
		}
		if cleanScans++; cleanScans >= 2 {
			return killed, 0
		}
	}
	for pid := range scanProcs() {
		if pid != x.self {
			left++
		}
	}
	return killed, left
}

type procInfo struct {
	ppid  int
	state byte
}

// scanProcs reads every process's parent and state from /proc.
func scanProcs() map[int]procInfo {
	out := map[int]procInfo{}
	d, err := os.Open("/proc")
	if err != nil {
		return out
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	buf := make([]byte, 512)
	for _, name := range names {
		pid := atoi(name)
		if pid <= 0 {
			continue
		}
		f, err := os.Open("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		n, _ := f.Read(buf)
		f.Close()
		s := string(buf[:n])
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+4 > len(s) {
			continue
		}
		fields := strings.Fields(s[i+2:])
		if len(fields) < 2 {
			continue
		}
		out[pid] = procInfo{state: fields[0][0], ppid: atoi(fields[1])}
	}
	return out
}

func atoi(s string) int {
	n := 0
	if s == "" {
		return -1
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// fromExec says whether pid's ancestry reaches a process whose parent is
// outside the namespace (0): a `docker exec` root, not the executor.
func fromExec(pid int, procs map[int]procInfo) bool {
	for i := 0; i < 4096; i++ {
		p, ok := procs[pid]
		if !ok {
			return false // the chain broke mid-scan: not provably an exec's
		}
		switch p.ppid {
		case 0:
			return pid != 1
		case 1:
			return false
		}
		pid = p.ppid
	}
	return false
}

// descends says whether pid is root or below it.
func descends(pid, root int, procs map[int]procInfo) bool {
	for i := 0; i < 4096; i++ {
		if pid == root {
			return true
		}
		p, ok := procs[pid]
		if !ok || p.ppid <= 0 {
			return false
		}
		pid = p.ppid
	}
	return false
}

// envPath is the PATH of an environment list.
func envPath(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return ""
}

// lookPath resolves the program as the exec path's wrapper does, against
// the case's PATH with the case's working directory for relative names,
// with the same messages.
func lookPath(name, pathEnv, dir string) (string, error) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	p := name
	if !strings.Contains(name, "/") {
		p = ""
		for _, d := range strings.Split(pathEnv, ":") {
			if d == "" {
				d = "."
			}
			c := d + "/" + name
			if st, err := os.Stat(abs(c)); err == nil && st.Mode().IsRegular() && unix.Access(abs(c), unix.X_OK) == nil {
				p = c
				break
			}
		}
		if p == "" {
			return "", fmt.Errorf("start %s: not found in PATH (%s)", name, pathEnv)
		}
	}
	st, err := os.Stat(abs(p))
	if err != nil {
		return "", fmt.Errorf("start %s: no such file or directory", name)
	}
	if st.IsDir() || unix.Access(abs(p), unix.X_OK) != nil {
		return "", fmt.Errorf("start %s: not an executable file", name)
	}
	return p, nil
}

// empty removes the contents of dir without following a symlink out of
// it: every name is resolved beneath dir by the kernel (os.Root).
func empty(dir string) error {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	d, err := r.Open(".")
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if err := r.RemoveAll(n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// waitResult is a reaped process's status.
type waitResult struct {
	ws unix.WaitStatus
	ru unix.Rusage
}

// reaper reaps every child of the executor — its cases' roots and, as
// init, every orphan in the container — and hands the status of the
// processes it started to whoever waits for them.
type reaper struct {
	mu    sync.Mutex
	watch map[int]chan waitResult
	kick  chan struct{}
}

var (
	reaperOnce sync.Once
	reaperOne  *reaper
)

// theReaper is the process's reaper: there can be only one waiting for
// any child.
func theReaper() *reaper {
	reaperOnce.Do(func() {
		reaperOne = &reaper{watch: map[int]chan waitResult{}, kick: make(chan struct{}, 1)}
		go reaperOne.loop()
	})
	return reaperOne
}

func (r *reaper) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// start runs fork and watches the process it started; the reaper cannot
// hand its status out before it is watched (it takes mu to).
func (r *reaper) start(fork func() (int, error)) (int, <-chan waitResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, err := fork()
	if err != nil {
		return 0, nil, err
	}
	ch := make(chan waitResult, 1)
	r.watch[pid] = ch
	r.wake()
	return pid, ch, nil
}

func (r *reaper) loop() {
	for {
		var res waitResult
		pid, err := unix.Wait4(-1, &res.ws, 0, &res.ru)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ECHILD):
			<-r.kick
			continue
		case err != nil:
			time.Sleep(time.Millisecond)
			continue
		}
		r.mu.Lock()
		ch := r.watch[pid]
		delete(r.watch, pid)
		r.mu.Unlock()
		if ch != nil {
			ch <- res
		}
	}
}
