package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// holder reads the kernel's table of file locks, /proc/locks, whose flock
// lines read `1: FLOCK  ADVISORY  WRITE 4242 00:2f:1234 0 EOF` (pid, then
// the file's device major:minor in hex and inode), and finds the lock on
// the file at path.
func holder(path string) (pid int, held, known bool) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, true
	}
	if err != nil {
		return 0, false, false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false, false
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, false, false
	}
	defer f.Close()
	dev := uint64(sys.Dev)
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), sys.Ino)
	inode := fmt.Sprintf(":%d", sys.Ino)
	sameInode := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// Waiting requests carry "->" after the number; they hold nothing.
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		p, _ := strconv.Atoi(fields[4]) // 0 when the holder is outside our pid namespace
		if fields[5] == want {
			return p, true, true
		}
		if strings.HasSuffix(fields[5], inode) && sameInode < 0 {
			sameInode = p
		}
	}
	if sc.Err() != nil {
		return 0, false, false
	}
	// On some filesystems (overlay, btrfs) stat reports another device
	// than the lock table: the same inode with the pid the holder
	// recorded is the lock.
	if sameInode > 0 && sameInode == recordedPID(path) {
		return sameInode, true, true
	}
	return 0, false, true
}
