package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Named is a path a problem named outside its directory, under a mount
// root: as named (absolute, clean, symlinks not resolved) and where it
// really is.
type Named struct {
	Path, Real string
}

// recorder keeps the paths a Tree resolved under a mount root. Loaders
// and checks resolve paths from many goroutines.
type recorder struct {
	mu   sync.Mutex
	seen map[string]string
}

func (r *recorder) add(path, real string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]string{}
	}
	r.seen[path] = real
}

// Outside lists the paths resolved so far that lie under a mount root,
// not in the problem directory, sorted, without those inside another
// listed directory (sending that directory sends them). A distributed
// run sends these to its workers: they are what the problem read from
// this machine outside itself.
func (t *Tree) Outside() []Named {
	if t.named == nil {
		return nil
	}
	t.named.mu.Lock()
	all := make([]Named, 0, len(t.named.seen))
	for p, r := range t.named.seen {
		all = append(all, Named{Path: p, Real: r})
	}
	t.named.mu.Unlock()
	slices.SortFunc(all, func(a, b Named) int { return strings.Compare(a.Path, b.Path) })
	var out []Named
	for _, n := range all {
		covered := false
		for _, d := range out {
			if Within(d.Path, n.Path) {
				if st, err := os.Stat(d.Real); err == nil && st.IsDir() {
					covered = true
					break
				}
			}
		}
		if !covered {
			out = append(out, n)
		}
	}
	return out
}

// Copy is a path of another machine (From: absolute, clean, as the
// problem named it there) and its copy here (To: a directory, or a file
// alone in its directory).
type Copy struct {
	From, To string
}

// origin maps the paths of the machine a problem was loaded on first to
// their copies here.
type origin struct {
	// dir is the problem directory there; the problem's copy is the
	// tree's own directory.
	dir string
	// maps are from → to, the longest from first, the problem's own
	// among them.
	maps []Copy
}

// local is the copy here of p, a path as the problem names it (relative
// to the problem directory there, or absolute there). A path no copy
// holds is left as that machine's: only a mount root of this machine
// can admit it then.
func (o *origin) local(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(o.dir, p)
	}
	p = filepath.Clean(p)
	for _, m := range o.maps {
		if Within(m.From, p) {
			rel, err := filepath.Rel(m.From, p)
			if err == nil {
				return filepath.Join(m.To, rel)
			}
		}
	}
	return p
}

// Shipped says where a problem was loaded first, on another machine: its
// directory there (Origin) and the paths it named outside that directory,
// each with its copy here.
type Shipped struct {
	Origin string
	Copies []Copy
}

// NewShipped is New for a problem loaded first on another machine (s; nil
// is New), where its directory was s.Origin and the paths it names
// outside that directory were the copies' From; here the problem
// directory is dir and each copy's To. The problem's paths (relative with "..", or absolute) are
// taken as that machine's and made their copies here; each copy is an
// allowed root (a file's, the directory holding it), and so are
// mountRoots, this machine's own. A path that is neither is refused as
// New refuses it.
func NewShipped(dir string, s *Shipped, mountRoots ...string) (*Tree, error) {
	if s == nil {
		return New(dir, mountRoots...)
	}
	originDir, copies := s.Origin, s.Copies
	if !filepath.IsAbs(originDir) || filepath.Clean(originDir) != originDir {
		return nil, fmt.Errorf("problem directory %q of the origin: want an absolute, clean path", originDir)
	}
	roots := []string{}
	o := &origin{dir: originDir}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("problem directory %s: %w", dir, err)
	}
	o.maps = append(o.maps, Copy{From: originDir, To: abs})
	for _, c := range copies {
		if !filepath.IsAbs(c.From) || filepath.Clean(c.From) != c.From {
			return nil, fmt.Errorf("copied path %q: want an absolute, clean path", c.From)
		}
		st, err := os.Stat(c.To)
		if err != nil {
			return nil, fmt.Errorf("copy of %s: %w", c.From, err)
		}
		root := c.To
		if !st.IsDir() {
			root = filepath.Dir(c.To)
		}
		roots = append(roots, root)
		o.maps = append(o.maps, c)
	}
	// The most specific copy wins: a file sent alone inside a directory
	// sent whole is the same bytes either way, but the problem's own
	// directory inside a copied one must be the problem's copy.
	slices.SortStableFunc(o.maps, func(a, b Copy) int { return len(b.From) - len(a.From) })
	t, err := New(dir, append(roots, mountRoots...)...)
	if err != nil {
		return nil, err
	}
	t.from = o
	return t, nil
}
