package callcache

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Logs and packs. A store appends each entry it writes to its own log, a
// file in <dir>/packs named <time>-<random>.log, with one write; at the
// end of a run (Flush) it renames the log into a pack, <time>-<random>.pack.
// Both have one format: a magic line, then records, each a line with the
// key and the entry's length, the entry's bytes as encode writes them,
// and a newline. A process reads every pack and log once, with one read
// each, newest first, and looks entries up in memory. A record is framed,
// not checked, when it is read: each entry is checked when it is used
// (decode), so a torn or garbled file is read up to its first bad frame,
// and a record whose bytes changed is a miss there.

// packMagic starts every pack and log; its number changes when the
// format does.
const packMagic = "wasmeval-call-cache-pack 1\n"

// packDir is where packs and logs live.
const packDir = "packs"

// maxPacks is how many packs a flush leaves before it merges the oldest
// into one.
const maxPacks = 8

// maxPackBytes caps a pack or log, written or read (a log that would grow
// past it is made a pack and another started), and maxPacksRead what a
// store reads of all of them: the newest, up to it. A pack that lies
// wholly past it is never read, and a flush removes it.
const (
	maxPackBytes = 64 << 20
	maxPacksRead = 256 << 20
)

// staleLog is how long a log goes unwritten before a flush takes it for
// one whose process died without flushing it, and merges it like a pack.
var staleLog = 24 * time.Hour

// appendRecord frames an entry's bytes as a pack record.
func appendRecord(buf []byte, key string, data []byte) []byte {
	buf = append(buf, key...)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(len(data)), 10)
	buf = append(buf, '\n')
	buf = append(buf, data...)
	return append(buf, '\n')
}

// appendLog writes a record at the end of the store's log, starting one
// first if there is none, or if the record would take it past
// maxPackBytes (the full one is made a pack). s.mu is held.
func (s *Store) appendLog(rec []byte) error {
	if s.log != nil && s.logBytes+int64(len(rec)) > maxPackBytes {
		s.finishLog()
	}
	if s.log == nil {
		if err := s.startLog(); err != nil {
			return err
		}
	}
	n, err := s.log.Write(rec)
	s.logBytes += int64(n)
	if err != nil {
		// A record may be torn: nothing is written after it, so a
		// reader keeps every record before it.
		s.log.Close()
		s.log = nil
		return err
	}
	return nil
}

// startLog creates the store's log. s.mu is held.
func (s *Store) startLog() error {
	dir := filepath.Join(s.dir, packDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, newName(time.Now(), ".log"))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(packMagic)); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	s.log, s.logPath, s.logBytes = f, path, int64(len(packMagic))
	return nil
}

// finishLog closes the store's log and renames it into a pack. A log
// whose directory was removed meanwhile (the cache cleared) is written
// again as a pack from its open file. s.mu is held.
func (s *Store) finishLog() error {
	f := s.log
	s.log = nil
	if f == nil {
		return nil
	}
	defer f.Close()
	dir := filepath.Join(s.dir, packDir)
	pack := filepath.Join(dir, newName(time.Now(), ".pack"))
	if err := os.Rename(s.logPath, pack); err == nil {
		return nil
	}
	data := make([]byte, s.logBytes)
	n, err := f.ReadAt(data, 0)
	if err != nil && err != io.EOF {
		return err
	}
	return writePack(dir, pack, data[:n])
}

// newName names a pack or log: its time first, so names sort oldest
// first, then random bytes, so two processes never pick one name.
func newName(t time.Time, ext string) string {
	return fmt.Sprintf("%016x-%s%s", t.UnixNano(), randomHex(), ext)
}

// randomHex is eight random bytes in hex.
func randomHex() string {
	var r [8]byte
	_, _ = rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

// writePack writes data as the pack path, through a temporary file
// renamed into place: a reader sees a whole pack or none.
func writePack(dir, path string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-pack-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	// As readable as the logs, which become packs by a rename: a cache
	// directory shared by users stays shared.
	cerr := errors.Join(tmp.Chmod(0o644), tmp.Close())
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// loadPacks reads the packs and logs in the directory into the in-memory
// index, newest first (the newest file first, and in a file its last
// record first), up to maxPacksRead bytes in all. One that cannot be
// read is skipped; one torn or garbled part way is used up to the first
// record that does not parse.
func (s *Store) loadPacks() {
	packed := map[string][]byte{}
	var older map[string][][]byte
	names := s.packNames(true)
	left := int64(maxPacksRead)
	for i := len(names) - 1; i >= 0 && left > 0; i-- {
		data, ok := readPack(filepath.Join(s.dir, packDir, names[i]), min(left, maxPackBytes))
		if !ok {
			continue
		}
		left -= int64(len(data))
		if len(packed) == 0 {
			// Room for the first file's entries, at a verdict's size
			// or so, so the map is not grown ten times over.
			packed = make(map[string][]byte, len(data)/1024)
		}
		parseNewestFirst(data, func(k string, rec []byte) {
			if _, seen := packed[k]; !seen {
				packed[k] = rec
				return
			}
			if older == nil {
				older = make(map[string][][]byte)
			}
			older[k] = append(older[k], rec)
		})
	}
	s.mu.Lock()
	s.packed, s.older = packed, older
	s.mu.Unlock()
}

// readPack reads a pack or log of at most max bytes into a buffer of its
// size, with one read: a pack is megabytes, and reading it through a
// growing buffer (io.ReadAll) cost a warm run as much again in copies and
// zeroed memory as the read itself. A log that grows under the read is
// read as far as it was, and parsePack stops at the first record that does
// not parse.
func readPack(path string, max int64) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, false
	}
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, false
	}
	return data[:n], true
}

