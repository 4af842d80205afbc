package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Spool is a temporary file that collects one section of a report while
// another is written, so a report whose sections each need every case
// reads the journal once instead of once per section, without holding a
// section in memory.
type Spool struct {
	f *os.File
	*bufio.Writer
}

// NewSpool creates an empty spool in the system's temporary directory.
func NewSpool() (*Spool, error) {
	f, err := os.CreateTemp("", "wasmeval-report-*")
	if err != nil {
		return nil, fmt.Errorf("report spool: %w", err)
	}
	return &Spool{f: f, Writer: bufio.NewWriterSize(f, 64<<10)}, nil
}

// CopyTo writes what the spool collected to w.
func (s *Spool) CopyTo(w io.Writer) error {
	if err := s.Flush(); err != nil {
		return fmt.Errorf("report spool: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("report spool: %w", err)
	}
	if _, err := io.Copy(w, s.f); err != nil {
		return fmt.Errorf("report spool: %w", err)
	}
	return nil
}

// Close removes the spool.
func (s *Spool) Close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
