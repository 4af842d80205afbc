package docker

import (
	"debug/elf"
	"os"
	goruntime "runtime"
	"strings"
	"testing"
)

func TestExecutorPlan(t *testing.T) {
	other := "arm64"
	if goruntime.GOARCH == other {
		other = "amd64"
	}
	if _, err := findExecutor(other); err == nil || !strings.Contains(err.Error(), "the Docker daemon runs on "+other) {
		t.Errorf("another architecture: %v", err)
	}
	b, err := findExecutor(goruntime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dynamic := false
	for _, p := range f.Progs {
		dynamic = dynamic || p.Type == elf.PT_INTERP
	}
	targets := map[string]bool{}
	for _, m := range b.mounts {
		if !m.ReadOnly {
			t.Errorf("%s is mounted writable", m.Target)
		}
		if _, err := os.Stat(m.Source); err != nil {
			t.Errorf("mount source: %v", err)
		}
		targets[m.Target] = true
	}
	if !targets[executorPath] {
		t.Errorf("the binary is not mounted: %+v", b.mounts)
	}
	// A dynamically linked binary (cgo, -race) starts through its own
	// interpreter with only the mounted libraries on its path.
	if dynamic != strings.HasPrefix(b.entry[0], executorLibs+"/") || dynamic && !targets[b.entry[0]] {
		t.Errorf("dynamic %v, entry %q, mounts %+v", dynamic, b.entry, b.mounts)
	}
	if b.entry[len(b.entry)-2] != executorPath {
		t.Errorf("entry %q", b.entry)
	}
}
