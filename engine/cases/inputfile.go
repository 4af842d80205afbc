package cases

import (
	"bytes"
	"fmt"
	"io"

	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// InputFile is a file materialised into the workspace before a case runs.
//
// Its bytes are either held (Content: inline `content:` of a case file, a
// plugin's case, a small file whose {{static:NAME}} references were
// resolved) or they are a file of the problem (From), copied file to file
// when the case runs. A 50 MB case input used to be read whole when the
// case was validated and again when it was loaded for the run, and
// copied on its way to the workspace; a file of the problem is now only
// looked at (confined, regular, its size) until it is copied.
type InputFile struct {
	Path    string `json:"path"`
	Content []byte `json:"content,omitempty"`
	// From is the problem file the bytes come from; Content is nil then.
	From *ProblemFile `json:"from,omitempty"`
}

// ProblemFile is a file of the problem whose content an input file copies.
type ProblemFile struct {
	// Name is the file as the loader named it (absolute, or relative to
	// the problem directory).
	Name string `json:"name"`
	// Size is its size when the case was loaded; what is copied is the
	// file as it is when the case runs.
	Size int64 `json:"size"`
	// files confines every later open, as the loader's look was confined.
	files *confine.Tree
}

// FromProblem is the input file path whose content is the problem file
// name, read through files (the problem directory and the allowed mount
// roots, symlinks followed inside them only). The file is looked at, not
// read: it must exist and be a regular file.
func FromProblem(files *confine.Tree, name, path string) (InputFile, error) {
	st, err := files.Stat(name)
	if err != nil {
		return InputFile{}, err
	}
	if !st.Mode().IsRegular() {
		return InputFile{}, fmt.Errorf("%s is not a regular file", name)
	}
	return InputFile{Path: path, From: &ProblemFile{Name: name, Size: st.Size(), files: files}}, nil
}

// Open returns the file's bytes as a stream. A problem file is opened
// through the same confinement the loader used, resolved again now: a
// symlink swapped in after the case was loaded that leads out of the
// problem is refused, as is anything but a regular file.
func (f *InputFile) Open() (io.ReadCloser, error) {
	if f.From == nil {
		return io.NopCloser(bytes.NewReader(f.Content)), nil
	}
	if f.From.files == nil {
		return nil, fmt.Errorf("input file %s: problem file %s has no problem to be read from", f.Path, f.From.Name)
	}
	return f.From.files.Open(f.From.Name)
}

// Bytes returns the whole content, reading a problem file (for the few
// consumers that need it in memory, such as a plugin's envelope).
func (f *InputFile) Bytes() ([]byte, error) {
	if f.From == nil {
		return f.Content, nil
	}
	if f.From.files == nil {
		return nil, fmt.Errorf("input file %s: problem file %s has no problem to be read from", f.Path, f.From.Name)
	}
	return f.From.files.ReadFile(f.From.Name)
}

// Size is the number of bytes the file holds (a problem file's size when
// the case was loaded).
func (f *InputFile) Size() int64 {
	if f.From != nil {
		return f.From.Size
	}
	return int64(len(f.Content))
}
