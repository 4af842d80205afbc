package docker

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"
)

// A case's processes are found by where they sit in the container's
// process tree, never by anything they carry (an environment marker is
// shed by `env -i` or an execve with an empty environment). Inside the
// container:
//
//   - every exec the engine starts (a case, a server, a forwarder, the
//     killer) has parent 0: its parent is Docker's shim, outside the
//     container's PID namespace, and no process inside can make a child
//     whose parent is outside;
//   - every process whose parent exits is re-parented to PID 1 (Docker's
//     init), the namespace's reaper;
//   - init and the container's main process are the only processes of
//     session 1: a session cannot be joined, only created (with the
//     caller's own PID as its ID), and neither of them forks.
//
// So once a case's exec is over, whatever it left behind hangs under
// PID 1 and is not in session 1, while a server's processes hang under
// the server's exec. RATIONALE.md weighs this against the alternatives.

// killer defines wk_sweep [-c MAX] [ROOT...], which kills the trees of
// the exec roots given (container PIDs) and every orphan (a process whose
// ancestry reaches PID 1 outside session 1, or is broken by an exit
// mid-scan), and spares everything else: init and the main process, the
// trees of other execs (servers, forwarders) and its own ancestry (the
// case wrapper runs it in its own shell). It stops them all before it
// kills any, so a fork bomb cannot refill the slots it frees, and it
// never forks (shell builtins only: under a spent pids limit nothing
// could). A process forked after a scan listed /proc is in no scan yet,
// so only two clean scans in a row count; then it waits (boundedly) until
// init has reaped the killed, since a zombie still holds its slot under
// the pids limit. With -c, the container's pids cgroup must then hold at
// most MAX tasks: the kernel's count sees processes no scan does (a chain
// that forks and exits faster than /proc can be read). It returns 0 when
// done, 2 when the count stayed over MAX, 1 when scans never came clean.
const killer = `wk_scan() {
	for wk_p in $wk_L; do unset wk_P$wk_p wk_S$wk_p wk_T$wk_p; done
	wk_L=
	for wk_f in /proc/[0-9]*/stat; do
		read -r wk_s 2>/dev/null < "$wk_f" || continue
		wk_p=${wk_f#/proc/}; wk_p=${wk_p%/stat}
		set -- ${wk_s##*") "}
		eval "wk_P$wk_p=\$2 wk_S$wk_p=\$4 wk_T$wk_p=\$1"
		wk_L="$wk_L $wk_p"
	done
}
wk_doomed() {
	wk_c=$1; wk_i=0
	while [ $wk_i -lt 4096 ]; do
		case $wk_R in *" $wk_c "*) return 0 ;; esac
		eval "wk_pp=\${wk_P$wk_c-} wk_sid=\${wk_S$wk_c-}"
		[ -z "$wk_pp" ] && return 0
		[ "$wk_sid" = 1 ] && return 1
		[ "$wk_pp" = 0 ] && return 1
		[ "$wk_pp" = 1 ] && return 0
		wk_c=$wk_pp; wk_i=$((wk_i+1))
	done
	return 0
}
wk_sweep() {
	wk_max=; if [ "$1" = -c ]; then wk_max=$2; shift 2; fi
	wk_R=" $* "; wk_L=; wk_e=0; wk_r=0; wk_n=; wk_w=0
	while [ $wk_r -lt 64 ]; do
		wk_scan
		wk_a=" "; wk_c=$$
		while [ -n "$wk_c" ] && [ "$wk_c" != 0 ]; do wk_a="$wk_a$wk_c "; eval "wk_c=\${wk_P$wk_c-}"; done
		wk_v=; wk_z=
		for wk_p in $wk_L; do
			case $wk_a in *" $wk_p "*) continue ;; esac
			wk_doomed $wk_p || continue
			eval "wk_t=\$wk_T$wk_p"
			if [ "$wk_t" = Z ]; then wk_z=1; else wk_v="$wk_v $wk_p"; fi
		done
		if [ -n "$wk_v" ]; then
			wk_e=0; wk_r=$((wk_r+1))
			kill -STOP $wk_v 2>/dev/null; kill -KILL $wk_v 2>/dev/null
			continue
		fi
		if [ -n "$wk_z" ] && [ $wk_w -lt 2000 ]; then wk_w=$((wk_w+1)); continue; fi
		wk_e=$((wk_e+1)); wk_r=$((wk_r+1))
		[ $wk_e -lt 2 ] && continue
		[ -z "$wk_max" ] && return 0
		wk_n=
		read -r wk_n 2>/dev/null < /sys/fs/cgroup/pids.current || read -r wk_n 2>/dev/null < /sys/fs/cgroup/pids/pids.current
		[ -z "$wk_n" ] && return 0
		[ "$wk_n" -le "$wk_max" ] && return 0
		wk_e=0
	done
	[ -n "$wk_n" ] && [ -n "$wk_max" ] && [ "$wk_n" -gt "$wk_max" ] && return 2
	return 1
}
`

