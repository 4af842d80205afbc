// Package casetest holds what tests of several packages use to make cases
// on the fly, so none commits large files.
package casetest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteLargeText writes a text file of exactly size bytes of numbered
// lines at path, creating its directory.
func WriteLargeText(tb testing.TB, path string, size int) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for n, i := 0, 0; n < size; i++ {
		line := fmt.Sprintf("line %d %s\n", i, strings.Repeat("x", 60))
		if n+len(line) > size {
			line = line[:size-n]
		}
		w.WriteString(line)
		n += len(line)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}
