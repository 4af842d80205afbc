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
	"time"
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
	names := s.packNames(false)
	for i, n := range names {
		names[i] = filepath.Join(s.Dir(), packDir, n)
	}
	return names
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
	s2 := reopen(t, s)
	for i, k := range keys {
		got, ok := s2.Get(k)
		if !ok || !reflect.DeepEqual(got, entryOf(i)) {
			t.Fatalf("entry %d from the pack: %+v, %v", i, got, ok)
		}
	}
	// Hits from a pack are not written again.
	if err := s2.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := packs(t, s2); len(got) != 1 {
		t.Fatalf("packs after a warm run: %v", got)
	}
}

// TestUnflushedLogIsRead: a run killed before its flush leaves its log,
// which every later process reads as it is, and a flush merges once it
// has gone unwritten for staleLog.
func TestUnflushedLogIsRead(t *testing.T) {
	s := open(t)
	k := key("a")
	if err := s.Put(k, entryOf(1)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if got, ok := reopen(t, s).Get(k); !ok || !reflect.DeepEqual(got, entryOf(1)) {
			t.Fatalf("process %d: %+v, %v", i, got, ok)
		}
	}
	saved := staleLog
	staleLog = 0
	t.Cleanup(func() { staleLog = saved })
	// Flushes of other processes: the stale log is merged with their
	// packs once there are more than maxPacks.
	for i := 0; i < maxPacks+1; i++ {
		s2 := reopen(t, s)
		putFlushed(t, s2, key(strconv.Itoa(i)), entryOf(i))
	}
	if logs, _ := filepath.Glob(filepath.Join(s.Dir(), packDir, "*.log")); len(logs) != 0 {
		t.Fatalf("the stale log was not merged: %v", logs)
	}
	if got, ok := reopen(t, s).Get(k); !ok || !reflect.DeepEqual(got, entryOf(1)) {
		t.Fatalf("after the merge: %+v, %v", got, ok)
	}
}

// TestFailedWriteStartsANewLog: a write that fails (as on a full disk)
// drops the log, whose last record may be torn; the next Put starts
// another, and the next process finds every entry written whole.
func TestFailedWriteStartsANewLog(t *testing.T) {
	s := open(t)
	if err := s.Put(key("0"), entryOf(0)); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.log.Close() // the next write fails
	s.mu.Unlock()
	if err := s.Put(key("1"), entryOf(1)); err == nil {
		t.Fatal("a failed write was not reported")
	}
	if err := s.Put(key("2"), entryOf(2)); err != nil {
		t.Fatal(err)
	}
	if logs, _ := filepath.Glob(filepath.Join(s.Dir(), packDir, "*.log")); len(logs) != 2 {
		t.Fatalf("logs: %v, want the dropped one and a new one", logs)
	}
	s2 := reopen(t, s)
	for _, i := range []int{0, 2} {
		if got, ok := s2.Get(key(strconv.Itoa(i))); !ok || !reflect.DeepEqual(got, entryOf(i)) {
			t.Fatalf("entry %d: %+v, %v", i, got, ok)
		}
	}
	if _, ok := s2.Get(key("1")); ok {
		t.Fatal("the entry whose write failed was found")
	}
}

// packOf writes entries 0..n-1 and flushes them into one pack, returning
// the keys and the pack's path.
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

