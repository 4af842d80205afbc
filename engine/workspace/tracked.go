package workspace

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// FileTruncationMarker is appended to a tracked text file cut at the cap.
const FileTruncationMarker = "\n[wasmeval: file truncated, %d more bytes dropped]"

// Limits on a case's tracked files as a whole (each file is also cut at
// the caller's per-file cap): a submission that writes thousands of files,
// or many large ones, must not make the engine read them all into memory.
// A case over either limit fails with an error that says so.
const (
	MaxTrackedFiles = 10000
	MaxTrackedBytes = 128 << 20
)

// ReadTracked reads the files a case tracks, after it ran. Each pattern is a
// path, a directory (every file under it) or a glob with ** (doublestar
// syntax), relative to root. The result maps slash-separated path →
// content: a string when the file is UTF-8, []byte otherwise. Files larger
// than maxBytes are cut (text gets a marker). Patterns matching nothing add
// nothing — a missing output file is for a check to report. Symlinks that
// leave the workspace are skipped, so a submission cannot make the engine
// read the host's files into a report: globbing and reading go through an
// os.Root on root, so a link swapped in while they run cannot lead out
// either, and only regular files are opened (see openRegular).
func ReadTracked(root string, patterns []string, maxBytes int64) (map[string]any, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	defer r.Close()
	fsys := r.FS()
	paths := map[string]bool{}
	for _, pat := range patterns {
		if pat != "" {
			pat = path.Clean(pat) // "out/" and "./out" mean "out"
		}
		if pat == "" || !filepath.IsLocal(filepath.FromSlash(pat)) {
			return nil, fmt.Errorf("tracked file pattern %q escapes the workspace", pat)
		}
		matches, err := doublestar.Glob(fsys, pat, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
		if err != nil {
			return nil, fmt.Errorf("tracked file pattern %q: %w", pat, err)
		}
		for _, m := range matches {
			paths[m] = true
		}
		// A pattern naming a directory tracks everything under it.
		if st, err := fs.Stat(fsys, pat); err == nil && st.IsDir() {
			sub, _ := doublestar.Glob(fsys, pat+"/**", doublestar.WithFilesOnly(), doublestar.WithNoFollow())
			for _, m := range sub {
				paths[m] = true
			}
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	if len(sorted) > MaxTrackedFiles {
		return nil, fmt.Errorf("the tracked files are %d files; a case may track at most %d", len(sorted), MaxTrackedFiles)
	}
	out := make(map[string]any, len(sorted))
	var total int64
	for i, rel := range sorted {
		f, st, ok, err := openRegular(r, filepath.FromSlash(rel))
		if err != nil {
			return nil, fmt.Errorf("tracked file %s: %w", rel, err)
		}
		if !ok {
			continue
		}
		if total += min(st.Size(), maxBytes); total > MaxTrackedBytes {
			f.Close()
			return nil, fmt.Errorf("the tracked files add up to more than %d MiB, the most a case may track (%d of %d files read)",
				MaxTrackedBytes>>20, i, len(sorted))
		}
		content, err := readCapped(f, st, maxBytes)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("tracked file %s: %w", rel, err)
		}
		out[rel] = content
	}
	return out, nil
}

func readCapped(f *os.File, st fs.FileInfo, maxBytes int64) (any, error) {
	data, err := io.ReadAll(io.LimitReader(f, maxBytes))
	if err != nil {
		return nil, err
	}
	dropped := st.Size() - int64(len(data))
	text := utf8.Valid(data)
	if !text && dropped > 0 {
		// A cut may split a UTF-8 sequence; text that is valid up to the
		// cut is still text.
		trimmed := data
		for i := 0; i < utf8.UTFMax && len(trimmed) > 0 && !utf8.Valid(trimmed); i++ {
			trimmed = trimmed[:len(trimmed)-1]
		}
		if utf8.Valid(trimmed) {
			dropped += int64(len(data) - len(trimmed))
			data, text = trimmed, true
		}
	}
	if !text {
		return data, nil
	}
	s := string(data)
	if dropped > 0 {
		s += fmt.Sprintf(FileTruncationMarker, dropped)
	}
	return s, nil
}
