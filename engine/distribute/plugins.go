package distribute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// PluginFile is a plugin the coordinator sends with its jobs: where it
// is here, how the problem binds it (Name, Ref, or by path outside the
// problem: File, its base name) and its pinned sha256.
type PluginFile struct {
	Name, Ref, File, SHA256 string
	Path                    string
}

// PluginsOutside lists the plugins p binds that are not files of its
// directory: found by name in a plugin directory (--plugin-dir,
// WASMEVAL_PLUGIN_PATH), resolved by reference through the lock file and
// the plugin cache, or bound by path outside the problem (under a
// --mount-root). caseRefs are the plugins the cases bind in their own
// checks (run.GroupCheck.Plugins), a path relative to the problem
// directory. The problem directory travels whole; these must travel too,
// or a worker would load the problem differently (or not at all).
//
// A plugin bound by path travels only from where the problem may name
// files (its directory and the mount roots, symlinks resolved): a case
// that binds one from elsewhere is an error, naming it, rather than a
// file of this machine sent to others.
func PluginsOutside(p *problem.Problem, caseRefs ...*problem.PluginRef) ([]PluginFile, error) {
	var out []PluginFile
	seen := map[PluginFile]bool{}
	var errs []string
	add := func(ref *problem.PluginRef) {
		if ref == nil || ref.Path == "" {
			return
		}
		path := ref.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.Dir, filepath.FromSlash(path))
		}
		if insideDir(p.Dir, path) {
			return
		}
		f := PluginFile{Name: ref.Name, Ref: ref.Ref, SHA256: strings.ToLower(ref.SHA256), Path: path}
		switch {
		case ref.Ref != "":
			f.Name = ""
		case ref.Name == "":
			// Bound by path: only from where the problem may name files.
			if p.Files == nil {
				errs = append(errs, fmt.Sprintf("plugin %s lies outside the problem directory", ref.Path))
				return
			}
			if _, err := p.Files.Resolve(path); err != nil {
				errs = append(errs, fmt.Sprintf("plugin %s: %v", ref.Path, err))
				return
			}
			if ref.SHA256 == "" {
				errs = append(errs, fmt.Sprintf("plugin %s is not pinned: add its sha256", ref.Path))
				return
			}
			f.File = filepath.Base(path)
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	p.PluginRefs(add)
	for _, ref := range caseRefs {
		add(ref)
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		errs = slices.Compact(errs)
		return nil, fmt.Errorf("a distributed run cannot send what the problem binds: %s", strings.Join(errs, "; "))
	}
	slices.SortFunc(out, func(a, b PluginFile) int {
		return strings.Compare(a.Name+"\x00"+a.Ref+"\x00"+a.File+"\x00"+a.SHA256, b.Name+"\x00"+b.Ref+"\x00"+b.File+"\x00"+b.SHA256)
	})
	return out, nil
}

// insideDir says whether file lies in dir (both made absolute; symlinks
// are not followed: the problem's tree is packed as it is named).
func insideDir(dir, file string) bool {
	if dir == "" {
		return false
	}
	d, err1 := filepath.Abs(dir)
	f, err2 := filepath.Abs(file)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, f)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkArtifacts refuses a job whose plugins or environment spec a