// sweepScript runs the killer as an exec of its own.
const sweepScript = killer + `wk_sweep "$@"
`

// baseTasks is what a container's pids cgroup holds when nothing but the
// container itself runs: Docker's init and the main process it started.
const baseTasks = 2

// sweepTries bounds how often a sweep is retried before the container is
// replaced instead.
const sweepTries = 20

// settle makes sure nothing a finished case started still runs. When no
// server or forwarder runs, the container must be down to baseTasks, which
// the host's count of the container's pids cgroup tells without entering
// the container; anything else takes a sweep.
func (s *session) settle() {
	if s.quiet() {
		if clean, ok := s.hostClean(); ok && clean {
			return
		}
	}
	s.sweep(nil)
}

// hostClean reports, from the host's view of the container's pids cgroup,
// whether nothing but the container itself runs in it: init and its main
// process, or the executor's own threads. ok is false when the host's
// cgroups are not visible.
func (s *session) hostClean() (clean, ok bool) {
	c := s.counter()
	if c == nil {
		return false, false
	}
	s.mu.Lock()
	pid := s.execPID
	s.mu.Unlock()
	if pid > 0 {
		tids, err := c.tasks()
		if err != nil {
			return false, false
		}
		for _, tid := range tids {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d", pid, tid)); err != nil {
				return false, true
			}
		}
		return true, true
	}
	n, err := c.read()
	if err != nil {
		return false, false
	}
	return n <= baseTasks, true
}

// sweep kills the trees of roots (container PIDs of exec roots) and every
// orphan, from an exec of its own run as root, so a case cannot outlive
// its end by changing user. What the killer reports is checked where the
// container cannot lie: when no server or forwarder runs, against the
// host's count of the container's tasks. When that cannot be done — a
// fork bomb has spent the pids limit, so not even the killer starts — the
// container itself is replaced: removing it kills everything in it, and
// the workspace lives on the host.
func (s *session) sweep(roots []int) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	// Under a spent pids limit the killer may not start; processes of a
	// churning bomb exit all the time, so a retry soon finds room, and
	// each round leaves more of the tree stopped.
	for try := 0; try < sweepTries && ctx.Err() == nil; try++ {
		quiet := s.quiet()
		argv := []string{"sh", "-c", sweepScript, "wasmeval-kill"}
		if quiet && s.executorConn() == nil {
			argv = append(argv, "-c", strconv.Itoa(baseTasks+1)) // the killer is the one more
		}
		for _, r := range roots {
			argv = append(argv, strconv.Itoa(r))
		}
		res, err := s.helperExec(ctx, argv, "0")
		if err == nil && res.ExitCode == 0 {
			if !quiet {
				return
			}
			if clean, ok := s.hostClean(); !ok || clean {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.replace()
}

// replace replaces the container, the last resort when its processes
// cannot be brought under control from inside.
func (s *session) replace() {
	ctx, cancel := context.WithTimeout(context.Background(), 4*cleanupTimeout)
	defer cancel()
	if err := s.recycle(ctx); err != nil {
		s.mu.Lock()
		s.broken = fmt.Errorf("replace the container after its processes could not be stopped: %w", err)
		s.mu.Unlock()
	}
}

// brokenErr is why the session can run nothing more, if it cannot.
func (s *session) brokenErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// quiet reports whether nothing but cases runs in the container: no
// server is up and no forwarder may start an exec.
func (s *session) quiet() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.fwds) > 0 {
		return false
	}
	for _, p := range s.procs {
		select {
		case <-p.exited:
		default:
			return false
		}
	}
	return true
}

// counter is the current container's task counter (nil when the host's
// cgroup filesystem cannot be read).
func (s *session) counter() *taskCounter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}
