package callcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

func key(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPutGet(t *testing.T) {
	s := open(t)
	k := key("a")
	if _, ok := s.Get(k); ok {
		t.Fatal("hit in an empty store")
	}
	want := Entry{Output: []byte(`{"attributes":[]}`), Reads: []Read{{Path: "data/x.json", SHA256: key("x")}, {Path: "missing", Refused: true}}}
	if err := s.Put(k, want); err != nil {
		t.Fatal(err)
	}
	got, ok := s.Get(k)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := s.Get(key("b")); ok {
		t.Fatal("hit under another key")
	}
	// The entry is where the docs say: a shard named by the key's prefix.
	if _, err := os.Stat(filepath.Join(s.Dir(), k[:2], k)); err != nil {
		t.Fatal(err)
	}
	// An empty output is an output.
	if err := s.Put(key("empty"), Entry{}); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(key("empty")); !ok || len(got.Output) != 0 {
		t.Fatalf("empty output: %+v, %v", got, ok)
	}
}

func TestBadKeys(t *testing.T) {
	s := open(t)
	for _, k := range []string{"", "../../etc/passwd", "ABCDEF" + key("x")[6:], key("x")[:63]} {
		if err := s.Put(k, Entry{Output: []byte("{}")}); err == nil {
			t.Errorf("Put(%q) accepted", k)
		}
		if _, ok := s.Get(k); ok {
			t.Errorf("Get(%q) hit", k)
		}
	}
}

// TestCorruptEntriesMiss: whatever is in an entry's file, a Get answers
// the entry stored under that key or misses; a Put then replaces it.
func TestCorruptEntriesMiss(t *testing.T) {
	s := open(t)
	k, other := key("k"), key("other")
	good := Entry{Output: []byte(`{"attributes":[{"attribute":"output","is_correct":true}]}`), Reads: []Read{{Path: "a", SHA256: key("a")}}}
	if err := s.Put(other, Entry{Output: []byte(`{"attributes":[]}`)}); err != nil {
		t.Fatal(err)
	}
	otherBytes, _ := os.ReadFile(s.path(other))
	whole, err := encode(k, good)
	if err != nil {
		t.Fatal(err)
	}
	readsAt := len(magic) + 64 + 4 + 4 // the reads' count
	readAt := readsAt + 4              // the first read's kind
	withByte := func(data []byte, at int, b byte) []byte {
		data = bytes.Clone(data)
		data[at] = b
		return data
	}
	cases := map[string][]byte{
		"empty":               {},
		"garbage":             []byte("\x00\x01 not an entry at all"),
		"truncated output":    whole[:len(whole)-5],
		"truncated header":    whole[:len(magic)+10],
		"magic only":          []byte(magic),
		"output changed":      bytes.Replace(whole, []byte("true"), []byte("fals"), 1),
		"output grew":         append(bytes.Clone(whole), ' '),
		"another key's entry": otherBytes,
		"future format":       bytes.Replace(whole, []byte("cache 2"), []byte("cache 3"), 1),
		"first format":        append([]byte("wasmeval-call-cache 1\n{\"key\":\""+k+"\"}\n"), good.Output...),
		"unknown read kind":   withByte(whole, readAt, 2),
		"read path too long":  withByte(whole, readAt+4, 0x7f),
		"too many reads":      withByte(whole, readsAt+3, 0x7f),
		"output length wrong": withByte(whole, len(whole)-len(good.Output)-4, byte(len(good.Output)+1)),
		"checksum wrong":      withByte(whole, len(magic)+64, whole[len(magic)+64]^1),
		"validated changed":   withByte(whole, len(magic)+68, whole[len(magic)+68]^1),
		"key changed":         withByte(whole, len(magic), 'G'),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			os.MkdirAll(filepath.Dir(s.path(k)), 0o755)
			if err := os.WriteFile(s.path(k), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get(k); ok {
				t.Fatalf("hit on a corrupt entry: %+v", got)
			}
			if err := s.Put(k, good); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get(k); !ok || !reflect.DeepEqual(got, good) {
				t.Fatalf("after Put: %+v, %v", got, ok)
			}
		})
	}
	// A directory where the entry should be, or a file over the cap.
	os.Remove(s.path(k))
	os.Mkdir(s.path(k), 0o755)
	if _, ok := s.Get(k); ok {
		t.Fatal("hit on a directory")
	}
	os.Remove(s.path(k))
	f, _ := os.Create(s.path(k))
	f.Truncate(MaxEntryBytes + 1)
	f.Close()
	if _, ok := s.Get(k); ok {
		t.Fatal("hit on an oversized file")
	}
}

