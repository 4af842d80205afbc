package cases

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// Checked wraps a loader so that every case any of its streams yields is
// held to the same rules, whichever loader made it (built-in, plugin or
// one added later):
//
//   - the case id is one plain name (problem.CheckName): it becomes part of
//     the case's key and of file names;
//   - no two cases of a group share an id, since the journal tells cases
//     apart by their key;
//   - expected values have the types the checks need (CheckExpected).
//
// A case with a bad id or bad expected values is a CaseError: it fails
// alone and the group goes on. A repeated id stops the group instead: a
// second record under the first one's key would let a resumed run take
// one case for the other.
func Checked(l Loader) Loader {
	if _, done := l.(checkedLoader); done {
		return l
	}
	return checkedLoader{l}
}

type checkedLoader struct{ inner Loader }

// Unchecked is the loader Checked wrapped (l itself when it is not a
// Checked loader), to ask it what it is.
func Unchecked(l Loader) Loader {
	if c, ok := l.(checkedLoader); ok {
		return c.inner
	}
	return l
}

func (c checkedLoader) Open(ctx context.Context, g GroupInput) (Stream, error) {
	s, err := c.inner.Open(ctx, g)
	if err != nil {
		return nil, err
	}
	cs := &checkedStream{Stream: s, group: g.Group, seen: map[string]bool{}}
	// Callers ask a stream whether it needs history; the wrapper must
	// answer exactly as the stream it wraps (or not at all).
	if h, ok := s.(interface{ NeedsHistory() bool }); ok {
		return &historyStream{checkedStream: cs, h: h}, nil
	}
	return cs, nil
}

type checkedStream struct {
	Stream
	group string
	seen  map[string]bool
}

func (s *checkedStream) Next(ctx context.Context, history []Outcome) (*Case, error) {
	c, err := s.Stream.Next(ctx, history)
	var caseErr *CaseError
	if errors.As(err, &caseErr) {
		if dup := s.see(caseErr.ID); dup != nil {
			return nil, dup
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := s.see(c.ID); err != nil {
		return nil, err
	}
	if err := problem.CheckName(c.ID); err != nil {
		return nil, &CaseError{ID: c.ID, Err: fmt.Errorf("case id: %w", err)}
	}
	if bad := CheckExpected(c.Expected); len(bad) > 0 {
		msgs := make([]string, len(bad))
		for i, b := range bad {
			msgs[i] = "expected." + b.Path() + ": " + b.Msg
		}
		return nil, &CaseError{ID: c.ID, Err: errors.New(strings.Join(msgs, "; "))}
	}
	return c, nil
}

// see records an id, refusing one the group already had.
func (s *checkedStream) see(id string) error {
	if s.seen[id] {
		return fmt.Errorf("group %s has two cases with id %q; case ids must be unique within a group", s.group, id)
	}
	s.seen[id] = true
	return nil
}

type historyStream struct {
	*checkedStream
	h interface{ NeedsHistory() bool }
}

func (s *historyStream) NeedsHistory() bool { return s.h.NeedsHistory() }
