package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wasmeval/wasmeval/engine/result"
)

// ReadOffsets streams the journal like Read and also passes each record's
// byte offset, so a caller can keep offsets instead of records and fetch a
// record again with ReadAt.
func ReadOffsets(path string, fn func(rec *result.CaseRecord, offset int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open results journal: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	var off int64
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				return nil // torn final write
			}
			var rec result.CaseRecord
			if uerr := json.Unmarshal(line, &rec); uerr != nil {
				return fmt.Errorf("%s:%d: corrupt journal line: %w", path, lineNo, uerr)
			}
			if ferr := fn(&rec, off); ferr != nil {
				return ferr
			}
			off += int64(len(line))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read results journal: %w", err)
		}
	}
}

// ReadAt reads the record starting at offset.
func ReadAt(path string, offset int64) (*result.CaseRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open results journal: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReader(io.NewSectionReader(f, offset, 1<<62)).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("%s: read record at byte %d: %w", path, offset, err)
	}
	var rec result.CaseRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, fmt.Errorf("%s: record at byte %d: %w", path, offset, err)
	}
	return &rec, nil
}

// Repair cuts a torn final line (the process died mid-write) so that
// appending to the journal starts on a line of its own. A journal that
// does not exist is left alone.
func Repair(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open results journal: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	// Walk back from the end in blocks to the last newline.
	const block = 64 << 10
	buf := make([]byte, block)
	end := size
	for end > 0 {
		start := max(end-block, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("repair results journal: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep := start + int64(i) + 1
			if keep == size {
				return nil
			}
			return f.Truncate(keep)
		}
		end = start
	}
	return f.Truncate(0)
}
