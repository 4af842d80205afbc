package adapter

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
)

func zipOf(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range files {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	w.Close()
	return buf.Bytes()
}

func tarOf(t *testing.T, files map[string]string, compress bool) []byte {
	var buf bytes.Buffer
	var tw *tar.Writer
	var gz *gzip.Writer
	if compress {
		gz = gzip.NewWriter(&buf)
		tw = tar.NewWriter(gz)
	} else {
		tw = tar.NewWriter(&buf)
	}
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	if gz != nil {
		gz.Close()
	}
	return buf.Bytes()
}

func TestUnpackArchive(t *testing.T) {
	files := map[string]string{"a.txt": "hello\n", "dir/b.bin": "\xff\x00\x01"}
	for name, data := range map[string][]byte{
		"zip": zipOf(t, files), "tar": tarOf(t, files, false), "tar.gz": tarOf(t, files, true),
	} {
		got, err := unpackArchive(data, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got["a.txt"] != "hello\n" || !bytes.Equal(got["dir/b.bin"].([]byte), []byte("\xff\x00\x01")) || len(got) != 2 {
			t.Errorf("%s: %#v", name, got)
		}
	}
	// Each file is capped.
	got, err := unpackArchive(zipOf(t, map[string]string{"big": strings.Repeat("x", 100)}), 10)
	if err != nil || got["big"] != strings.Repeat("x", 10) {
		t.Errorf("cap: %#v %v", got, err)
	}
}

func TestUnpackArchiveRefusesBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		data []byte
		msg  string
	}{
		"escape":  {zipOf(t, map[string]string{"../evil": "x"}), `entry "../evil" escapes the archive`},
		"abs":     {tarOf(t, map[string]string{"/etc/x": "x"}, false), `entry "/etc/x" escapes the archive`},
		"text":    {[]byte("just text"), "expected a zip, tar or tar.gz archive"},
		"bad gz":  {[]byte{0x1f, 0x8b, 0, 0}, "gzip"},
		"bad zip": {[]byte("PK\x03\x04garbage"), "zip"},
	} {
		_, err := unpackArchive(tc.data, 1<<20)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %q", name, err, tc.msg)
		}
	}
}

// A hostile archive is bounded like a case's tracked files: so many bytes
// kept in all, and a gzip stream inflated only so far, however little it
// weighs compressed.
func TestUnpackArchiveLimits(t *testing.T) {
	zeros := strings.Repeat("\x00", 8<<20)
	big := map[string]string{}
	for i := 0; i <= maxArchiveBytes/len(zeros); i++ {
		big[fmt.Sprintf("f%02d.bin", i)] = zeros
	}
	data := tarOf(t, big, false)
	if _, err := unpackArchive(data, 8<<20); err == nil || !strings.Contains(err.Error(), "more than 128 MiB of files (after 16 entries)") {
		t.Errorf("total: %v", err)
	}
	// Each entry cut to 1 KiB, the same archive fits.
	if got, err := unpackArchive(data, 1<<10); err != nil || len(got) != len(big) {
		t.Errorf("cut entries: %d files, %v", len(got), err)
	}

	defer func(n int64) { maxInflatedBytes = n }(maxInflatedBytes)
	maxInflatedBytes = 1 << 20
	bomb := tarOf(t, map[string]string{"bomb.bin": strings.Repeat("\x00", 4<<20)}, true)
	if _, err := unpackArchive(bomb, 1<<10); err == nil || err.Error() != "inflates to more than 1 MiB" {
		t.Errorf("bomb: %v", err)
	}
}
