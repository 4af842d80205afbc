// Package images builds small images for the Docker runtime from files
// already on the host, through the engine's import API: no registry, no
// Dockerfile, no network. The test suite uses them, and users can build
// the same with `wasmeval env image`.
//
//   - busybox: a static busybox and its applets (a shell and core tools).
//   - python: the host's python3 — its binary, its standard library and
//     the shared libraries they load, found with ldd — plus busybox.
//
// Assembling Python from the host takes seconds and needs nothing but the
// python3 already required to run the example, where a debootstrap'ed
// Debian takes minutes and a reachable mirror. Each image is tagged with a
// hash of its recipe and inputs and built only when that tag is missing.
package images

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"

	"github.com/wasmeval/wasmeval/engine/runtime/docker"
)

// recipeVersion changes whenever the way images are assembled changes, so
// old tags are not reused.
const recipeVersion = "1"

// Repository names of the images.
const (
	BusyboxRepo = "wasmeval/busybox"
	PythonRepo  = "wasmeval/python"
)

// Builders by name, for the CLI.
var Builders = map[string]func(context.Context, *client.Client) (string, error){
	"busybox": Busybox,
	"python":  Python,
}

// rootfs is a file tree to import: path in the image → source on the
// host ("" for a directory), plus symlinks.
type rootfs struct {
	files map[string]string
	links map[string]string
	// complete adds what is costly to find and only needed when the
	// image is actually built (the extension modules' libraries).
	complete func(*rootfs) error
}

func newRootfs() *rootfs {
	return &rootfs{files: map[string]string{"tmp": "", "etc": "", "bin": "", "workspace": ""}, links: map[string]string{}}
}

// Busybox returns the tag of a busybox image, building it if missing.
func Busybox(ctx context.Context, cli *client.Client) (string, error) {
	bb, err := docker.FindBusybox()
	if err != nil {
		return "", err
	}
	fs := newRootfs()
	if err := fs.addBusybox(bb); err != nil {
		return "", err
	}
	return ensure(ctx, cli, BusyboxRepo, fs)
}

// Python returns the tag of an image with the host's python3, building it
// if missing.
func Python(ctx context.Context, cli *client.Client) (string, error) {
	bb, err := docker.FindBusybox()
	if err != nil {
		return "", err
	}
	fs := newRootfs()
	if err := fs.addBusybox(bb); err != nil {
		return "", err
	}
	if err := fs.addPython(); err != nil {
		return "", fmt.Errorf("assemble python image from the host's python3: %w", err)
	}
	return ensure(ctx, cli, PythonRepo, fs)
}

func (r *rootfs) addBusybox(bb string) error {
	r.files["bin/busybox"] = bb
	out, err := exec.Command(bb, "--list").Output()
	if err != nil {
		return fmt.Errorf("busybox --list: %w", err)
	}
	for _, applet := range strings.Fields(string(out)) {
		if applet != "busybox" && !strings.Contains(applet, "/") {
			r.links["bin/"+applet] = "busybox"
		}
	}
	return nil
}