// TestRecordUnderABadKey: a record framed under a key no lookup names
// (upper-case hex) answers nothing, and the records after it are read.
func TestRecordUnderABadKey(t *testing.T) {
	s := open(t)
	keys, p := packOf(t, s, 3)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	at := len(packMagic)
	copy(data[at:at+64], bytes.ToUpper(data[at:at+64]))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := reopen(t, s)
	if _, ok := s2.Get(keys[0]); ok {
		t.Fatal("hit for the key whose record was renamed")
	}
	for i := 1; i < 3; i++ {
		if e, ok := s2.Get(keys[i]); !ok || !reflect.DeepEqual(e, entryOf(i)) {
			t.Fatalf("entry %d after the bad record: %+v, %v", i, e, ok)
		}
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

// TestOlderEntryAnswersWhenNewerIsRefused: Find offers a key's entries
// newest first, so when the host refuses the newest (the files it read
// changed back since), an older one can still answer.
func TestOlderEntryAnswersWhenNewerIsRefused(t *testing.T) {
	s := open(t)
	k := key("a")
	putFlushed(t, s, k, entryOf(1))
	// The call was made again by a later run (its files changed), which
	// was killed before its flush: its log holds the newer entry.
	if err := reopen(t, s).Put(k, entryOf(2)); err != nil {
		t.Fatal(err)
	}
	s2 := reopen(t, s)
	var offered []Entry
	ok := s2.Find(k, func(e Entry) bool {
		offered = append(offered, e)
		return reflect.DeepEqual(e, entryOf(1)) // the host refuses the newer reads
	})
	if !ok || len(offered) != 2 || !reflect.DeepEqual(offered[0], entryOf(2)) {
		t.Fatalf("Find = %v, offered %+v; want the log's entry, then the pack's", ok, offered)
	}
	// In one process, a Put is found before what the packs hold.
	if err := s2.Put(k, entryOf(3)); err != nil {
		t.Fatal(err)
	}
	if e, ok := s2.Get(k); !ok || !reflect.DeepEqual(e, entryOf(3)) {
		t.Fatalf("after Put: %+v, %v", e, ok)
	}
}

// TestOldPacksAreMerged: past maxPacks, a flush merges the oldest packs
// into one, and every entry is still found.
func TestOldPacksAreMerged(t *testing.T) {
	s := open(t)
	const runs = 3*maxPacks + 1
	for i := 0; i < runs; i++ {
		if err := s.Put(key(strconv.Itoa(i)), entryOf(i)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := packs(t, s); len(got) > maxPacks {
			t.Fatalf("after flush %d: %d packs, want at most %d", i, len(got), maxPacks)
		}
	}
	s2 := reopen(t, s)
	for i := 0; i < runs; i++ {
		if e, ok := s2.Get(key(strconv.Itoa(i))); !ok || !reflect.DeepEqual(e, entryOf(i)) {
			t.Fatalf("entry %d: %+v, %v", i, e, ok)
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
	// 10 flushes in all, merged down to maxPacks or fewer: every pack is
	// whole. Two processes merging at once may each write a merged pack
	// of the same records: a key in two packs has the same entry.
	got := packs(t, s)
	if len(got) > maxPacks || len(got) < 2 {
		t.Fatalf("%d packs, want 2 to %d", len(got), maxPacks)
	}
	index := make(map[string][]byte)
	for _, p := range got {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		parsePack(data, func(k string, rec []byte) {
			if old, dup := index[k]; dup && !bytes.Equal(old, rec) {
				t.Errorf("%s: key %s in two packs, with different entries", p, k)
			}
			index[k] = rec
		})
	}
	if len(index) != 400 {
		t.Fatalf("%d records in the packs, want 400", len(index))
	}
	for k, data := range index {
		if _, ok := decode(k, data); !ok {
			t.Fatalf("pack entry %s does not decode", k)
		}
	}
	// Every entry is found whole.
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

// TestMergeKeepsTheNewestWholeEntry: merging packs keeps, for each key,
// the newest record that decodes; a damaged newer copy does not replace a
// good older one, and the merged pack is readable by other users as the
// packs it replaces were.
func TestMergeKeepsTheNewestWholeEntry(t *testing.T) {
	s := open(t)
	k := key("a")
	putFlushed(t, s, k, entryOf(1))
	damaged, err := encode(k, entryOf(2))
	if err != nil {
		t.Fatal(err)
	}
	damaged[len(damaged)-3] ^= 1
	time.Sleep(time.Millisecond) // a newer name
	writeRecords(t, s.Dir(), [2]string{k, string(damaged)})
	for i := 0; i < maxPacks; i++ {
		s2 := reopen(t, s)
		putFlushed(t, s2, key(strconv.Itoa(i)), entryOf(i))
	}
	if got := packs(t, s); len(got) > maxPacks {
		t.Fatalf("%d packs: no merge", len(got))
	}
	if e, ok := reopen(t, s).Get(k); !ok || !reflect.DeepEqual(e, entryOf(1)) {
		t.Fatalf("after the merge: %+v, %v; want the older whole entry", e, ok)
	}
	for _, p := range packs(t, s) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("%s: mode %v, %v", p, fi.Mode(), err)
		}
	}
}

// putFlushed puts e under k and flushes, as a run that made one call does.
func putFlushed(t *testing.T, s *Store, k string, e Entry) {
	t.Helper()
	if err := s.Put(k, e); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
}
