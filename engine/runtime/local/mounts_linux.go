//go:build linux

package local

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// prepareMounts plans what each launcher of the session mounts: a
// read-only bind per static asset onto a placeholder in the session
// directory, and a cover over each private directory.
func (s *session) prepareMounts(spec runtime.SessionSpec, siblings string) error {
	s.siblings = siblings
	names := make([]string, 0, len(spec.StaticAssets))
	for name := range spec.StaticAssets {
		names = append(names, name)
	}
	sort.Strings(names)
	s.staticPaths = map[string]string{}
	staticDir := filepath.Join(s.dir, "static")
	for i, name := range names {
		src, err := filepath.EvalSymlinks(spec.StaticAssets[name])
		if err != nil {
			return fmt.Errorf("static asset %s: %w", name, err)
		}
		st, err := os.Stat(src)
		if err != nil {
			return fmt.Errorf("static asset %s: %w", name, err)
		}
		base := name
		if !plainName(name) {
			base = "asset-" + strconv.Itoa(i)
		}
		target := filepath.Join(staticDir, base)
		if err := placeholder(target, st.IsDir()); err != nil {
			return fmt.Errorf("static asset %s: %w", name, err)
		}
		s.binds = append(s.binds, bindMount{Source: src, Target: target})
		s.staticPaths[name] = target
	}
	dir, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		return err
	}
	for _, p := range spec.Private {
		// Made absolute here, in wasmeval's working directory: the
		// launcher covers it from the workspace, where a relative path
		// (--out out/run) names another directory, leaving the run's
		// own open to the submission.
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("private directory %s: %w", p, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue // nothing there to read
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			continue
		}
		// A private directory holding the workspace cannot be covered
		// without covering the case itself; the workspace then lies in a
		// directory the user chose for it.
		if within(dir, real) {
			continue
		}
		s.hide = append(s.hide, real)
	}
	return nil
}

// plainName is a name usable as one path component as it is.
func plainName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// placeholder makes the mount point of a bind: a directory or an empty file.
func placeholder(path string, dir bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(path, 0o755)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// within reports whether path is root or lies below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
