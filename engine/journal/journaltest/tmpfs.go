// Package journaltest holds what tests of the journal and of the code that
// writes run directories share: a real small filesystem to fill up.
package journaltest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Tmpfs mounts a tmpfs of the given size (as mount(8) takes it: "256k")
// on a new directory, unmounted when the test ends, and returns the
// directory and a function that resizes the filesystem in place (as
// freeing space would). Mounting needs root on Linux; where it is not
// permitted the test fails under CI (CI=true), which runs as root, and is
// skipped elsewhere.
func Tmpfs(t testing.TB, size string) (dir string, resize func(size string)) {
	t.Helper()
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		msg := fmt.Sprintf("cannot mount a %s tmpfs on %s (needs root on Linux): %v: %s", size, dir, err, strings.TrimSpace(string(out)))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	resize = func(size string) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", "remount,size="+size, dir).CombinedOutput(); err != nil {
			t.Fatalf("resize the tmpfs on %s to %s: %v: %s", dir, size, err, out)
		}
	}
	return dir, resize
}
