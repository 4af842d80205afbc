package distribute

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// PathFile is a path the problem named outside its directory, under a
// --mount-root: Path as named (absolute), Real where it is (symlinks
// resolved, what is sent), Dir whether it is a directory.
type PathFile struct {
	Path, Real string
	Dir        bool
}

// PathsOutside lists what p read from outside its directory, under the
// mount roots, so far (its loader, and every case's when the cases were
// validated): static assets, checkpoint directories, case files,
// environment specs, mock bodies, plugins bound by path. Each travels
// with the jobs, so a worker reads the same bytes at the path the problem
// names. What cannot travel faithfully refuses the run, naming it: a
// special file, or a symlink inside a directory (a worker's copy holds
// regular files and directories only).
func PathsOutside(p *problem.Problem) ([]PathFile, error) {
	if p.Files == nil {
		return nil, nil
	}
	var out []PathFile
	var errs []string
	dir := p.Files.Dir()
	for _, n := range p.Files.Outside() {
		if confine.Within(n.Path, dir) {
			// The worker's copy of the problem is the problem's own
			// artifact; a copy holding it too would be a second one.
			errs = append(errs, fmt.Sprintf("%s holds the problem directory %s: name what the problem needs below it, or inside the problem", n.Path, dir))
			continue
		}
		st, err := os.Stat(n.Real)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", n.Path, err))
			continue
		}
		switch {
		case st.Mode().IsRegular():
		case st.IsDir():
			if err := sendable(n.Real); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", n.Path, err))
				continue
			}
		default:
			errs = append(errs, fmt.Sprintf("%s is %s, neither a regular file nor a directory", n.Path, st.Mode().Type()))
			continue
		}
		out = append(out, PathFile{Path: n.Path, Real: n.Real, Dir: st.IsDir()})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("a distributed run cannot send what the problem names under --mount-root: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// sendable says why the directory dir cannot be packed (pack's rule:
// regular files and directories only), nil when it can, before the run
// starts rather than when it publishes.
func sendable(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if t := d.Type(); !t.IsDir() && !t.IsRegular() {
			kind := "a special file"
			if t&fs.ModeSymlink != 0 {
				kind = "a symlink"
			}
			return fmt.Errorf("%s is %s: a distributed run sends regular files and directories only (a local run follows it); replace it with what it leads to, or run on one machine", p, kind)
		}
		return nil
	})
}

// publishPaths publishes the paths the problem names outside its
// directory and says how jobs name them.
func (c *Coordinator) publishPaths(ctx context.Context, store jetstream.ObjectStore) ([]PathArtifact, error) {
	var out []PathArtifact
	for _, p := range c.Paths {
		digest, err := c.publishEntry(ctx, store, p.Real, p.Dir)
		if err != nil {
			return nil, fmt.Errorf("publish %s (named by the problem under --mount-root): %w", p.Path, err)
		}
		out = append(out, PathArtifact{Path: filepath.ToSlash(p.Path), Dir: p.Dir, SHA256: digest})
	}
	return out, nil
}

// checkPaths refuses a job's paths a worker could not map faithfully:
// they come from the queue, and become where the problem's reads lead.
func (j *Job) checkPaths() error {
	if len(j.Paths) == 0 {
		return nil
	}
	if !cleanAbs(j.Origin) {
		return fmt.Errorf("work message: origin %q: want the problem's directory on the coordinator, an absolute clean path", j.Origin)
	}
	seen := map[string]bool{}
	for i, p := range j.Paths {
		at := fmt.Sprintf("work message: paths[%d]", i)
		switch {
		case !cleanAbs(p.Path) || p.Path == "/":
			return fmt.Errorf("%s.path %q: want an absolute clean path other than /", at, p.Path)
		case seen[p.Path]:
			return fmt.Errorf("%s.path %q: given twice", at, p.Path)
		case confine.Within(p.Path, j.Origin) || confine.Within(j.Origin, p.Path):
			return fmt.Errorf("%s.path %q: want a path outside the problem's directory %s, not holding it", at, p.Path, j.Origin)
		case !isDigest(p.SHA256):
			return fmt.Errorf("%s.sha256 %q: want 64 lowercase hex digits", at, p.SHA256)
		}
		seen[p.Path] = true
	}
	return nil
}

// cleanAbs says whether p is an absolute, clean, slash-separated path.
func cleanAbs(p string) bool {
	return strings.HasPrefix(p, "/") && filepath.ToSlash(filepath.Clean(filepath.FromSlash(p))) == p && !strings.ContainsAny(p, "\x00\\")
}

// fetchPaths fetches the job's paths into cacheDir, each under its own
// base name (which a runtime may show: a file asset keeps its name), and
// says where the problem's reads of them lead.
func fetchPaths(ctx context.Context, store jetstream.ObjectStore, job *Job, cacheDir string) (*confine.Shipped, error) {
	if len(job.Paths) == 0 {
		return nil, nil
	}
	s := &confine.Shipped{Origin: filepath.FromSlash(job.Origin)}
	for _, p := range job.Paths {
		from := filepath.FromSlash(p.Path)
		name := filepath.Base(from)
		var to string
		var err error
		if p.Dir {
			dirs := filepath.Join(cacheDir, "path-dirs")
			to, err = fetchDir(ctx, store, p.SHA256, dirs, filepath.Join(dirs, p.SHA256, name))
		} else {
			var file string
			if file, err = FetchFile(ctx, store, p.SHA256, filepath.Join(cacheDir, "mounts")); err == nil {
				to, err = placeAs(file, filepath.Join(cacheDir, "path-files", p.SHA256), name)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p.Path, err)
		}
		s.Copies = append(s.Copies, confine.Copy{From: from, To: to})
	}
	return s, nil
}
