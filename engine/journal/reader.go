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
	pos  int64  // where br reads next; -1 before the first read
	long []byte // a line longer than br's buffer
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
	line, err := r.ReadLine(offset)
	if err != nil {
		return nil, err
	}
	return r.Decode(line, offset, true)
}

// ReadLine reads the whole line that starts at offset, its newline
// included (so the next line starts at offset+len). The bytes are valid
// until the Reader reads again. A line without its newline (the file
// changed since its offset was taken) is an error.
func (r *Reader) ReadLine(offset int64) ([]byte, error) {
	if offset != r.pos {
		r.br.Reset(io.NewSectionReader(r.f, offset, 1<<62))
		r.pos = offset
	}
	line, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		// Longer than the buffer: gathered in a buffer of the Reader's.
		r.long = append(r.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
		if cap(r.long) > 1<<20 {
			r.long = nil // a rare long line is not kept
		}
	}
	r.pos += int64(len(line))
	if err != nil {
		r.pos = -1 // the buffer's state is unknown: seek on the next read
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: record at byte %d: the journal ends inside it (it changed while being read)", r.path, offset)
		}
		return nil, fmt.Errorf("%s: read record at byte %d: %w", r.path, offset, err)
	}
	return line, nil
}

// Decode decodes a line ReadLine read at offset. Without attributes, the
// record's attributes are passed over (left nil), which is cheaper: for a
// caller that gives the record new ones.
func (r *Reader) Decode(line []byte, offset int64, attributes bool) (*result.CaseRecord, error) {
	decode := decodeRecord
	if !attributes {
		decode = decodeWithoutAttributes
	}
	rec, err := decodeLineWith(decode, r.path, 0, line)
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
