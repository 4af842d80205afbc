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

// TornTail says whether the journal at path ends in a torn line (bytes
// after its last newline): what a process that died mid-write leaves, or,
// in the journal of a run that ended, damage done to it since.
func TornTail(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
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

// ReadHeads streams the heads of the journal's records: it checks every
// line as ReadOffsets does (the first corrupt line in file order stops
// it), on up to workers goroutines at once, but decodes only each
// record's head. Each head and its line (newline included) go to keep,
// on the worker that read them (so keep must be safe for concurrent
// use), and what keep makes of them goes to fn with the line's offset
// and length, in file order, from one goroutine. It holds a few chunks of
// lines per worker at once, and what keep makes of them, never the
// journal.
func ReadHeads[T any](path string, workers int, keep func(h Head, line []byte) T, fn func(v T, offset int64, size int) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open results journal: %w", err)
	}
	defer f.Close()
	if workers < 2 {
		return lines(f, func(line []byte, lineNo int, off int64) error {
			rec, err := decodeLineWith(decodeHead, path, lineNo, line)
			if err != nil {
				return err
			}
			return fn(keep(headOf(rec), line), off, len(line))
		})
	}
	done := make(chan struct{})
	defer close(done)
	work := make(chan *lineChunk[T], workers)
	ordered := make(chan *lineChunk[T], workers+1)
	var readErr error
	go func() {
		defer close(work)
		defer close(ordered)
		c := &lineChunk[T]{done: make(chan struct{})}
		send := func() bool {
			select {
			case ordered <- c:
			case <-done:
				return false
			}
			select {
			case work <- c:
			case <-done:
				return false
			}
			c = &lineChunk[T]{done: make(chan struct{})}
			return true
		}
		stop := errors.New("stopped")
		err := lines(f, func(line []byte, lineNo int, off int64) error {
			if len(c.offs) == 0 {
				c.firstLine = lineNo
				c.data = make([]byte, 0, chunkBytes+chunkBytes/4)
			}
			c.offs = append(c.offs, off)
			c.ends = append(c.ends, len(c.data)+len(line))
			c.data = append(c.data, line...)
			if len(c.data) >= chunkBytes || len(c.offs) >= chunkLines {
				if !send() {
					return stop
				}
			}
			return nil
		})
		if err == nil && len(c.offs) > 0 {
			send()
		}
		if err != nil && !errors.Is(err, stop) {
			readErr = err // read before ordered is closed
		}
	}()
	for i := 0; i < workers; i++ {
		go func() {
			for c := range work {
				c.decode(path, keep)
			}
		}()
	}
	for c := range ordered {
		<-c.done
		start := 0
		for i, off := range c.offs {
			if c.err != nil && i == c.errAt {
				return c.err
			}
			if err := fn(c.kept[i], off, c.ends[i]-start); err != nil {
				return err
			}
			start = c.ends[i]
		}
	}
	return readErr
}

// Chunks of lines ReadHeads decodes at once.
const (
	chunkBytes = 256 << 10
	chunkLines = 256
)

// lineChunk is a run of whole lines, decoded by a worker.
type lineChunk[T any] struct {
	firstLine int
	data      []byte
	offs      []int64
	ends      []int // where each line ends in data
	kept      []T
	err       error // the first corrupt line's, at errAt
	errAt     int
	done      chan struct{}
}

func (c *lineChunk[T]) decode(path string, keep func(Head, []byte) T) {
	defer close(c.done)
	c.kept = make([]T, len(c.offs))
	start := 0
	for i := range c.offs {
		line := c.data[start:c.ends[i]]
		rec, err := decodeLineWith(decodeHead, path, c.firstLine+i, line)
		if err != nil {
			c.err, c.errAt = err, i
			break
		}
		c.kept[i] = keep(headOf(rec), line)
		start = c.ends[i]
	}
	c.data = nil
}
