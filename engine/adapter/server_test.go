package adapter

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server log keeps its tail in memory and stops growing on disk at the cap.
func TestLogSinkCapsAndKeepsTail(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	l := &logSink{file: f}
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i < MaxLogBytes>>20+3; i++ {
		l.Write(chunk)
	}
	l.Write([]byte("last words\n"))
	l.Close()
	st, _ := os.Stat(f.Name())
	if st.Size() > MaxLogBytes+100 || st.Size() < MaxLogBytes {
		t.Errorf("log file is %d bytes, want the cap %d plus a marker", st.Size(), MaxLogBytes)
	}
	if tail := l.Tail(); !strings.HasSuffix(tail, "last words\n") || len(tail) != LogTailBytes {
		t.Errorf("tail: %d bytes ending %q", len(tail), tail[len(tail)-20:])
	}
}
