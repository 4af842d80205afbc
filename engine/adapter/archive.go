package adapter

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/workspace"
)

// An archive response is held to the same limits as a case's tracked
// files (each file is also cut at the per-file cap): so many entries, so
// many bytes kept in all.
const (
	maxArchiveEntries = workspace.MaxTrackedFiles
	maxArchiveBytes   = workspace.MaxTrackedBytes
)

// maxInflatedBytes bounds how much of a gzip-compressed tar is inflated at
// all, kept or skipped, so a small compressed bomb cannot keep the engine
// busy inflating gigabytes of entries it throws away. (A variable so the
// test can show it without inflating a gigabyte.)
var maxInflatedBytes int64 = 1 << 30

// unpackArchive reads a zip, tar or gzip-compressed tar held in memory into
// path → content (text when UTF-8, bytes otherwise), each file capped at
// max bytes. Absolute paths and paths that climb out with .. are refused.
func unpackArchive(data []byte, max int64) (map[string]any, error) {
	files := map[string]any{}
	var total int64
	add := func(name string, r io.Reader) error {
		if path.IsAbs(name) || strings.HasPrefix(path.Clean(name), "../") || path.Clean(name) == ".." {
			return fmt.Errorf("entry %q escapes the archive", name)
		}
		if len(files) >= maxArchiveEntries {
			return fmt.Errorf("more than %d entries", maxArchiveEntries)
		}
		b, err := io.ReadAll(io.LimitReader(r, max))
		if err != nil {
			return fmt.Errorf("entry %s: %w", name, err)
		}
		if total += int64(len(b)); total > maxArchiveBytes {
			return fmt.Errorf("more than %d MiB of files (after %d entries)", maxArchiveBytes>>20, len(files))
		}
		if utf8.Valid(b) {
			files[path.Clean(name)] = string(b)
		} else {
			files[path.Clean(name)] = b
		}
		return nil
	}
	var err error
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")):
		err = unpackZip(data, add)
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		zr, gzErr := gzip.NewReader(bytes.NewReader(data))
		if gzErr != nil {
			return nil, fmt.Errorf("gzip: %w", gzErr)
		}
		// Streamed: only the entries' kept bytes are ever held.
		inflated := &io.LimitedReader{R: zr, N: maxInflatedBytes}
		err = unpackTar(inflated, add)
		if err != nil && inflated.N <= 0 {
			err = fmt.Errorf("inflates to more than %d MiB", maxInflatedBytes>>20)
		}
	case len(data) > 262 && string(data[257:262]) == "ustar":
		err = unpackTar(bytes.NewReader(data), add)
	default:
		return nil, errors.New("expected a zip, tar or tar.gz archive")
	}
	if err != nil {
		return nil, err
	}
	return files, nil
}

func unpackZip(data []byte, add func(string, io.Reader) error) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("zip: %w", err)
	}
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("zip entry %s: %w", f.Name, err)
		}
		err = add(f.Name, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func unpackTar(r io.Reader, add func(string, io.Reader) error) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("tar: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := add(h.Name, tr); err != nil {
			return err
		}
	}
}
