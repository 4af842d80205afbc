package cases

import "context"

// Listed is the loader of a front-end that reads its format whole (agent
// task directories, eval-case datasets, task specs): each group's cases,
// built in memory, by group name, handed to the engine through
// listedStream.
type Listed struct {
	// Layout says what was read, for `wasmeval validate`.
	Layout string
	Groups map[string][]*Case
}

// Open implements Loader.
func (l *Listed) Open(ctx context.Context, g GroupInput) (Stream, error) {
	return listedStream(l.Groups[g.Group]), nil
}

// Describe implements Describer.
func (l *Listed) Describe() string { return l.Layout }

// Named resolves loader names to l for name and to nothing else, so a
// caller can try the built-in loaders next.
func (l *Listed) Named(name string) func(string) (Loader, bool) {
	return func(n string) (Loader, bool) {
		if n != name {
			return nil, false
		}
		return l, true
	}
}
