package callcache

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// reopen opens s's directory again, as the next run's process does.
func reopen(t *testing.T, s *Store) *Store {
	t.Helper()
	s2, err := Open(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return s2
}

func packs(t *testing.T, s *Store) []string {
	t.Helper()
	names := s.packNames()
	for i, n := range names {
		names[i] = filepath.Join(s.Dir(), packDir, n)
	}
	return names
}

// removeFiles removes every entry's own file, leaving the packs, so a hit
// can only come from a pack.
func removeFiles(t *testing.T, s *Store, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if err := os.Remove(s.path(k)); err != nil {
			t.Fatal(err)
		}
	}
}

func entryOf(i int) Entry {
	return Entry{Output: []byte(fmt.Sprintf(`{"attributes":[{"name":"n","value":%d}]}`, i)), Reads: []Read{{Path: "data/" + strconv.Itoa(i), SHA256: key(strconv.Itoa(i))}}}
}

func TestPackAnswersTheNextRun(t *testing.T) {
	s := open(t)
	var keys []string
	for i := 0; i < 10; i++ {
		keys = append(keys, key(strconv.Itoa(i)))
		if err := s.Put(keys[i], entryOf(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := packs(t, s); len(got) != 1 {
		t.Fatalf("packs after a flush: %v", got)
	}
	// Nothing new since: a second flush writes no pack.
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := packs(t, s); len(got) != 1 {
		t.Fatalf("packs after an empty flush: %v", got)
	}
	removeFiles(t, s, keys...)
	s2 := reopen(t, s)
	for i, k := range keys {
		got, ok := s2.Get(k)
		if !ok || !reflect.DeepEqual(got, entryOf(i)) {
			t.Fatalf("entry %d from the pack: %+v, %v", i, got, ok)
		}
	}
	// Hits from a pack are not packed again.
	if err := s2.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := packs(t, s2); len(got) != 1 {
		t.Fatalf("packs after a warm run: %v", got)
	}
}

func TestEntriesFoundInFilesArePacked(t *testing.T) {
	s := open(t)
	k := key("a")
	if err := s.Put(k, entryOf(1)); err != nil {
		t.Fatal(err)
	}
	// A run that did not flush (killed): the next one finds the entry in
	// its file and packs it.
	s2 := reopen(t, s)
	if _, ok := s2.Get(k); !ok {
		t.Fatal("miss")
	}
	if err := s2.Flush(); err != nil {
		t.Fatal(err)
	}
	removeFiles(t, s, k)
	if got, ok := reopen(t, s).Get(k); !ok || !reflect.DeepEqual(got, entryOf(1)) {
		t.Fatalf("from the pack: %+v, %v", got, ok)
	}
}

// packOf writes entries 0..n-1 and flushes them into one pack, returning
// the keys and the pack's path; the entries' own files are removed.
func packOf(t *testing.T, s *Store, n int) ([]string, string) {
	t.Helper()
	var keys []string
	for i := 0; i < n; i++ {
		keys = append(keys, key(strconv.Itoa(i)))
		if err := s.Put(keys[i], entryOf(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	removeFiles(t, s, keys...)
	p := packs(t, s)
	if len(p) != 1 {
		t.Fatalf("packs: %v", p)
	}
	return keys, p[0]
}

func TestBadPacksMiss(t *testing.T) {
	cases := map[string]func(data []byte) []byte{
		"garbage":     func([]byte) []byte { return []byte("not a pack at all\n\x00\xff") },
		"empty":       func([]byte) []byte { return nil },
		"only magic":  func([]byte) []byte { return []byte(packMagic) },
		"bad length":  func(d []byte) []byte { return bytes.Replace(d, []byte(" "), []byte(" 99999999"), 1) },
		"negative":    func(d []byte) []byte { return bytes.Replace(d, []byte(" "), []byte(" -"), 1) },
		"plus sign":   func(d []byte) []byte { return bytes.Replace(d, []byte(" "), []byte(" +"), 1) },
		"no length":   func(d []byte) []byte { return bytes.Replace(d, []byte(" "), []byte(" \n"), 1) },
		"long length": func(d []byte) []byte { return bytes.Replace(d, []byte(" "), []byte(" 0000000000"), 1) },
		"short key":   func(d []byte) []byte { return append([]byte(packMagic), d[len(packMagic)+1:]...) },
		"upper key": func(d []byte) []byte {
			return append([]byte(packMagic), append(bytes.ToUpper(d[len(packMagic):len(packMagic)+64]), d[len(packMagic)+64:]...)...)
		},
		"other magic": func(d []byte) []byte { return append([]byte("wasmeval-call-cache-pack 2\n"), d[len(packMagic):]...) },
	}
	for name, mangle := range cases {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			keys, p := packOf(t, s, 3)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, mangle(data), 0o644); err != nil {
				t.Fatal(err)
			}
			s2 := reopen(t, s)
			for _, k := range keys {
				if e, ok := s2.Get(k); ok {
					t.Fatalf("hit from a bad pack: %+v", e)
				}
			}
		})
	}
}

func TestTornPackKeepsWholeRecords(t *testing.T) {
	s := open(t)
	keys, p := packOf(t, s, 3)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the last record: the first two are whole.
	for cut := len(data) - 1; cut > len(data)-40; cut-- {
		if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s2 := reopen(t, s)
		hits := 0
		for i, k := range keys {
			if e, ok := s2.Get(k); ok {
				hits++
				if !reflect.DeepEqual(e, entryOf(i)) {
					t.Fatalf("cut at %d: entry %d is %+v", cut, i, e)
				}
			}
		}
		if hits != 2 {
			t.Fatalf("cut at %d of %d: %d hits, want the 2 whole records", cut, len(data), hits)
		}
	}
}

func TestChangedPackEntryMisses(t *testing.T) {
	s := open(t)
	keys, p := packOf(t, s, 3)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Change one output byte (same length, so the framing holds): the
	// entry's output sha256 no longer matches.
	i := bytes.Index(data, []byte(`"value":1}`))
	if i < 0 {
		t.Fatal("entry 1 not in the pack")
	}
	data[i+len(`"value":`)] = '7'
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := reopen(t, s)
	if e, ok := s2.Get(keys[1]); ok {
		t.Fatalf("hit from a changed pack entry: %s", e.Output)
	}
	for _, j := range []int{0, 2} {
		if e, ok := s2.Get(keys[j]); !ok || !reflect.DeepEqual(e, entryOf(j)) {
			t.Fatalf("entry %d: %+v, %v", j, e, ok)
		}
	}
	// A whole entry of another key, framed under this one, is a miss.
	moved, err := encode(keys[0], entryOf(0))
	if err != nil {
		t.Fatal(err)
	}
	forged := append([]byte(packMagic+keys[2]+" "+strconv.Itoa(len(moved))+"\n"), moved...)
	if err := os.WriteFile(p, append(forged, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, ok := reopen(t, s).Get(keys[2]); ok {
		t.Fatalf("hit from another key's entry: %s", e.Output)
	}
}

func TestStalePackEntryFallsBackToFile(t *testing.T) {
	s := open(t)
	k := key("a")
	if err := s.Put(k, entryOf(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// The call was made again (its file changed) and its entry replaced.
	if err := reopen(t, s).Put(k, entryOf(2)); err != nil {
		t.Fatal(err)
	}
	s2 := reopen(t, s)
	var offered []Entry
	ok := s2.Find(k, func(e Entry) bool {
		offered = append(offered, e)
		return reflect.DeepEqual(e, entryOf(2)) // the host refuses the stale reads
	})
	if !ok || len(offered) != 2 || !reflect.DeepEqual(offered[0], entryOf(1)) {
		t.Fatalf("Find = %v, offered %+v; want the pack's entry, then the file's", ok, offered)
	}
	// And the file's entry is packed, newer than the stale one.
	if err := s2.Flush(); err != nil {
		t.Fatal(err)
	}
	removeFiles(t, s, k)
	if e, ok := reopen(t, s).Get(k); !ok || !reflect.DeepEqual(e, entryOf(2)) {
		t.Fatalf("after the flush: %+v, %v", e, ok)
	}
	// In one process, a Put replaces what the packs hold.
	s3 := reopen(t, s)
	if _, ok := s3.Get(k); !ok {
		t.Fatal("miss")
	}
	if err := s3.Put(k, entryOf(3)); err != nil {
		t.Fatal(err)
	}
	if e, ok := s3.Get(k); !ok || !reflect.DeepEqual(e, entryOf(3)) {
		t.Fatalf("after Put: %+v, %v", e, ok)
	}
}

func TestOldPacksAreRemoved(t *testing.T) {
	s := open(t)
	for i := 0; i < maxPacks+3; i++ {
		if err := s.Put(key(strconv.Itoa(i)), entryOf(i)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if got := packs(t, s); len(got) != maxPacks {
		t.Fatalf("%d packs, want %d", len(got), maxPacks)
	}
	// The removed packs' entries are in their own files.
	s2 := reopen(t, s)
	for i := 0; i < maxPacks+3; i++ {
		if _, ok := s2.Get(key(strconv.Itoa(i))); !ok {
			t.Fatalf("entry %d lost", i)
		}
	}
}

// TestPackWritersInTwoProcesses runs two processes that each write their
// own entries and flush packs at the same time into one directory; every
// entry is then found in a pack, whole.
func TestPackWritersInTwoProcesses(t *testing.T) {
	if dir := os.Getenv("CALLCACHE_PACK_WRITER"); dir != "" {
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := strconv.Atoi(os.Getenv("CALLCACHE_PACK_BASE"))
		for round := 0; round < 5; round++ {
			for i := 0; i < 40; i++ {
				n := base + round*40 + i
				if err := s.Put(key(strconv.Itoa(n)), entryOf(n)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	s := open(t)
	var cmds []*exec.Cmd
	for _, base := range []int{0, 1000} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPackWritersInTwoProcesses$")
		cmd.Env = append(os.Environ(), "CALLCACHE_PACK_WRITER="+s.Dir(), "CALLCACHE_PACK_BASE="+strconv.Itoa(base))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("writer %d:\n%s", base, out.String())
			}
		})
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	// 10 flushes in all, maxPacks kept: the newest packs are whole.
	got := packs(t, s)
	if len(got) != maxPacks {
		t.Fatalf("%d packs, want %d", len(got), maxPacks)
	}
	index := make(map[string][]byte)
	for _, p := range got {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n := len(index)
		parsePack(data, index)
		if len(index)-n != 40 {
			t.Fatalf("%s: %d records, want 40", p, len(index)-n)
		}
	}
	for k, data := range index {
		if _, ok := decode(k, data); !ok {
			t.Fatalf("pack entry %s does not decode", k)
		}
	}
	// Every entry, packed or not, is found whole.
	s2 := reopen(t, s)
	for _, base := range []int{0, 1000} {
		for n := base; n < base+200; n++ {
			if e, ok := s2.Get(key(strconv.Itoa(n))); !ok || !reflect.DeepEqual(e, entryOf(n)) {
				t.Fatalf("entry %d: %+v, %v", n, e, ok)
			}
		}
	}
}

// BenchmarkGetPacked is BenchmarkGet's lookups after a flush, in a store
// opened again: each from the pack, read once (which the first lookup
// pays, as a run's does).
func BenchmarkGetPacked(b *testing.B) {
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
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%n == 0 {
			b.StopTimer()
			if s, err = Open(s.Dir()); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if _, ok := s.Get(keys[i%n]); !ok {
			b.Fatal("miss")
		}
	}
}
