package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/result"
)

// A case record names its artifacts — the group's server logs, a browser
// case's screenshots — by paths relative to the run directory. Reports
// show them, but run directories are shared between teams and their
// records are untrusted: a path may lead out of the run directory
// (../../etc/passwd, an absolute path, a symlink), name a FIFO or a
// device, or a file that is huge, binary or not an image at all. Every
// read of an artifact goes through this file, which opens only regular
// files under <run>/artifacts/ through an os.Root (no path, symlink or
// ".." leads out of it), never follows a symlink at the last step, checks
// what a file holds before a report embeds it, and reads at most a
// capped tail of a log. What it refuses comes back as an error a report
// shows as a note, in place of the artifact.

// ArtifactsDir is the run directory's folder of case artifacts.
const ArtifactsDir = "artifacts"

// CaseArtifacts splits a record's artifacts into screenshots (PNG or
// JPEG, by name) and logs (*.log), each in record order; others are left
// out.
func CaseArtifacts(r *result.CaseRecord) (screenshots, logs []string) {
	for _, a := range r.Result.Artifacts {
		switch strings.ToLower(path.Ext(a)) {
		case ".png", ".jpg", ".jpeg":
			screenshots = append(screenshots, a)
		case ".log":
			logs = append(logs, a)
		}
	}
	return screenshots, logs
}

// ErrArtifact is wrapped by every refusal of an artifact's path or file.
var ErrArtifact = errors.New("artifact not shown")

// ArtifactPath checks an artifact's reference as a record gives it and
// returns it as a local, slash-separated path under the run directory's
// artifacts folder.
func ArtifactPath(rel string) (string, error) {
	clean := path.Clean(filepath.ToSlash(rel))
	if rel == "" || strings.ContainsRune(rel, 0) || !filepath.IsLocal(filepath.FromSlash(clean)) ||
		!strings.HasPrefix(clean, ArtifactsDir+"/") {
		return "", fmt.Errorf("%w: %q is not a path under the run directory's %s/", ErrArtifact, Printable(rel, 200), ArtifactsDir)
	}
	return clean, nil
}

// OpenArtifact opens an artifact of the run in dir for reading: a regular
// file under dir/artifacts, reached without leaving dir, not a symlink.
// It returns the file and its size.
func OpenArtifact(dir, rel string) (*os.File, int64, error) {
	clean, err := ArtifactPath(rel)
	if err != nil {
		return nil, 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: open run directory: %v", ErrArtifact, err)
	}
	defer root.Close()
	name := filepath.FromSlash(clean)
	st, err := root.Lstat(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %s: %v", ErrArtifact, clean, unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%w: %s is not a regular file (%s)", ErrArtifact, clean, kindOf(st.Mode()))
	}
	// O_NONBLOCK: should the file be swapped for a FIFO after the check,
	// opening it must not wait for a writer.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %s: %v", ErrArtifact, clean, unwrapPath(err))
	}
	st, err = f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%w: %s is not a regular file", ErrArtifact, clean)
	}
	return f, st.Size(), nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// Image is a screenshot a report may show.
type Image struct {
	// Rel is its path in the run directory.
	Rel string
	// Type is image/png or image/jpeg, from the file's first bytes.
	Type string
	Size int64
	// Data is the whole file when it was no larger than the cap asked
	// for (a report embeds it), else nil (a report links it).
	Data []byte
}

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xFF, 0xD8, 0xFF}
)

// ReadImage checks that an artifact is a PNG or JPEG image and reads it
// whole when it is at most embedCap bytes.
func ReadImage(dir, rel string, embedCap int64) (Image, error) {
	f, size, err := OpenArtifact(dir, rel)
	if err != nil {
		return Image{}, err
	}
	defer f.Close()
	img := Image{Size: size}
	img.Rel, _ = ArtifactPath(rel)
	head := make([]byte, len(pngMagic))
	n, _ := io.ReadFull(f, head)
	switch head = head[:n]; {
	case bytes.HasPrefix(head, pngMagic):
		img.Type = "image/png"
	case bytes.HasPrefix(head, jpegMagic):
		img.Type = "image/jpeg"
	default:
		return Image{}, fmt.Errorf("%w: %s is not a PNG or JPEG image", ErrArtifact, img.Rel)
	}
	if size > embedCap {
		return img, nil
	}
	data := make([]byte, size)
	copy(data, head)
	if _, err := io.ReadFull(f, data[n:]); err != nil {
		return Image{}, fmt.Errorf("%w: read %s: %v", ErrArtifact, img.Rel, err)
	}
	img.Data = data
	return img, nil
}

// LogTail is the end of a log a report shows.
type LogTail struct {
	// Rel is its path in the run directory, Size its size.
	Rel  string
	Size int64
	// Text is its last lines, control characters replaced.
	Text string
	// Lines counts them; Cut says earlier lines were left out.
	Lines int
	Cut   bool
}

// ReadLogTail reads at most the last maxBytes of a log and keeps its last
// maxLines lines: a 50 MB log costs a report maxBytes. A log that is not
// text (NUL bytes, or mostly bytes that are not UTF-8) is refused.
func ReadLogTail(dir, rel string, maxLines int, maxBytes int64) (LogTail, error) {
	f, size, err := OpenArtifact(dir, rel)
	if err != nil {
		return LogTail{}, err
	}
	defer f.Close()
	t := LogTail{Size: size}
	t.Rel, _ = ArtifactPath(rel)
	off := max(size-maxBytes, 0)
	buf := make([]byte, size-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return LogTail{}, fmt.Errorf("%w: read %s: %v", ErrArtifact, t.Rel, err)
	}
	buf = buf[:n]
	if off > 0 {
		// The first line read is a part of one: start at the next.
		t.Cut = true
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	if notText(buf) {
		return LogTail{}, fmt.Errorf("%w: %s is not text (%d bytes)", ErrArtifact, t.Rel, size)
	}
	text := strings.TrimRight(string(buf), "\n")
	lines := strings.Split(text, "\n")
	if text == "" {
		lines = nil
	}
	if len(lines) > maxLines {
		lines, t.Cut = lines[len(lines)-maxLines:], true
	}
	for i, l := range lines {
		lines[i] = Printable(strings.TrimSuffix(l, "\r"), 0)
	}
	t.Text, t.Lines = strings.Join(lines, "\n"), len(lines)
	return t, nil
}

// notText says whether data looks like something other than text: a NUL
// byte, or more than a tenth of it not UTF-8.
func notText(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	bad, total := 0, len(data)
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size == 1 {
			bad++
		}
		data = data[size:]
	}
	return bad > 8 && bad*10 > total
}

// Printable replaces control characters other than tab (and bytes that
// are not UTF-8) with U+FFFD, so that text from a log or a record cannot
// move a terminal's cursor or break an XML document, and cuts it at limit
// bytes (0: no limit).
func Printable(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xFFFE || r == 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if limit > 0 && len(s) > limit {
		s = s[:utf8Cut(s, limit)] + "…"
	}
	return s
}

// termCell is a name (a checkpoint's, a group's, a category) as a cell of
// a terminal table: printable (Printable), and without tabs, which would
// shift the table's columns.
func termCell(s string) string {
	return strings.ReplaceAll(Printable(s, 0), "\t", " ")
}

// utf8Cut is the largest index ≤ n on a rune boundary of s.
func utf8Cut(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
