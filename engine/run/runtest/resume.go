package runtest

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
)

// CancelAfter is a run's progress (run.Progress) that cancels the run once
// N cases have finished: an interrupt at a known point.
type CancelAfter struct {
	N      int
	Cancel context.CancelFunc
	mu     sync.Mutex
}

func (c *CancelAfter) GroupStarted(string, string, int)  {}
func (c *CancelAfter) GroupFinished(string, string)      {}
func (c *CancelAfter) GroupError(string, string, string) {}

func (c *CancelAfter) CaseFinished(*result.CaseRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.N--; c.N == 0 {
		c.Cancel()
	}
}

// JournalIDs lists a run's journal as "id=passed" entries, in file order.
func JournalIDs(t testing.TB, path string) []string {
	t.Helper()
	var ids []string
	if err := journal.Read(path, func(r *result.CaseRecord) error {
		ids = append(ids, r.ID+"="+strconv.FormatBool(r.Passed))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}
