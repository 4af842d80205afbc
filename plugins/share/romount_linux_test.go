package share

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A cache provisioned read-only (an air-gapped machine's, mounted so)
// opens, and a run resolves from it offline.
func TestReadOnlyCacheServesOfflineRuns(t *testing.T) {
	ctx := context.Background()
	r, ref, pushed := published(t, "ro")
	dir := t.TempDir()
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, r, c, ref.AtDigest(pushed.ManifestDigest)); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	readOnlyMount(t, dir, ro)
	if err := os.WriteFile(filepath.Join(ro, "probe"), nil, 0o644); err == nil {
		t.Fatal("the read-only mount can be written")
	}
	lock := &Lock{Version: LockVersion, Plugins: []LockEntry{{Ref: ref.String(), Manifest: pushed.ManifestDigest, SHA256: pushed.WasmDigest, Size: pushed.Size, ABIVersion: 1}}}
	roCache, err := OpenCache(ro)
	if err != nil {
		t.Fatalf("open a read-only cache: %v", err)
	}
	res, _ := NewResolver(ResolverOptions{Cache: roCache, Lock: lock})
	if p, err := res.Resolve(ref.String(), pushed.WasmDigest); err != nil || !strings.HasPrefix(p, ro) {
		t.Fatalf("offline from a read-only cache: %q, %v", p, err)
	}
	if entries, err := roCache.List(ctx); err != nil || len(entries) != 1 {
		t.Fatalf("cache ls of a read-only cache: %+v, %v", entries, err)
	}
}

// readOnlyMount makes dir readable, and not writable, at mnt: a read-only
// bind mount as root (as the cache of an air-gapped machine would be
// mounted), else the write bits taken away.
func readOnlyMount(t *testing.T, dir, mnt string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Remove(mnt); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(dir, mnt); err != nil {
			t.Fatal(err)
		}
		chmodTree(t, dir, false)
		t.Cleanup(func() { chmodTree(t, dir, true) })
		return
	}
	if err := unix.Mount(dir, mnt, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	if err := unix.Mount("", mnt, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
}

func chmodTree(t *testing.T, dir string, writable bool) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, d os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		mode := d.Mode().Perm() &^ 0o222
		if writable {
			mode |= 0o200
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A fetch that fills the disk leaves nothing behind in the cache: the
// partial file of its module is removed, so that once there is room the
// next fetch succeeds instead of finding the disk still full.
func TestFullDiskFetchLeavesNoPartialFiles(t *testing.T) {
	ctx := context.Background()
	host := inProcessRegistry(t)
	r := testRemote(t)
	ref := mustRef(t, "oci://"+host+"/team/big:1")
	big := append(fakeModule("big"), make([]byte, 600<<10)...)
	if _, err := Push(ctx, writeModule(t, big), ref, PushOptions{Remote: r, Describe: testDescribe}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Fatal("mounting a small tmpfs needs root (CI runs as root)")
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := Pull(ctx, r, c, ref); err == nil || !strings.Contains(err.Error(), "no space left on device") {
			t.Fatalf("pull %d on a full disk: %v, want ENOSPC", i, err)
		}
		if left, _ := os.ReadDir(filepath.Join(dir, ingestDir)); len(left) != 0 {
			t.Fatalf("pull %d left %d partial files in %s", i, len(left), ingestDir)
		}
	}
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT, "size=4m"); err != nil {
		t.Fatalf("resize the tmpfs: %v", err)
	}
	if _, err := Pull(ctx, r, c, ref); err != nil {
		t.Fatalf("pull once there is room: %v", err)
	}
}