func (r *rootfs) addPython() error {
	py, err := exec.LookPath("python3")
	if err != nil {
		return err
	}
	out, err := exec.Command(py, "-c", `import sys, sysconfig; print(sys.executable); print(sysconfig.get_paths()["stdlib"]); print(sysconfig.get_paths()["platstdlib"])`).Output()
	if err != nil {
		return fmt.Errorf("ask python3 for its paths: %w", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 3 {
		return fmt.Errorf("unexpected answer from python3: %q", out)
	}
	exe, err := filepath.EvalSymlinks(lines[0])
	if err != nil {
		return err
	}
	r.files["usr/bin/"+filepath.Base(exe)] = exe
	r.links["usr/bin/python3"] = filepath.Base(exe)
	r.links["usr/bin/python"] = filepath.Base(exe)
	binaries := []string{exe}
	for _, lib := range []string{lines[1], lines[2]} {
		err := filepath.WalkDir(lib, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(lib, p)
			name := d.Name()
			if d.IsDir() && (name == "test" || name == "tests" || name == "site-packages" || name == "dist-packages" || name == "idlelib" || name == "tkinter" || name == "turtledemo" || name == "ensurepip") && rel != "." {
				return filepath.SkipDir
			}
			dst := strings.TrimPrefix(p, "/")
			switch {
			case d.IsDir():
				r.files[dst] = ""
			case d.Type()&fs.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err == nil {
					r.links[dst] = target
				}
			case d.Type().IsRegular():
				r.files[dst] = p
				if strings.HasSuffix(name, ".so") {
					binaries = append(binaries, p)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	// The interpreter's own libraries are part of the recipe's digest;
	// the extension modules' (one ldd each, seconds in all) are looked up
	// only when the image is built.
	if err := r.addLibs(exe); err != nil {
		return err
	}
	r.complete = func(r *rootfs) error { return r.addLibs(binaries...) }
	return nil
}

func (r *rootfs) addLibs(bins ...string) error {
	libs, err := sharedLibs(bins)
	if err != nil {
		return err
	}
	for _, l := range libs {
		real, err := filepath.EvalSymlinks(l)
		if err != nil {
			return err
		}
		r.files[strings.TrimPrefix(l, "/")] = real
	}
	return nil
}

// sharedLibs lists the libraries (and the loader) the binaries need, as
// ldd resolves them.
func sharedLibs(bins []string) ([]string, error) {
	seen := map[string]bool{}
	for _, b := range bins {
		out, err := exec.Command("ldd", b).Output()
		if err != nil {
			continue // not dynamic
		}
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			for i, w := range f {
				if strings.HasPrefix(w, "/") && (i == 0 || f[i-1] == "=>") {
					seen[w] = true
				}
			}
		}
	}
	if len(seen) == 0 {
		return nil, errors.New("ldd found no shared libraries for python3 (is ldd installed?)")
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Strings(out)
	return out, nil
}

// digest hashes the recipe: every path, link and source file's content.
func (r *rootfs) digest() (string, error) {
	h := sha256.New()
	io.WriteString(h, "recipe "+recipeVersion+"\n")
	for _, p := range sortedKeys(r.files) {
		fmt.Fprintf(h, "f %s\n", p)
		if src := r.files[p]; src != "" {
			st, err := os.Stat(src)
			if err != nil {
				return "", err
			}
			// Size and time stand in for content: hashing a whole
			// standard library on every test run would cost seconds.
			fmt.Fprintf(h, "%d %d %o\n", st.Size(), st.ModTime().UnixNano(), st.Mode())
		}
	}
	for _, p := range sortedKeys(r.links) {
		fmt.Fprintf(h, "l %s %s\n", p, r.links[p])
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// ensure imports the rootfs as repo:<digest> unless that tag exists.
func ensure(ctx context.Context, cli *client.Client, repo string, r *rootfs) (string, error) {
	d, err := r.digest()
	if err != nil {
		return "", err
	}
	tag := repo + ":" + d
	if _, err := cli.ImageInspect(ctx, tag); err == nil {
		return tag, nil
	} else if !client.IsErrNotFound(err) {
		return "", fmt.Errorf("inspect %s: %w", tag, err)
	}
	if r.complete != nil {
		if err := r.complete(r); err != nil {
			return "", err
		}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(r.writeTar(pw)) }()
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: pr, SourceName: "-"}, tag, image.ImportOptions{
		Changes: []string{`ENV PATH=/usr/local/bin:/usr/bin:/bin`, `CMD ["/bin/sh"]`},
	})
	if err != nil {
		pr.CloseWithError(err)
		return "", fmt.Errorf("import %s: %w", tag, err)
	}
	defer rc.Close()
	if err := jsonmessage.DisplayJSONMessagesStream(rc, io.Discard, 0, false, nil); err != nil {
		return "", fmt.Errorf("import %s: %w", tag, err)
	}
	return tag, nil
}

func (r *rootfs) writeTar(w io.Writer) error {
	tw := tar.NewWriter(w)
	// Parent directories first, then files and links.
	dirs := map[string]bool{}
	var addDir func(string) error
	addDir = func(d string) error {
		if d == "." || d == "" || dirs[d] {
			return nil
		}
		if err := addDir(filepath.Dir(d)); err != nil {
			return err
		}
		dirs[d] = true
		mode := int64(0o755)
		if d == "tmp" {
			mode = 0o1777
		}
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: mode})
	}
	for _, p := range sortedKeys(r.files) {
		src := r.files[p]
		if src == "" {
			if err := addDir(p); err != nil {
				return err
			}
			continue
		}
		if err := addDir(filepath.Dir(p)); err != nil {
			return err
		}
		if err := copyInto(tw, p, src); err != nil {
			return err
		}
	}
	for _, p := range sortedKeys(r.links) {
		if _, isFile := r.files[p]; isFile {
			continue
		}
		if err := addDir(filepath.Dir(p)); err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: p, Linkname: r.links[p], Mode: 0o777}); err != nil {
			return err
		}
	}
	for name, content := range map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
		"etc/group":  "root:x:0:\nnogroup:x:65534:\n",
	} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(content))}); err != nil {
			return err
		}
		if _, err := io.WriteString(tw, content); err != nil {
			return err
		}
	}
	return tw.Close()
}

func copyInto(tw *tar.Writer, name, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(st.Mode().Perm()), Size: st.Size(), ModTime: st.ModTime()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
