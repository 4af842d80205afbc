package conformance

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTimes is the CPU time (user and system) used so far by this process
// (the host, and in process the guests too) and by its live child
// processes (the plugin workers). Wall-clock rates on a shared machine
// say little; CPU time per call is what the targets are held to.
func cpuTimes() (self, children time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	ppid := strconv.Itoa(os.Getpid())
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid … utime(14) stime(15), counted after the
		// comm, which may hold spaces.
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 13 || fields[1] != ppid {
			continue
		}
		ut, _ := strconv.ParseInt(fields[11], 10, 64)
		st, _ := strconv.ParseInt(fields[12], 10, 64)
		children += time.Duration(ut+st) * time.Second / clockTicks
	}
	return self, children
}

// clockTicks is the unit of /proc/PID/stat's times (USER_HZ, 100 on
// Linux).
const clockTicks = 100
