// Package journal is the run's results journal: one JSON line per finished
// case, appended the moment the case finishes. Each line goes to the file in
// a single write with no user-space buffering, so a crash or Ctrl-C loses
// nothing that had finished, and a reader can stream the file back without
// holding it in memory.
package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/wasmeval/wasmeval/engine/result"
)

// FileName is the journal's name inside a run directory.
const FileName = "results.jsonl"

// Writer appends records; it is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// Create opens (creating or appending to) the journal at path.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results journal: %w", err)
	}
	return &Writer{f: f, path: path}, nil
}

// Append writes one record as one line.
func (w *Writer) Append(rec *result.CaseRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode result of %s: %w", rec.Key(), err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return errors.New("results journal is closed")
	}
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("write results journal %s: %w", w.path, err)
	}
	return nil
}

// Close syncs and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}

// Read streams every record of the journal at path to fn, in file order. A
// torn last line (the process died mid-write) is skipped, not an error: a
// record is only complete with its newline, which it is written with in one
// write, even when the part before it happens to parse. ReadOffsets and
// Repair apply the same rule, so a report and a resumed run see the same
// records.
func Read(path string, fn func(*result.CaseRecord) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open results journal: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	lineNo := 0
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			lineNo++
			if line[len(line)-1] != '\n' {
				return nil // torn final write
			}
			var rec result.CaseRecord
			if uerr := json.Unmarshal(line, &rec); uerr != nil {
				return fmt.Errorf("%s:%d: corrupt journal line: %w", path, lineNo, uerr)
			}
			if ferr := fn(&rec); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read results journal: %w", err)
		}
	}
}
