package docker

import (
	"os"
	"path/filepath"
	"testing"
)

// The host's view of a container's pids cgroup, on the layouts Docker
// hosts have: cgroup v1 (pids controller in its own hierarchy, cgroupfs
// driver) and v2 (unified, systemd driver), and a namespaced view where
// the path does not lie under the mount.
func TestPidsCgroupIsFoundOnV1AndV2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	id := "4ae5cd56f624e0d0"
	v1 := write("v1", "12:blkio:/docker/"+id+"\n8:pids:/docker/"+id+"\n1:name=systemd:/docker/"+id+"\n0::/\n")
	v2 := write("v2", "0::/system.slice/docker-"+id+".scope\n")
	mountinfo := write("mountinfo", `25 30 0:23 / /sys ro,nosuid - sysfs sysfs rw
34 25 0:29 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
41 34 0:36 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids
42 34 0:37 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
43 34 0:38 /nested /sys/fs/cgroup/with\040space rw - cgroup cgroup rw,memory
`)
	for _, c := range []struct {
		file, want string
		v2         bool
	}{
		{v1, "/sys/fs/cgroup/pids/docker/" + id, false},
		{v2, "/sys/fs/cgroup/unified/system.slice/docker-" + id + ".scope", true},
	} {
		cg, isV2, err := pidsCgroup(c.file)
		if err != nil || isV2 != c.v2 {
			t.Fatalf("%s: %q %v %v", c.file, cg, isV2, err)
		}
		got, err := cgroupDir(mountinfo, cg, isV2)
		if err != nil || got != c.want {
			t.Errorf("%s: dir %q %v, want %q", c.file, got, err, c.want)
		}
	}
	// A path outside the mounted part of the hierarchy is not there.
	only := write("mountinfo2", "41 34 0:36 /other /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n")
	if got, err := cgroupDir(only, "/docker/"+id, false); err == nil {
		t.Errorf("found %q under a mount of another subtree", got)
	}
	if got := unescapeMount(`/a\040b\134c`); got != `/a b\c` {
		t.Errorf("unescape: %q", got)
	}
	// The process must be in the container's own cgroup.
	if _, err := hostTaskCounter(os.Getpid(), "no-such-container-id"); err == nil {
		t.Error("counted a cgroup that is not the container's")
	}
}
