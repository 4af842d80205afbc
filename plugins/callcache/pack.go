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

// Packs: a lookup that opens an entry's own file costs a few microseconds
// of system calls, as much as a plugin call answering a batch. So the
// entries a run wrote, or found only in their own files, are gathered at
// the end of the run (Flush) into one pack file, <dir>/packs/<name>.pack,
// and the next run reads every pack once, with one read each, and looks
// entries up in memory. A pack holds each entry as its own file does, key
// and output sha256 included, and every entry is checked again when it is
// used: a torn or garbled pack, or a pack entry whose bytes changed, is a
// miss there, and the entry's own file is asked next. Packs only speed
// lookups: every entry is also written to its own file, so removing a
// pack loses nothing.

// packMagic starts every pack; its number changes when the format does.
const packMagic = "wasmeval-call-cache-pack 1\n"

// packDir is where packs live, beside the shards (whose names are two
// hex digits, so no key's shard is named so).
const packDir = "packs"

// maxPacks is how many packs are kept: Flush removes the oldest beyond
// it. Their entries are still in their own files, and a run that uses
// them packs them again.
const maxPacks = 8

// maxPackBytes caps a pack, written or read, and maxPacksRead what a
// store reads of all packs; maxPackedEntry caps an entry gathered into
// one (larger entries are read from their own files, where a file's open
// costs little beside the entry's size).
const (
	maxPackBytes   = 64 << 20
	maxPacksRead   = 256 << 20
	maxPackedEntry = 1 << 20
)

// loadPacks reads the packs in the directory into the in-memory index,
// newest first, so a newer pack's entry is the one kept, and up to
// maxPacksRead bytes in all: a run does not hold more of the cache in
// memory than that (the rest is read from the entries' own files). A
// pack that cannot be read is skipped; one torn or garbled part way is
// used up to the first record that does not parse.
func (s *Store) loadPacks() {
	var packed map[string][]byte
	names := s.packNames()
	left := int64(maxPacksRead)
	for i := len(names) - 1; i >= 0 && left > 0; i-- {
		data, ok := readPack(filepath.Join(s.dir, packDir, names[i]), min(left, maxPackBytes))
		if !ok {
			continue
		}
		left -= int64(len(data))
		if packed == nil {
			// Room for the first pack's entries, at a verdict's size
			// or so, so the map is not grown ten times over.
			packed = make(map[string][]byte, len(data)/1024)
		}
		parsePack(data, packed)
	}
	if packed == nil {
		packed = map[string][]byte{} // loaded: Put deletes from it (supersede)
	}
	s.mu.Lock()
	for k := range s.replaced {
		delete(packed, k)
	}
	s.packed, s.replaced = packed, nil
	s.mu.Unlock()
}

// readPack reads a pack of at most max bytes into a buffer of its size,
// with one read: a pack is megabytes, and reading it through a growing
// buffer (io.ReadAll) cost a warm run as much again in copies and zeroed
// memory as the read itself. A pack whose size changed under the read (it
// cannot: packs are renamed into place whole) is read as far as it went,
// and parsePack stops at the first record that does not parse.
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

// packedEntry is the packs' entry for key.
func (s *Store) packedEntry(key string) ([]byte, bool) {
	s.packOnce.Do(s.loadPacks)
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.packed[key]
	return data, ok
}

// packNames are the packs' file names, oldest first (a name starts with
// its writing time).
func (s *Store) packNames() []string {
	ents, err := os.ReadDir(filepath.Join(s.dir, packDir))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".pack") && !strings.HasPrefix(n, ".") && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// parsePack adds a pack's records to index, but for keys index has
// already (from a newer pack). A record is a line holding a
// key and the length of the entry that follows, the entry as its own file
// holds it, and a newline. Records are not checked here, only framed:
// each entry is checked when it is used (decode).
//
// The index's keys are parts of data too, not copies: data is the
// store's own buffer and is never written to once read (its entries are
// parts of it already), and a run reads ten thousand records or more, a
// string allocated for each. (It was half of what reading a pack cost.)
func parsePack(data []byte, index map[string][]byte) {
	rest, ok := bytes.CutPrefix(data, []byte(packMagic))
	if !ok {
		return
	}
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte{'\n'})
		if !ok || len(line) < 66 || line[64] != ' ' {
			return
		}
		k := unsafe.String(&line[0], 64)
		n, ok := parseLength(line[65:])
		if !ok || !validKey(k) || n >= len(after) || after[n] != '\n' {
			return
		}
		if _, seen := index[k]; !seen {
			index[k] = after[:n:n]
		}
		rest = after[n+1:]
	}
}

// parseLength reads a record's length: decimal digits, as Flush writes it,
// at most what a pack may hold.
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

// gather notes an entry's bytes for the next pack.
func (s *Store) gather(key string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(data) > maxPackedEntry {
		return
	}
	if s.pending == nil {
		s.pending = make(map[string][]byte)
	}
	if old, ok := s.pending[key]; ok {
		s.pendingBytes -= len(old) + len(key) + 24
	}
	if s.pendingBytes+len(data)+len(key)+24 > maxPackBytes-len(packMagic) {
		return
	}
	s.pending[key] = data
	s.pendingBytes += len(data) + len(key) + 24
}

// Flush writes the entries stored, or found only in their own files,
// since the last Flush into a new pack, so the next run reads them all at
// once; it removes the oldest packs beyond maxPacks. A run calls it when
// it ends. Like Put, it writes a temporary file and renames it, so a
// reader sees a whole pack or none, and each pack has a name of its own,
// so two processes flushing at once both keep theirs. A pack that cannot
// be written costs the next run only the speed.
func (s *Store) Flush() error {
	s.mu.Lock()
	pending := s.pending
	s.pending, s.pendingBytes = nil, 0
	s.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	keys := make([]string, 0, len(pending))
	size := len(packMagic)
	for k, data := range pending {
		keys = append(keys, k)
		size += len(k) + len(data) + 24
	}
	sort.Strings(keys)
	buf := make([]byte, 0, size)
	buf = append(buf, packMagic...)
	for _, k := range keys {
		buf = append(buf, k...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(len(pending[k])), 10)
		buf = append(buf, '\n')
		buf = append(buf, pending[k]...)
		buf = append(buf, '\n')
	}
	dir := filepath.Join(s.dir, packDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-pack-*")
	if err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	_, werr := tmp.Write(buf)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("verdict cache: %w", err)
	}
	var r [8]byte
	_, _ = rand.Read(r[:])
	name := fmt.Sprintf("%016x-%s.pack", time.Now().UnixNano(), hex.EncodeToString(r[:]))
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("verdict cache: %w", err)
	}
	if names := s.packNames(); len(names) > maxPacks {
		for _, old := range names[:len(names)-maxPacks] {
			// Another process may have removed it, or be reading it: a
			// reader holds what it read, and a pack's entries are
			// also in their own files.
			_ = os.Remove(filepath.Join(dir, old))
		}
	}
	return nil
}

// supersede drops the packs' entry for key, which Put has just replaced:
// the entry's own file is newer.
func (s *Store) supersede(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.packed != nil {
		delete(s.packed, key)
		return
	}
	if s.replaced == nil {
		s.replaced = make(map[string]bool)
	}
	s.replaced[key] = true
}
