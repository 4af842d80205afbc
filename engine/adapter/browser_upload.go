package adapter

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/wasmeval/wasmeval/engine/workspace"
)

// MaxUploadBytes bounds each file an upload step hands the browser: the
// file is copied (below), and a submission could make it as large as the
// disk.
const MaxUploadBytes = 128 << 20

// uploads holds the private copies of the files a case's upload steps hand
// to Chromium. The browser opens an upload by path, at a moment of its
// own; given the workspace path, it would follow whatever sits there by
// then, and a server running in the workspace (the submission) could have
// replaced the file by a symlink to a host file — the problem's expected
// outputs, /etc/passwd — and received that file's content. Each file is
// therefore copied, through an os.Root on the workspace, into a directory
// of the engine's own that the submission cannot write, and the browser is
// handed the copy. Chromium reads a chosen file when the page asks for it,
// which may be a later step (a form submitted by a click), so the copies
// live as long as the case.
type uploads struct {
	dir string
	n   int
}

// copy copies the workspace file rel and returns the copy's path. The copy
// keeps the file's base name, which is what the page sees as File.name;
// each copy gets a directory of its own so two files of one name (a/x.txt,
// b/x.txt) can be uploaded together.
func (u *uploads) copy(workdir, rel string) (string, error) {
	if u.dir == "" {
		dir, err := os.MkdirTemp("", "wasmeval-upload-")
		if err != nil {
			return "", fmt.Errorf("upload %s: a private directory for the copy: %w", rel, err)
		}
		u.dir = dir
	}
	u.n++
	sub := filepath.Join(u.dir, strconv.Itoa(u.n))
	if err := os.Mkdir(sub, 0o700); err != nil {
		return "", fmt.Errorf("upload %s: %w", rel, err)
	}
	dst := filepath.Join(sub, path.Base(rel))
	if _, err := workspace.CopyOut(workdir, rel, dst, MaxUploadBytes); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("upload %s: no such file in the workspace (give it as an input file of the case)", rel)
		}
		return "", fmt.Errorf("upload %s: %w", rel, err)
	}
	return dst, nil
}

// remove deletes the copies; the case is over and its tab closed.
func (u *uploads) remove() error {
	if u.dir == "" {
		return nil
	}
	if err := os.RemoveAll(u.dir); err != nil {
		return fmt.Errorf("remove the copies of uploaded files: %w", err)
	}
	u.dir = ""
	return nil
}
