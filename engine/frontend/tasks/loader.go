package tasks

import "github.com/wasmeval/wasmeval/engine/cases"

// Loader returns the loader of the suite's group for name (LoaderName),
// and nothing for any other name, so a caller can try the built-in
// loaders next.
func (s *Suite) Loader(name string) (cases.Loader, bool) {
	l := &cases.Listed{Layout: "agent task directories (" + TaskFile + ")", Groups: map[string][]*cases.Case{GroupName: s.Tasks}}
	return l.Named(LoaderName)(name)
}