// packedEntries are the packs' and logs' entries for key, newest first.
func (s *Store) packedEntries(key string) [][]byte {
	s.packOnce.Do(s.loadPacks)
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.packed[key]
	if !ok {
		return nil
	}
	if more := s.older[key]; len(more) > 0 {
		return append([][]byte{data}, more...)
	}
	return [][]byte{data}
}

// packNames are the packs' file names, and with logs the logs' too,
// oldest first (a name starts with its writing time).
func (s *Store) packNames(logs bool) []string {
	ents, err := os.ReadDir(filepath.Join(s.dir, packDir))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !e.Type().IsRegular() {
			continue
		}
		if strings.HasSuffix(n, ".pack") || logs && strings.HasSuffix(n, ".log") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// parsePack calls add with each record of a pack or log, in order. A
// record is a line holding a key and the length of the entry that
// follows, the entry, and a newline. Records are not checked here, only
// framed: each entry is checked when it is used (decode).
//
// The keys are parts of data too, not copies: data is the store's own
// buffer and is never written to once read (its entries are parts of it
// already), and a run reads ten thousand records or more, a string
// allocated for each. (It was half of what reading a pack cost.)
func parsePack(data []byte, add func(key string, rec []byte)) {
	rest, ok := bytes.CutPrefix(data, []byte(packMagic))
	if !ok {
		return
	}
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte{'\n'})
		if !ok || len(line) < 66 || line[64] != ' ' {
			return
		}
		// The key is not checked: a lookup's key is (Find), and
		// decode holds the entry to it.
		k := unsafe.String(&line[0], 64)
		n, ok := parseLength(line[65:])
		if !ok || n >= len(after) || after[n] != '\n' {
			return
		}
		add(k, after[:n:n])
		rest = after[n+1:]
	}
}

// parseNewestFirst calls add with each record of a pack or log, the last
// first: a log's later record for a key was written after its earlier
// ones.
func parseNewestFirst(data []byte, add func(key string, rec []byte)) {
	type record struct {
		key string
		rec []byte
	}
	var recs []record
	parsePack(data, func(k string, rec []byte) { recs = append(recs, record{k, rec}) })
	for i := len(recs) - 1; i >= 0; i-- {
		add(recs[i].key, recs[i].rec)
	}
}

// parseLength reads a record's length: decimal digits, as appendRecord
// writes it, at most what a pack may hold.
func parseLength(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= maxPackBytes
}

// Flush makes the store's log a pack, so the entries the run wrote are
// in a file that is never written again, and merges the oldest packs
// into one when there are more than maxPacks. A run calls it when it
// ends; the store starts a new log at its next Put. A log that is never
// flushed (its process killed) is read as it is by every later process,
// and merged by a flush once it has gone unwritten for staleLog.
func (s *Store) Flush() error {
	s.mu.Lock()
	err := s.finishLog()
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	if err := s.compact(); err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	return nil
}

// compact merges old packs (and stale logs) into one when there are more
// than maxPacks: the oldest small ones (under a quarter of maxPackBytes),
// enough to leave maxPacks/2 files, as many as fit in one pack, the
// newest whole entry of each key kept (a record that does not decode is
// dropped). The merged pack takes the time of the
// newest it holds, so it sorts where that one did. It is written before
// they are removed, so an entry is always in one file or another; two
// processes merging at once each write theirs, holding the same records,
// and a later merge takes both. compact also removes the packs that lie
// wholly past what a store reads (maxPacksRead, newest first), which no
// process reads.
func (s *Store) compact() error {
	dir := filepath.Join(s.dir, packDir)
	var names []string
	var sizes []int64
	for _, n := range s.packNames(true) {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil || strings.HasSuffix(n, ".log") && time.Since(fi.ModTime()) < staleLog {
			continue // gone, or a log being written
		}
		names, sizes = append(names, n), append(sizes, fi.Size())
	}
	newer := int64(0)
	for i := len(names) - 1; i >= 0; i-- {
		if newer >= maxPacksRead {
			for _, n := range names[:i+1] {
				_ = os.Remove(filepath.Join(dir, n)) // never read
			}
			names, sizes = names[i+1:], sizes[i+1:]
			break
		}
		newer += sizes[i]
	}
	if len(names) <= maxPacks {
		return nil
	}
	var merge []string
	total := int64(len(packMagic))
	for i, n := range names[:len(names)-maxPacks/2] {
		if sizes[i] >= maxPackBytes/4 {
			continue
		}
		if total+sizes[i] > maxPackBytes {
			break
		}
		merge, total = append(merge, n), total+sizes[i]
	}
	if len(merge) < 2 {
		return nil
	}
	records := map[string][]byte{}
	var keys []string
	for i := len(merge) - 1; i >= 0; i-- { // newest first: its record wins
		data, ok := readPack(filepath.Join(dir, merge[i]), maxPackBytes)
		if !ok {
			continue // removed by another process meanwhile
		}
		parseNewestFirst(data, func(key string, rec []byte) {
			if _, seen := records[key]; seen {
				return
			}
			// Only a whole entry is kept: a damaged newer copy must
			// not take the place of a good older one.
			if _, ok := decode(key, rec); ok {
				records[key] = rec
				keys = append(keys, key)
			}
		})
	}
	sort.Strings(keys)
	buf := make([]byte, 0, total)
	buf = append(buf, packMagic...)
	for _, key := range keys {
		buf = appendRecord(buf, key, records[key])
	}
	newest := merge[len(merge)-1]
	name := newest[:strings.IndexByte(newest, '-')+1] + randomHex() + ".pack"
	if err := writePack(dir, filepath.Join(dir, name), buf); err != nil {
		return err
	}
	for _, n := range merge {
		_ = os.Remove(filepath.Join(dir, n))
	}
	return nil
}
