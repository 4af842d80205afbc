package report_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
)

// Artifact paths come from records anyone may have edited: none leads a
// report out of the run directory's artifacts, through "..", an absolute
// path or a symlink, and nothing but a regular file is opened.
func TestArtifactsStayInTheRunDirectory(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.png")
	os.WriteFile(outside, append([]byte("\x89PNG\r\n\x1a\n"), "root:x:0:0"...), 0o644)
	reporttest.WriteFile(t, dir, "manifest.json", []byte("{}"))
	reporttest.WriteFile(t, dir, "artifacts/c/g/ok.log", []byte("fine\n"))
	os.Symlink(outside, filepath.Join(dir, "artifacts/c/g/link.png"))
	os.Symlink(filepath.Dir(outside), filepath.Join(dir, "artifacts/c/g/out"))
	os.Symlink("ok.log", filepath.Join(dir, "artifacts/c/g/inside.log"))
	if err := syscall.Mkfifo(filepath.Join(dir, "artifacts/c/g/fifo.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, why := range map[string]string{
		"../../etc/passwd":                "not a path under",
		"/etc/passwd":                     "not a path under",
		"artifacts/../../etc/passwd":      "not a path under",
		"artifacts/c/../../manifest.json": "not a path under",
		"manifest.json":                   "not a path under",
		"":                                "not a path under",
		"artifacts/c/g/link.png":          "not a regular file (a symlink)",
		"artifacts/c/g/inside.log":        "not a regular file (a symlink)",
		"artifacts/c/g/out/secret.png":    "",
		"artifacts/c/g/fifo.log":          "not a regular file (a FIFO)",
		"artifacts/c/g":                   "not a regular file (a directory)",
		"artifacts/c/g/missing.log":       "no such file",
	} {
		f, _, err := report.OpenArtifact(dir, rel)
		if err == nil {
			f.Close()
			t.Errorf("%q opened", rel)
			continue
		}
		if !errors.Is(err, report.ErrArtifact) || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v (want %q)", rel, err, why)
		}
		if strings.Contains(err.Error(), "root:x") {
			t.Errorf("%q: the error quotes the file outside: %v", rel, err)
		}
	}
	f, size, err := report.OpenArtifact(dir, "artifacts/c/g/ok.log")
	if err != nil || size != 5 {
		t.Fatalf("a regular artifact: %v, size %d", err, size)
	}
	f.Close()
}

// A screenshot is shown only when it is a PNG or JPEG, and read whole only
// when it is small enough to embed.
func TestReadImage(t *testing.T) {
	dir := t.TempDir()
	png := reporttest.PNG(t, 40, 30)
	reporttest.WriteFile(t, dir, "artifacts/c/g/a.png", png)
	reporttest.WriteFile(t, dir, "artifacts/c/g/b.jpg", []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10})
	reporttest.WriteFile(t, dir, "artifacts/c/g/passwd.png", []byte("root:x:0:0:root:/root:/bin/bash\n"))
	reporttest.WriteFile(t, dir, "artifacts/c/g/tiny.png", []byte("\x89P"))
	// A huge image: a PNG signature, then 200 MB of nothing (sparse).
	huge := filepath.Join(dir, "artifacts/c/g/huge.png")
	reporttest.WriteFile(t, dir, "artifacts/c/g/huge.png", png[:8])
	if err := os.Truncate(huge, 200<<20); err != nil {
		t.Fatal(err)
	}
	img, err := report.ReadImage(dir, "artifacts/c/g/a.png", 1<<20)
	if err != nil || img.Type != "image/png" || string(img.Data) != string(png) || img.Rel != "artifacts/c/g/a.png" {
		t.Errorf("a PNG: %v %+v", err, img.Type)
	}
	if img, err := report.ReadImage(dir, "artifacts/c/g/b.jpg", 1<<20); err != nil || img.Type != "image/jpeg" {
		t.Errorf("a JPEG: %v %+v", err, img)
	}
	if img, err := report.ReadImage(dir, "artifacts/c/g/huge.png", 2<<20); err != nil || img.Data != nil || img.Size != 200<<20 {
		t.Errorf("a huge PNG: %v, %d bytes read, size %d", err, len(img.Data), img.Size)
	}
	for _, rel := range []string{"artifacts/c/g/passwd.png", "artifacts/c/g/tiny.png"} {
		if _, err := report.ReadImage(dir, rel, 1<<20); err == nil || !strings.Contains(err.Error(), "not a PNG or JPEG image") {
			t.Errorf("%s: %v", rel, err)
		}
	}
}

// A log's tail costs a report its cap whatever the log's size; text that
// is not text is refused, and control characters are replaced.
func TestReadLogTail(t *testing.T) {
	dir := t.TempDir()
	// 50 MB: sparse zeros, then lines at the end.
	big := filepath.Join(dir, "artifacts/c/g/big.log")
	reporttest.WriteFile(t, dir, "artifacts/c/g/big.log", nil)
	if err := os.Truncate(big, 50<<20); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(big, os.O_WRONLY|os.O_APPEND, 0)
	for i := range 1000 {
		f.WriteString(strings.Repeat("x", i%50) + " line\n")
	}
	f.WriteString("last line " + reporttest.Hostile + "\r\n")
	f.Close()
	tail, err := report.ReadLogTail(dir, "artifacts/c/g/big.log", 40, 8<<10)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(tail.Text, "\n")
	if !tail.Cut || tail.Lines != 40 || len(lines) != 40 || tail.Size < 50<<20 {
		t.Errorf("tail of a 50 MB log: %d lines, cut %v, size %d", tail.Lines, tail.Cut, tail.Size)
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "</pre><script>window.__pwned = 1</script> ]]> <![CDATA[") || strings.ContainsAny(last, "\x1b\x07\r") ||
		!strings.Contains(last, "\uFFFD[31mred\uFFFD") {
		t.Errorf("last line: %q", last)
	}
	reporttest.WriteFile(t, dir, "artifacts/c/g/bin.log", []byte("ELF\x00\x01\x02binary"))
	if _, err := report.ReadLogTail(dir, "artifacts/c/g/bin.log", 40, 8<<10); err == nil || !strings.Contains(err.Error(), "is not text") {
		t.Errorf("a binary log: %v", err)
	}
	latin := make([]byte, 4096)
	for i := range latin {
		latin[i] = 0xE9 // é in Latin-1: not UTF-8
	}
	reporttest.WriteFile(t, dir, "artifacts/c/g/latin.log", latin)
	if _, err := report.ReadLogTail(dir, "artifacts/c/g/latin.log", 40, 8<<10); err == nil {
		t.Error("a log that is not UTF-8 was shown")
	}
	reporttest.WriteFile(t, dir, "artifacts/c/g/empty.log", nil)
	if tail, err := report.ReadLogTail(dir, "artifacts/c/g/empty.log", 40, 8<<10); err != nil || tail.Text != "" || tail.Lines != 0 {
		t.Errorf("an empty log: %v %+v", err, tail)
	}
}
