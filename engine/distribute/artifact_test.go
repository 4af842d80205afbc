package distribute

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func tarOf(t *testing.T, entries ...*tar.Header) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range entries {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	tw.Close()
	return &b
}

func TestUnpackRefusesEntriesThatLeaveOrLink(t *testing.T) {
	for name, h := range map[string]*tar.Header{
		"dotdot":   {Typeflag: tar.TypeReg, Name: "../evil", Size: 1},
		"absolute": {Typeflag: tar.TypeReg, Name: "/etc/evil", Size: 1},
		"unclean":  {Typeflag: tar.TypeReg, Name: "a/../../evil", Size: 1},
		"symlink":  {Typeflag: tar.TypeSymlink, Name: "link", Linkname: "/etc"},
		"hardlink": {Typeflag: tar.TypeLink, Name: "link", Linkname: "../x"},
		"device":   {Typeflag: tar.TypeChar, Name: "dev"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			err := unpack(tarOf(t, h), dir)
			if err == nil || !strings.Contains(err.Error(), "entry") {
				t.Fatalf("unpack %q: err %v, want a refusal naming the entry", h.Name, err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil")); err == nil {
				t.Fatal("an entry escaped the directory")
			}
		})
	}
	t.Run("twice", func(t *testing.T) {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 1}
		if err := unpack(tarOf(t, h, h), t.TempDir()); err == nil {
			t.Fatal("an entry given twice was accepted")
		}
	})
	t.Run("too large", func(t *testing.T) {
		old := MaxArtifactBytes
		MaxArtifactBytes = 10
		defer func() { MaxArtifactBytes = old }()
		if err := unpack(tarOf(t, &tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 11}), t.TempDir()); err == nil || !strings.Contains(err.Error(), "more than 10 bytes") {
			t.Fatalf("err %v, want the size cap", err)
		}
	})
}

func TestPackRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	err := pack(dir, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "link: a distributed run ships regular files and directories only") {
		t.Fatalf("err %v, want the symlink named", err)
	}
}

// An object whose bytes are not the digest it is stored under is refused.
func TestFetchRefusesDigestMismatch(t *testing.T) {
	e := embedded(t)
	ctx := context.Background()
	_, js := connect(ctx, t, e.URL(), "test")
	store, err := ensureStreams(ctx, js, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "config.yaml"), []byte("name: x\n"), 0o644)
	digest, _, err := Publish(ctx, store, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Fetch(ctx, store, digest, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(got, "config.yaml")); string(b) != "name: x\n" {
		t.Fatalf("fetched config.yaml: %q", b)
	}
	forged := strings.Repeat("ab", 32)
	if _, err := store.PutBytes(ctx, forged, tarOf(t, &tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 1}).Bytes()); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	_, err = Fetch(ctx, store, forged, cache)
	var de *DigestError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "artifact digest mismatch: the job names sha256:"+forged) {
		t.Fatalf("err %v, want a digest mismatch", err)
	}
	if _, err := os.Stat(filepath.Join(cache, forged)); err == nil {
		t.Fatal("the mismatching artifact was unpacked into the cache")
	}
	_ = jetstream.ErrObjectNotFound
}

// An object already stored under an artifact's digest whose bytes are not
// the artifact's (tampered with, cut short) is replaced by the next
// publish, which says so; one that holds the right bytes is kept.
func TestPublishReplacesATamperedObject(t *testing.T) {
	e := embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, js := connect(ctx, t, e.URL(), "test")
	store, err := ensureStreams(ctx, js, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "config.yaml"), []byte("name: x\n"), 0o644)
	var tarball bytes.Buffer
	if err := pack(src, &tarball); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tarball.Bytes())
	digest := hex.EncodeToString(sum[:])
	// Cut short: the first half of the right tar, under its name.
	if _, err := store.PutBytes(ctx, digest, tarball.Bytes()[:tarball.Len()/2]); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(ctx, store, digest, t.TempDir()); !errors.As(err, new(*DigestError)) {
		t.Fatalf("fetch of the cut object: err %v, want a digest mismatch", err)
	}
	got, rep, err := Publish(ctx, store, src)
	if err != nil {
		t.Fatal(err)
	}
	if got != digest {
		t.Fatalf("published as %s, want %s", got, digest)
	}
	half := sha256.Sum256(tarball.Bytes()[:tarball.Len()/2])
	if rep == nil || rep.Digest != digest || rep.Found != hex.EncodeToString(half[:]) ||
		!strings.Contains(rep.String(), "holds "+strconv.Itoa(tarball.Len()/2)+" bytes whose sha256 is "+rep.Found) {
		t.Fatalf("replaced %v, want a note naming the object and the digest of the bytes it held", rep)
	}
	dir, err := Fetch(ctx, store, digest, t.TempDir())
	if err != nil {
		t.Fatalf("fetch after the replacement: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "config.yaml")); string(b) != "name: x\n" {
		t.Fatalf("fetched config.yaml: %q", b)
	}
	if _, rep, err := Publish(ctx, store, src); err != nil || rep != nil {
		t.Fatalf("publish again: replaced %v, err %v; want the right object kept", rep, err)
	}

	// A file artifact (a plugin) tampered with.
	file := filepath.Join(t.TempDir(), "p.wasm")
	os.WriteFile(file, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	fsum := sha256.Sum256([]byte("\x00asm\x01\x00\x00\x00"))
	fdigest := hex.EncodeToString(fsum[:])
	if _, err := store.PutBytes(ctx, fdigest, []byte("not the plugin")); err != nil {
		t.Fatal(err)
	}
	if _, rep, err := PublishFile(ctx, store, file, fdigest); err != nil || rep == nil || !strings.Contains(rep.String(), "sha256:"+fdigest) {
		t.Fatalf("publish the file: replaced %v, err %v; want the tampered object replaced", rep, err)
	}
	if _, err := FetchFile(ctx, store, fdigest, t.TempDir()); err != nil {
		t.Fatalf("fetch the file after the replacement: %v", err)
	}
}
