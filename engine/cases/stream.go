package cases

import (
	"context"
	"io"
)

// listStream yields a known, ordered list of cases, loading each only when
// it is asked for, so memory does not grow with the size of the group.
type listStream struct {
	entries []entry
	load    func(name string) (*Case, error)
	next    int
}

func (s *listStream) Next(ctx context.Context, _ []Outcome) (*Case, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.next >= len(s.entries) {
		return nil, io.EOF
	}
	e := s.entries[s.next]
	idx := s.next
	s.next++
	c, err := s.load(e.name)
	if err != nil {
		return nil, &CaseError{ID: e.name, Err: err}
	}
	c.Order = idx
	return c, nil
}

func (s *listStream) Len() int     { return len(s.entries) }
func (s *listStream) Close() error { return nil }

// listedStream yields cases already built in memory, in order (see
// Listed).
func listedStream(cs []*Case) Stream { return &memStream{cases: cs} }

type memStream struct {
	cases []*Case
	next  int
}

func (s *memStream) Next(ctx context.Context, _ []Outcome) (*Case, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.next >= len(s.cases) {
		return nil, io.EOF
	}
	// A copy: the engine resolves a case in place, and a group's cases
	// are opened again for every epoch.
	c := *s.cases[s.next]
	c.Order = s.next
	s.next++
	return &c, nil
}

func (s *memStream) Len() int     { return len(s.cases) }
func (s *memStream) Close() error { return nil }