// worker could not place faithfully: it comes from the queue, and its
// names become file names.
func (j *Job) checkArtifacts() error {
	names := map[string]string{}
	for i, p := range j.Plugins {
		at := fmt.Sprintf("work message: plugins[%d]", i)
		switch {
		case !isDigest(p.SHA256):
			return fmt.Errorf("%s.sha256 %q: want 64 lowercase hex digits", at, p.SHA256)
		case count(p.Name, p.Ref, p.File) != 1:
			return fmt.Errorf("%s: want a name, a ref or a file, exactly one", at)
		case p.File != "":
			if strings.ContainsAny(p.File, `/\`+"\x00") || p.File == "." || p.File == ".." {
				return fmt.Errorf("%s.file %q: want a file name, without a directory", at, p.File)
			}
		case p.Name != "":
			if err := problem.CheckName(p.Name); err != nil {
				return fmt.Errorf("%s.name: %w", at, err)
			}
			if d, ok := names[p.Name]; ok && d != p.SHA256 {
				return fmt.Errorf("%s.name: plugin %q is given twice, with two digests", at, p.Name)
			}
			names[p.Name] = p.SHA256
		}
	}
	seenMount := map[int]bool{}
	for i, m := range j.Mounts {
		at := fmt.Sprintf("work message: mounts[%d]", i)
		switch {
		case j.EnvSpec == nil:
			return fmt.Errorf("%s: a mount's source, and no environment spec", at)
		case m.Index < 0 || seenMount[m.Index]:
			return fmt.Errorf("%s.index %d: want the place of one of the spec's mounts, each once", at, m.Index)
		case !isDigest(m.SHA256):
			return fmt.Errorf("%s.sha256 %q: want 64 lowercase hex digits", at, m.SHA256)
		}
		seenMount[m.Index] = true
	}
	if err := j.checkPaths(); err != nil {
		return err
	}
	if e := j.EnvSpec; e != nil {
		switch {
		case e.Path != "" && (e.Name != "" || e.SHA256 != ""):
			return errors.New("work message: env_spec: want a path in the problem or a name and a sha256, not both")
		case e.Path != "":
			if path.IsAbs(e.Path) || path.Clean(e.Path) != e.Path || e.Path == ".." || strings.HasPrefix(e.Path, "../") || strings.Contains(e.Path, `\`) {
				return fmt.Errorf("work message: env_spec.path %q: want a clean relative path inside the problem", e.Path)
			}
		case !isDigest(e.SHA256):
			return fmt.Errorf("work message: env_spec.sha256 %q: want 64 lowercase hex digits", e.SHA256)
		default:
			if err := problem.CheckName(e.Name); err != nil {
				return fmt.Errorf("work message: env_spec.name: %w", err)
			}
		}
	}
	return nil
}

// count is how many of ss are not "".
func count(ss ...string) int {
	n := 0
	for _, s := range ss {
		if s != "" {
			n++
		}
	}
	return n
}

// Fetched is what a worker fetched for a job, ready for the loader.
type Fetched struct {
	ProblemDir, SubmissionDir string
	// PluginDir holds the job's plugins bound by name as <name>.wasm;
	// search it before any other plugin directory. "" when none.
	PluginDir string
	// Refs resolves the job's plugins bound by reference to the fetched
	// files (nil when there are none).
	Refs problem.RefResolver
	// EnvSpec is the environment spec file to use; "" for the problem's
	// own.
	EnvSpec string
	// Mounts are the local copies of the environment spec's mount
	// sources, by the mount's index in the spec (envspec.LoadShipped).
	Mounts map[int]string
	// Shipped are the job's plugins by sha256, each the fetched file
	// (named as where the coordinator found it): a binding by path
	// outside the problem, of the problem or of a case, loads the one
	// its pin names (problem.Options.ShippedPlugins). Nil when none.
	Shipped map[string]string
	// Paths says where the paths the problem named outside its
	// directory on the coordinator lead here: the fetched copies (the
	// loaders' problem.Options.Shipped). Nil when there are none.
	Paths *confine.Shipped
}

// fetchedRefs is a problem.RefResolver over the job's fetched plugins.
type fetchedRefs struct {
	byRef    map[string]string // ref → sha256
	cacheDir string
}

func (f *fetchedRefs) Resolve(ref, sha string) (string, error) {
	have, ok := f.byRef[ref]
	if !ok {
		return "", fmt.Errorf("plugin %s is bound by reference, and the run's coordinator did not send it with the job", ref)
	}
	if sha != "" && !strings.EqualFold(sha, have) {
		return "", fmt.Errorf("plugin %s: the job sent sha256 %s, the binding pins %s", ref, have, sha)
	}
	return filepath.Join(f.cacheDir, have), nil
}

// fetchArtifacts fetches everything job needs into cacheDir: the problem
// and the submission (unpacked), each plugin (its digest checked), the
// environment spec; and lays the plugins bound by name out as a plugin
// directory.
func fetchArtifacts(ctx context.Context, store jetstream.ObjectStore, job *Job, cacheDir string) (*Fetched, error) {
	var f Fetched
	var err error
	if f.ProblemDir, err = Fetch(ctx, store, job.Problem, filepath.Join(cacheDir, "artifacts")); err != nil {
		return nil, fmt.Errorf("problem: %w", err)
	}
	if f.SubmissionDir, err = Fetch(ctx, store, job.Submission, filepath.Join(cacheDir, "artifacts")); err != nil {
		return nil, fmt.Errorf("submission: %w", err)
	}
	pluginCache := filepath.Join(cacheDir, "plugins")
	refs := &fetchedRefs{byRef: map[string]string{}, cacheDir: pluginCache}
	var named []PluginArtifact
	for _, p := range job.Plugins {
		file, err := FetchFile(ctx, store, p.SHA256, pluginCache)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", p.Name+p.Ref+p.File, err)
		}
		if f.Shipped == nil {
			f.Shipped = map[string]string{}
		}
		switch {
		case p.Ref != "":
			refs.byRef[p.Ref] = p.SHA256
			f.Shipped[p.SHA256] = file
		case p.File != "":
			// Under its own name, which a plugin that declares none is
			// labelled by in records.
			if f.Shipped[p.SHA256], err = placeAs(file, filepath.Join(cacheDir, "plugin-files", p.SHA256), p.File); err != nil {
				return nil, fmt.Errorf("plugin %s: %w", p.File, err)
			}
		default:
			named = append(named, p)
		}
	}
	if len(refs.byRef) > 0 {
		f.Refs = refs
	}
	if len(named) > 0 {
		if f.PluginDir, err = pluginDir(named, pluginCache, filepath.Join(cacheDir, "plugin-dirs")); err != nil {
			return nil, err
		}
		for _, p := range named {
			f.Shipped[p.SHA256] = filepath.Join(f.PluginDir, p.Name+".wasm")
		}
	}
	switch e := job.EnvSpec; {
	case e == nil:
	case e.Path != "":
		f.EnvSpec = filepath.Join(f.ProblemDir, filepath.FromSlash(e.Path))
	default:
		file, err := FetchFile(ctx, store, e.SHA256, filepath.Join(cacheDir, "env"))
		if err != nil {
			return nil, fmt.Errorf("environment spec %s: %w", e.Name, err)
		}
		// Under its own name, so what the spec's errors name is the
		// user's file name; alone in its directory, so mounts relative
		// to it find nothing of the worker's.
		if f.EnvSpec, err = placeAs(file, filepath.Join(cacheDir, "env", "spec-"+e.SHA256), e.Name); err != nil {
			return nil, err
		}
	}
	if f.Paths, err = fetchPaths(ctx, store, job, cacheDir); err != nil {
		return nil, err
	}
	for _, m := range job.Mounts {
		var dir string
		if m.Dir {
			dir, err = Fetch(ctx, store, m.SHA256, filepath.Join(cacheDir, "artifacts"))
		} else {
			dir, err = FetchFile(ctx, store, m.SHA256, filepath.Join(cacheDir, "mounts"))
		}
		if err != nil {
			return nil, fmt.Errorf("environment spec: mounts[%d].source: %w", m.Index, err)
		}
		if f.Mounts == nil {
			f.Mounts = map[int]string{}
		}
		f.Mounts[m.Index] = dir
	}
	return &f, nil
}

// pluginDir makes (once) a directory holding each plugin of named as
// <name>.wasm, named by what it holds, and returns it.
func pluginDir(named []PluginArtifact, pluginCache, parent string) (string, error) {
	h := sha256.New()
	for _, p := range named {
		fmt.Fprintf(h, "%s\x00%s\n", p.Name, p.SHA256)
	}
	dir := filepath.Join(parent, hex.EncodeToString(h.Sum(nil)))
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "make-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, p := range named {
		if err := linkOrCopy(filepath.Join(pluginCache, p.SHA256), filepath.Join(tmp, p.Name+".wasm")); err != nil {
			return "", fmt.Errorf("plugin %s: %w", p.Name, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if st, serr := os.Stat(dir); serr == nil && st.IsDir() {
			return dir, nil // another job made it first
		}
		return "", err
	}
	return dir, nil
}

// placeAs makes (once) dir/name a copy of file and returns its path.
func placeAs(file, dir, name string) (string, error) {
	final := filepath.Join(dir, name)
	if st, err := os.Stat(final); err == nil && st.Mode().IsRegular() {
		return final, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := linkOrCopy(file, final); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	return final, nil
}

// linkOrCopy hard-links src to dst, or copies it where links are not
// possible (another file system).
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil || errors.Is(err, os.ErrExist) {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
