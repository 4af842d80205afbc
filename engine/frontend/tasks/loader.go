package tasks

import (
	"context"

	"github.com/wasmeval/wasmeval/engine/cases"
)

// Loader returns the loader of the suite's group for name (LoaderName),
// and nothing for any other name, so a caller can try the built-in
// loaders next.
func (s *Suite) Loader(name string) (cases.Loader, bool) {
	if name != LoaderName {
		return nil, false
	}
	return suiteLoaderOf{s}, true
}

type suiteLoaderOf struct{ s *Suite }

// Open implements cases.Loader: the tasks, in order.
func (l suiteLoaderOf) Open(ctx context.Context, g cases.GroupInput) (cases.Stream, error) {
	return cases.ListStream(l.s.Tasks), nil
}

// Describe implements cases.Describer.
func (l suiteLoaderOf) Describe() string { return "agent task directories (" + TaskFile + ")" }
