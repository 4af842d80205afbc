package parquet

import (
	"io"
	"os"
	"sync"
)

// spoolPool is a parquet-go BufferPool that keeps the compressed pages of
// the row group being written in temporary files instead of the heap, so a
// row group's size costs disk, not memory. Each file is unlinked as soon
// as it is made: nothing is left behind however the process ends. Files
// are truncated and reused between row groups rather than made anew for
// every column of every group.
type spoolPool struct {
	dir  string
	mu   sync.Mutex
	free []*os.File
}

func (p *spoolPool) GetBuffer() io.ReadWriteSeeker {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		f := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return f
	}
	p.mu.Unlock()
	f, err := os.CreateTemp(p.dir, ".results-pages-*")
	if err != nil {
		return failedBuffer{err}
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return failedBuffer{err}
	}
	return f
}

func (p *spoolPool) PutBuffer(b io.ReadWriteSeeker) {
	f, ok := b.(*os.File)
	if !ok {
		return
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return
	}
	p.mu.Lock()
	p.free = append(p.free, f)
	p.mu.Unlock()
}

// close closes the files kept for reuse.
func (p *spoolPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.free {
		f.Close()
	}
	p.free = nil
}

// failedBuffer is a page buffer that could not be made: every use fails
// with why, which the writer returns from the write or flush.
type failedBuffer struct{ err error }

func (b failedBuffer) Read([]byte) (int, error)       { return 0, b.err }
func (b failedBuffer) Write([]byte) (int, error)      { return 0, b.err }
func (b failedBuffer) Seek(int64, int) (int64, error) { return 0, b.err }