// TestConcurrentWriters: goroutines (and, through the file system, other
// processes) putting and getting the same keys never see a partial entry.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		s, err := Open(dir) // a store each, as separate processes have
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				k := key(fmt.Sprint(i % 20))
				want := Entry{Output: bytes.Repeat([]byte(fmt.Sprint(i%20)), 1000)}
				if err := s.Put(k, want); err != nil {
					t.Error(err)
					return
				}
				if got, ok := s.Get(k); ok && !bytes.Equal(got.Output, want.Output) {
					t.Errorf("key %d: read another entry's output", i%20)
					return
				} else if !ok {
					t.Errorf("key %d: miss right after a put", i%20)
					return
				}
			}
		}()
	}
	wg.Wait()
	// No temporary file is left behind.
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*", ".tmp-*"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

func TestClearedWhileOpen(t *testing.T) {
	s := open(t)
	if err := s.Put(key("a"), Entry{Output: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(s.Dir()); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(key("a"), Entry{Output: []byte("2")}); err != nil {
		t.Fatalf("Put after the directory was removed: %v", err)
	}
	if got, ok := s.Get(key("a")); !ok || string(got.Output) != "2" {
		t.Fatalf("got %q, %v", got.Output, ok)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv(EnvDir, "/some/where")
	if d, _ := DefaultDir(); d != "/some/where" {
		t.Fatalf("with %s set: %q", EnvDir, d)
	}
	t.Setenv(EnvDir, "off")
	if d, err := DefaultDir(); d != "" || err != nil {
		t.Fatalf("off: %q, %v", d, err)
	}
	t.Setenv(EnvDir, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if d, _ := DefaultDir(); d != "/xdg/wasmeval/verdicts" {
		t.Fatalf("default: %q", d)
	}
}

// BenchmarkGet reads entries of a typical verdict's size (about 600
// bytes of output) from a store of 10,000, as a warm rescore does.
func BenchmarkGet(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	const n = 10000
	keys := make([]string, n)
	out := bytes.Repeat([]byte("x"), 600)
	for i := range keys {
		keys[i] = key(fmt.Sprint(i))
		if err := s.Put(keys[i], Entry{Output: out}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := s.Get(keys[i%n]); !ok {
			b.Fatal("miss")
		}
	}
}

// TestLargeEntry: an entry larger than the first read is read whole.
func TestLargeEntry(t *testing.T) {
	s := open(t)
	want := Entry{Output: bytes.Repeat([]byte("0123456789"), 30000), Reads: []Read{{Path: "a", SHA256: key("a")}}}
	if err := s.Put(key("large"), want); err != nil {
		t.Fatal(err)
	}
	got, ok := s.Get(key("large"))
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("large entry: ok %v, %d bytes of output", ok, len(got.Output))
	}
}

// TestEntryFields: every field of an entry comes back as it was put, and
// a read's sha256 that is not one is refused when put.
func TestEntryFields(t *testing.T) {
	s := open(t)
	want := Entry{Output: []byte(`{"attributes":[]}`), Validated: 7,
		Reads: []Read{{Path: "a/b.txt", SHA256: key("a")}, {Path: "../escape", Refused: true}, {Path: "", SHA256: key("empty")}}}
	if err := s.Put(key("k"), want); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(key("k")); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v; want %+v", got, ok, want)
	}
	for _, bad := range []Read{{Path: "a", SHA256: "abc"}, {Path: "a", SHA256: key("a"), Refused: true}, {Path: "a"}} {
		if err := s.Put(key("bad"), Entry{Output: []byte("{}"), Reads: []Read{bad}}); err == nil {
			t.Errorf("Put with read %+v accepted", bad)
		}
	}
}
