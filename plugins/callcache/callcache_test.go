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
	"time"
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
	// The entry is where the docs say: a record of the store's log, a
	// pack once flushed, which the next process reads.
	if logs, _ := filepath.Glob(filepath.Join(s.Dir(), packDir, "*.log")); len(logs) != 1 {
		t.Fatalf("logs after a put: %v", logs)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, ok := reopen(t, s).Get(k); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("the next process's Get = %+v, %v", got, ok)
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

// writeRecords writes a pack holding the records given (key, entry
// bytes) as the next process reads it.
func writeRecords(t *testing.T, dir string, recs ...[2]string) {
	t.Helper()
	buf := []byte(packMagic)
	for _, r := range recs {
		buf = appendRecord(buf, r[0], []byte(r[1]))
	}
	if err := os.MkdirAll(filepath.Join(dir, packDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, packDir, newName(time.Now(), ".pack")), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptEntriesMiss: whatever a pack holds under a key, a Get
// answers the entry stored under that key or misses; a Put then writes a
// good entry, which this process and the next find.
func TestCorruptEntriesMiss(t *testing.T) {
	k, other := key("k"), key("other")
	good := Entry{Output: []byte(`{"attributes":[{"attribute":"output","is_correct":true}]}`), Reads: []Read{{Path: "a", SHA256: key("a")}}}
	otherBytes, err := encode(other, Entry{Output: []byte(`{"attributes":[]}`)})
	if err != nil {
		t.Fatal(err)
	}
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
			dir := t.TempDir()
			writeRecords(t, dir, [2]string{k, string(data)})
			s, err := Open(dir)
			if err != nil {
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
			if got, ok := reopen(t, s).Get(k); !ok || !reflect.DeepEqual(got, good) {
				t.Fatalf("the next process, before a flush: %+v, %v", got, ok)
			}
		})
	}
	// A pack over the cap is not read.
	dir := t.TempDir()
	writeRecords(t, dir, [2]string{k, string(whole)})
	packs, _ := filepath.Glob(filepath.Join(dir, packDir, "*.pack"))
	if len(packs) != 1 || os.Truncate(packs[0], maxPackBytes+1) != nil {
		t.Fatalf("packs %v", packs)
	}
	if s, err := Open(dir); err != nil {
		t.Fatal(err)
	} else if _, ok := s.Get(k); ok {
		t.Fatal("hit from a pack over the cap")
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
	// The next process finds every key, with one of the outputs put.
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if got, ok := s.Get(key(fmt.Sprint(i))); !ok || !bytes.Equal(got.Output, bytes.Repeat([]byte(fmt.Sprint(i)), 1000)) {
			t.Fatalf("key %d in the next process: %v", i, ok)
		}
	}
}

// TestClearedWhileOpen: the cache directory removed while a store writes
// to it (the cache cleared by hand): the store goes on, and its flush
// leaves what it wrote for the next process.
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
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, ok := reopen(t, s).Get(key("a")); !ok || string(got.Output) != "2" {
		t.Fatalf("the next process: %q, %v", got.Output, ok)
	}
	if tmp, _ := filepath.Glob(filepath.Join(s.Dir(), packDir, ".tmp-*")); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
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
// bytes of output) from a store of 10,000 that wrote them.
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

// TestLargeEntry: a large entry comes back whole, in this process and the
// next; one over MaxEntryBytes is not kept.
func TestLargeEntry(t *testing.T) {
	s := open(t)
	want := Entry{Output: bytes.Repeat([]byte("0123456789"), 300000), Reads: []Read{{Path: "a", SHA256: key("a")}}}
	if err := s.Put(key("large"), want); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(key("too large"), Entry{Output: make([]byte, MaxEntryBytes)}); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Store{s, reopen(t, s)} {
		got, ok := st.Get(key("large"))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("large entry: ok %v, %d bytes of output", ok, len(got.Output))
		}
		if _, ok := st.Get(key("too large")); ok {
			t.Fatal("an entry over MaxEntryBytes was kept")
		}
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
