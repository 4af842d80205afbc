package docker

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// taskCounter reads how many tasks (threads included) a container's pids
// cgroup holds, from the host's cgroup filesystem. The kernel keeps that
// count; nothing inside the container can hide from it or change it, and
// reading it costs no exec. It is what tells, after each case, that the
// case left nothing behind.
type taskCounter struct{ file string }

func (c *taskCounter) read() (int, error) {
	b, err := os.ReadFile(c.file)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.file, err)
	}
	return n, nil
}

// hostTaskCounter finds the pids cgroup of the container whose init has
// host PID pid. It returns an error when the engine cannot see it — it
// runs in another PID or cgroup namespace than the engine's daemon, or
// the host has no pids controller — and the runtime then asks the
// container instead (see sweep).
func hostTaskCounter(pid int, containerID string) (*taskCounter, error) {
	if pid <= 0 {
		return nil, errors.New("no init process")
	}
	cg, v2, err := pidsCgroup(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return nil, err
	}
	// /proc/PID is the daemon's process only if the engine shares its PID
	// namespace: the path must be this container's.
	if !strings.Contains(cg, containerID) {
		return nil, fmt.Errorf("process %d is in cgroup %s, not container %s's", pid, cg, containerID)
	}
	dir, err := cgroupDir("/proc/self/mountinfo", cg, v2)
	if err != nil {
		return nil, err
	}
	c := &taskCounter{file: filepath.Join(dir, "pids.current")}
	if _, err := c.read(); err != nil {
		return nil, err
	}
	return c, nil
}

// pidsCgroup is the cgroup path of the process whose /proc/PID/cgroup is
// file, in the hierarchy holding the pids controller (v2: the unified
// one).
func pidsCgroup(file string) (path string, v2 bool, err error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false, err
	}
	var unified string
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			unified = parts[2]
			continue
		}
		if slices.Contains(strings.Split(parts[1], ","), "pids") {
			return parts[2], false, nil
		}
	}
	if unified != "" {
		return unified, true, nil
	}
	return "", false, fmt.Errorf("%s: no pids cgroup", file)
}

// cgroupDir is where the cgroup path cg is mounted in this mount
// namespace, from mountinfo.
func cgroupDir(mountinfo, cg string, v2 bool) (string, error) {
	f, err := os.Open(mountinfo)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 3 {
			continue
		}
		switch {
		case v2 && rf[0] == "cgroup2":
		case !v2 && rf[0] == "cgroup" && slices.Contains(strings.Split(rf[2], ","), "pids"):
		default:
			continue
		}
		root, mnt := unescapeMount(lf[3]), unescapeMount(lf[4])
		rel, ok := strings.CutPrefix(cg, root)
		if root == "/" {
			rel, ok = cg, true
		}
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		return filepath.Join(mnt, rel), nil
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("cgroup %s is not mounted here", cg)
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// tasks lists the IDs (in the engine's PID namespace) of the tasks the
// cgroup holds: its tasks file (cgroup v1) or cgroup.threads (v2), beside
// pids.current.
func (c *taskCounter) tasks() ([]int, error) {
	dir := filepath.Dir(c.file)
	b, err := os.ReadFile(filepath.Join(dir, "tasks"))
	if err != nil {
		if b, err = os.ReadFile(filepath.Join(dir, "cgroup.threads")); err != nil {
			return nil, err
		}
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		out = append(out, n)
	}
	return out, nil
}
