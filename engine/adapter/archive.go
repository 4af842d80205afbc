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
)

// maxArchiveEntries bounds the files taken from one response archive, so a
// hostile archive cannot exhaust memory through its entry count.
const maxArchiveEntries = 10000

// maxArchiveBytes bounds a gzip-compressed archive once inflated.
const maxArchiveBytes = 1 << 30

// unpackArchive reads a zip, tar or gzip-compressed tar held in memory into
// path → content (text when UTF-8, bytes otherwise), each file capped at
// max bytes. Absolute paths and paths that climb out with .. are refused.
func unpackArchive(data []byte, max int64) (map[string]any, error) {
	files := map[string]any{}
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
		inner, rdErr := io.ReadAll(io.LimitReader(zr, maxArchiveBytes))
		if rdErr != nil {
			return nil, fmt.Errorf("gzip: %w", rdErr)
		}
		err = unpackTar(inner, add)
	case len(data) > 262 && string(data[257:262]) == "ustar":
		err = unpackTar(data, add)
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

func unpackTar(data []byte, add func(string, io.Reader) error) error {
	tr := tar.NewReader(bytes.NewReader(data))
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
