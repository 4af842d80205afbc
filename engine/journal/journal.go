// Package journal is the run's results journal: one JSON line per finished
// case, appended the moment the case finishes. Each line goes to the file in
// a single write with no user-space buffering, so a crash or Ctrl-C loses
// nothing that had finished, and a reader can stream the file back without
// holding it in memory. A run directory has one writer at a time (see
// LockDir); RATIONALE.md says why the journal is written the way it is.
package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/wasmeval/wasmeval/engine/result"
)

// FileName is the journal's name inside a run directory.
const FileName = "results.jsonl"

// Writer appends records; it is safe for concurrent use. Its caller holds
// the run directory's lock: the writer cuts the file back to its last
// whole record when an append fails, which is only safe with no other
// writer.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	// size is where the next record starts: the end of the last whole
	// record written.
	size int64
	kept int
	// failed is the first failed append. The writer refuses every later
	// one: a record appended after a failure could land after a partial
	// line that could not be cut, leaving a corrupt line in the middle.
	failed error
	// reserve is the room kept for recording how the run ended.
	reserve *reserve
}

// Create opens (creating or appending to) the journal at path. A torn last
// line, left by a process that died mid-write, is cut first so that the
// next record starts on a line of its own. It also sets room aside beside
// the journal (ReserveName), given back when an append fails, so that a
// run stopped by a full disk can still record how it ended; a disk without
// that room is refused here, before any case runs.
func Create(path string) (*Writer, error) {
	if err := Repair(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results journal: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open results journal: %w", err)
	}
	res, err := makeReserve(filepath.Dir(path))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Writer{f: f, path: path, size: st.Size(), reserve: res}, nil
}

// Append writes one record as one line. When the write fails or is short
// (a full disk), the partial line is cut, so the journal still ends with
// a whole record, and the writer refuses every later append: the caller
// must stop. The error is a *WriteError.
func (w *Writer) Append(rec *result.CaseRecord) error {
	return w.AppendAll([]*result.CaseRecord{rec})
}

// AppendAll writes records as lines, in order, as Append writes one: in
// one write, or in writes of whole lines of at least appendChunk bytes.
// When a write fails or is short, the journal is cut back to where the
// first one started: none of the records is kept. Records are encoded
// before the writer is taken, so writers of other goroutines wait only
// for the write (for the whole of a batch larger than appendChunk).
func (w *Writer) AppendAll(recs []*result.CaseRecord) error {
	bp := linesPool.Get().(*[]byte)
	lines := (*bp)[:0]
	locked := false
	var start int64
	defer func() {
		if locked {
			w.mu.Unlock()
		}
		if cap(lines) <= 4*appendChunk {
			*bp = lines[:0]
			linesPool.Put(bp)
		}
	}()
	lock := func() error {
		w.mu.Lock()
		locked = true
		if w.failed != nil {
			return w.failed
		}
		if w.f == nil {
			return errors.New("results journal is closed")
		}
		start = w.size
		return nil
	}
	write := func() error {
		n, err := w.f.Write(lines)
		w.size += int64(n)
		lines = lines[:0]
		if err == nil {
			return nil
		}
		werr := &WriteError{Path: w.path, Err: err, Partial: w.size > start}
		if w.size > start {
			if terr := w.f.Truncate(start); terr != nil {
				werr.CutErr = terr
			}
		}
		w.size = start
		// The run stops now; what it writes next (its manifest, its
		// summaries) gets the room kept for it.
		w.reserve.release()
		w.failed = werr
		return werr
	}
	for i, rec := range recs {
		var err error
		if lines, err = appendEncoded(lines, rec); err != nil {
			err = fmt.Errorf("encode result of %s: %w", rec.Key(), err)
			if locked && w.size > start {
				// Lines of earlier records are written: cut back.
				if terr := w.f.Truncate(start); terr != nil {
					w.failed = &WriteError{Path: w.path, Err: err, Partial: true, CutErr: terr}
					return w.failed
				}
				w.size = start
			}
			return err
		}
		lines = append(lines, '\n')
		if len(lines) >= appendChunk && i < len(recs)-1 {
			if !locked {
				if err := lock(); err != nil {
					return err
				}
			}
			if err := write(); err != nil {
				return err
			}
		}
	}
	if !locked {
		if err := lock(); err != nil {
			return err
		}
	}
	if err := write(); err != nil {
		return err
	}
	w.kept += len(recs)
	return nil
}

// linesPool holds AppendAll's buffers.
var linesPool = sync.Pool{New: func() any { return new([]byte) }}

// appendChunk is how many bytes of lines AppendAll holds before it writes
// them.
const appendChunk = 1 << 20

// Kept is how many records this writer appended.
func (w *Writer) Kept() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kept
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
	w.reserve.release()
	if err != nil {
		return fmt.Errorf("close results journal %s: %w", w.path, err)
	}
	return nil
}

// WriteError is a failed append.
type WriteError struct {
	Path string
	Err  error // what the OS said (errors.Is(err, syscall.ENOSPC) on a full disk)
	// Partial: part of the line reached the file before the write failed.
	Partial bool
	// CutErr is why the partial line could not be cut back, if it could not.
	CutErr error
}

func (e *WriteError) Error() string {
	cause := e.Err
	var pe *os.PathError
	if errors.As(cause, &pe) {
		cause = pe.Err // the path is said once
	}
	s := fmt.Sprintf("cannot write to the results journal %s: %v", e.Path, cause)
	switch {
	case e.CutErr != nil:
		s += fmt.Sprintf(" (and cutting the partial line back failed: %v; it is the journal's last line, which reports ignore and --resume cuts)", e.CutErr)
	case e.Partial:
		s += " (the partial line was cut back: the journal ends with the last whole record)"
	}
	return s
}

func (e *WriteError) Unwrap() error { return e.Err }

// Read streams every record of the journal at path to fn, in file order. A
// torn last line (the process died mid-write) is skipped, not an error: a
// record is only complete with its newline, which it is written with in one
// write, even when the part before it happens to parse. ReadOffsets and
// Repair apply the same rule, so a report and a resumed run see the same
// records. A corrupt line anywhere else is a *CorruptError (see Salvage).
func Read(path string, fn func(*result.CaseRecord) error) error {
	return ReadOffsets(path, func(rec *result.CaseRecord, _ int64) error { return fn(rec) })
}

// lines calls fn with each whole line of the journal (newline included),
// its number and offset; a torn last line is not passed. The line's bytes
// are fn's only during the call.
func lines(r io.Reader, fn func(line []byte, lineNo int, offset int64) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var off int64
	var long []byte // a line longer than br's buffer
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			if ferr := fn(line, lineNo, off); ferr != nil {
				return ferr
			}
			off += int64(len(line))
		}
		if cap(long) > 4<<20 {
			long = nil // a rare long line is not kept
		}
		if errors.Is(err, io.EOF) {
			return nil // a line without its newline is a torn final write
		}
		if err != nil {
			return fmt.Errorf("read results journal: %w", err)
		}
	}
}
