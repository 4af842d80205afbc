package main

import (
	"path/filepath"
	"sync"
	"testing"
)

// Runs that start in the same second with the default output directory
// each get their own: the name is claimed by creating it.
func TestClaimDirGivesEachRunItsOwn(t *testing.T) {
	base := filepath.Join(t.TempDir(), "wasmeval-out", "p-20260101-000000")
	var mu sync.Mutex
	got := map[string]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir, err := claimDir(base)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if got[dir] {
				t.Errorf("%s given twice", dir)
			}
			got[dir] = true
		}()
	}
	wg.Wait()
	if len(got) != 8 || !got[base] || !got[base+"-8"] {
		t.Errorf("claimed %v", got)
	}
}
