package local

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// killSession kills every process still carrying the session's marker. It
// is the last resort without namespaces, for processes whose launcher was
// killed before it could kill them (the program can do that there).
func killSession(token string) {
	killRounds(4, func() []int { return marked(token) })
}

// killRounds kills what find lists until it lists nothing, at most rounds
// times: a dying tree can still fork.
func killRounds(rounds int, find func() []int) {
	for round := 0; round < rounds; round++ {
		victims := find()
		if len(victims) == 0 {
			return
		}
		for _, v := range victims {
			syscall.Kill(v, syscall.SIGKILL)
		}
	}
}

// descendants lists every process below root. It reads each process's
// children from /proc/PID/task/TID/children, which costs in proportion to
// the tree, and falls back to scanning every process's parent link where
// the kernel does not offer those files.
func descendants(root int) []int {
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		kids, ok := childrenOf(p)
		if !ok {
			return descendantsByScan(root)
		}
		out = append(out, kids...)
		queue = append(queue, kids...)
	}
	return out
}

// childrenOf reads the children of every thread of pid. A process that is
// gone has none; ok is false only when the kernel lacks the files.
func childrenOf(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, true // gone
	}
	for _, t := range tasks {
		data, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir + "/" + t.Name()); serr == nil {
				return nil, false // the thread exists, its children file does not
			}
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(f); err == nil {
				kids = append(kids, c)
			}
		}
	}
	return kids, true
}

// descendantsByScan walks /proc parent links from root.
func descendantsByScan(root int) []int {
	children := map[int][]int{}
	for _, pid := range procPIDs() {
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// marked lists live processes whose environment holds the session marker.
func marked(token string) []int {
	needle := []byte(runtime.SessionEnv + "=" + token + "\x00")
	self := os.Getpid()
	var out []int
	for _, pid := range procPIDs() {
		if pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			continue
		}
		if bytes.Contains(append(env, 0), needle) && !isZombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func procPIDs() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// statFields returns the fields of /proc/PID/stat after the command name
// (which may itself contain spaces and parentheses).
func statFields(pid int) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

func parentOf(pid int) (int, bool) {
	f := statFields(pid)
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

func isZombie(pid int) bool {
	f := statFields(pid)
	return len(f) > 0 && f[0] == "Z"
}
