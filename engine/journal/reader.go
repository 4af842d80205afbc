package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wasmeval/wasmeval/engine/result"
)

// Reader reads records of one journal by their offsets (as ReadOffsets
// gives them) through one open file, so a caller that keeps only offsets
// can fetch many records back without opening the file for each. Records
// read in file order are read sequentially, through one buffer; a jump
// elsewhere costs one seek. A Reader is not safe for concurrent use: open
// one per goroutine.
type Reader struct {
	f    *os.File
	path string
	br   *bufio.Reader
	pos  int64 // where br reads next; -1 before the first read
}

// OpenReader opens the journal at path for ReadAt.
func OpenReader(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open results journal: %w", err)
	}
	return &Reader{f: f, path: path, br: bufio.NewReaderSize(f, 1<<16), pos: -1}, nil
}

// ReadAt reads the record whose line starts at offset. A line that is not
// whole (no newline: the file changed since its offset was taken) or not
// a record is an error naming the file and the offset.
func (r *Reader) ReadAt(offset int64) (*result.CaseRecord, error) {
	if offset != r.pos {
		r.br.Reset(io.NewSectionReader(r.f, offset, 1<<62))
		r.pos = offset
	}
	line, err := r.br.ReadBytes('\n')
	r.pos += int64(len(line))
	if err != nil {
		r.pos = -1 // the buffer's state is unknown: seek on the next read
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: record at byte %d: the journal ends inside it (it changed while being read)", r.path, offset)
		}
		return nil, fmt.Errorf("%s: read record at byte %d: %w", r.path, offset, err)
	}
	rec, err := decodeLine(r.path, 0, line)
	if err != nil {
		return nil, fmt.Errorf("record at byte %d: %w", offset, err)
	}
	return rec, nil
}

// Close closes the file.
func (r *Reader) Close() error {
	if r == nil || r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
