package journal

import (
	"bufio"
	"bytes"
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
	return lines(f, func(line []byte, lineNo int, off int64) error {
		rec, err := decodeLine(path, lineNo, line)
		if err != nil {
			return err
		}
		return fn(rec, off)
	})
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
	rec, err := decodeLine(path, 0, line)
	if err != nil {
		return nil, fmt.Errorf("%s: record at byte %d: %w", path, offset, err)
	}
	return rec, nil
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
		return fmt.Errorf("repair results journal %s: %w", path, err)
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
			return fmt.Errorf("repair results journal %s: %w", path, err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep := start + int64(i) + 1
			if keep == size {
				return nil
			}
			return cut(f, path, keep)
		}
		end = start
	}
	return cut(f, path, 0)
}

func cut(f *os.File, path string, size int64) error {
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("cut the torn last line of the results journal %s: %w", path, err)
	}
	return nil
}
