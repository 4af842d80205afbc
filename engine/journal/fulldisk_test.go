package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal/journaltest"
	"github.com/wasmeval/wasmeval/engine/result"
)

func bigRecord(i int) *result.CaseRecord {
	return &result.CaseRecord{Checkpoint: "c", Group: "g", ID: fmt.Sprint("case", i),
		Result: result.Execution{Output: strings.Repeat("x", 5000)}}
}

// An append that does not fit on the disk is cut back, so the journal
// still holds exactly the records that were appended whole, and the writer
// refuses every later append, even once there is room again: a record
// after a partial line that could not be cut would be a corrupt line in
// the middle. A new writer (a resumed run) appends again.
func TestAppendOnAFullDisk(t *testing.T) {
	dir, resize := journaltest.Tmpfs(t, "160k")
	path := filepath.Join(dir, FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var appendErr error
	for i := 0; i < 100 && appendErr == nil; i++ {
		appendErr = w.Append(bigRecord(i))
	}
	var werr *WriteError
	if !errors.As(appendErr, &werr) || !errors.Is(appendErr, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v", appendErr)
	}
	if werr.Path != path || werr.CutErr != nil || !strings.Contains(appendErr.Error(), path) || !strings.Contains(appendErr.Error(), "no space left on device") {
		t.Fatalf("error: %v", appendErr)
	}
	kept := w.Kept()
	if kept == 0 || kept >= 100 {
		t.Fatalf("kept %d records on a 160k disk", kept)
	}
	assertWhole(t, path, kept)
	// The room set aside is given back for what the run writes next.
	if _, err := os.Stat(filepath.Join(dir, ReserveName)); !os.IsNotExist(err) {
		t.Fatalf("the reserve is still there after the failure: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), make([]byte, 32<<10), 0o644); err != nil {
		t.Fatalf("no room for the manifest after the failure: %v", err)
	}
	// A writer cannot start without that room: refused before any record.
	if _, err := Create(path); err == nil || !strings.Contains(err.Error(), "set room aside for the results journal in "+dir) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Create on a full disk: %v", err)
	}
	assertWhole(t, path, kept)

	resize("1m")
	if err := w.Append(bigRecord(1000)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append after a failed one: %v, want the first failure again", err)
	}
	w.Close()
	assertWhole(t, path, kept)

	w, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(bigRecord(kept)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	assertWhole(t, path, kept+1)
}

// assertWhole checks that the journal is n whole records and nothing more.
func assertWhole(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("the journal ends with a partial line: ...%q", data[max(0, len(data)-40):])
	}
	if c, err := Check(path); c != nil || err != nil {
		t.Fatalf("journal check: %v %v", c, err)
	}
	got := 0
	if err := Read(path, func(*result.CaseRecord) error { got++; return nil }); err != nil {
		t.Fatal(err)
	}
	if got != n || bytes.Count(data, []byte("\n")) != n {
		t.Fatalf("journal holds %d records (%d lines), want %d", got, bytes.Count(data, []byte("\n")), n)
	}
}

// Records appended together that do not fit are all cut back: the journal
// holds the records appended before them, whole, and nothing of theirs.
func TestAppendAllOnAFullDisk(t *testing.T) {
	dir, _ := journaltest.Tmpfs(t, "160k")
	path := filepath.Join(dir, FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i := 0; ; i += 4 {
		batch := []*result.CaseRecord{bigRecord(i), bigRecord(i + 1), bigRecord(i + 2), bigRecord(i + 3)}
		err := w.AppendAll(batch)
		if err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("append on a full disk: %v", err)
			}
			break
		}
		kept += len(batch)
		if w.Kept() != kept {
			t.Fatalf("kept %d, want %d", w.Kept(), kept)
		}
	}
	if kept == 0 || w.Kept() != kept {
		t.Fatalf("kept %d (writer: %d)", kept, w.Kept())
	}
	assertWhole(t, path, kept)
}
