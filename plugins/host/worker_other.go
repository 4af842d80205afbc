//go:build !linux

package host

import (
	"errors"
	"os"
	"os/exec"
)

// bindToParent: elsewhere a worker notices its parent's end when its input
// pipe closes, between calls.
func bindToParent(*exec.Cmd) {}

// workerPipe returns a pipe for talking to a worker.
func workerPipe() (r, w *os.File, err error) { return os.Pipe() }

// moduleFile: elsewhere workers receive the module over their pipe.
func moduleFile([]byte) (*os.File, error) { return nil, errors.ErrUnsupported }

func mapModule(int) ([]byte, error) { return nil, errors.ErrUnsupported }

// newShared: elsewhere payloads go through the pipe.
func newShared(int) (*shared, *os.File, error) { return nil, nil, errors.ErrUnsupported }

func mapShared(int, int) (*shared, error) { return nil, errors.ErrUnsupported }

func (s *shared) unmap() {}
