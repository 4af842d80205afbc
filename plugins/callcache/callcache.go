// Package callcache stores the outputs of plugin calls on disk, so a call
// made again with the same module, the same input and the same files read
// is answered without running the plugin (docs/running.md, "Verdict
// cache"). It is a plain store: keys are computed, and entries judged
// still valid, by the plugin host (plugins/host, CallCache); this package
// only keeps the bytes safe.
//
// Every entry is one file, <dir>/<key[:2]>/<key>, written to a temporary
// file and renamed into place, so a reader sees a whole entry or none and
// two processes can share a directory. An entry names its own key and
// carries a checksum of the rest: a truncated file, garbage or a valid
// entry copied under another key is a miss, never a wrong answer, and the
// call that follows the miss replaces it.
package callcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// EnvDir names the environment variable that overrides where the cache
// lives; "off" turns it off.
const EnvDir = "WASMEVAL_VERDICT_CACHE"

// MaxEntryBytes caps an entry: a plugin's output is at most 64 MiB, and
// its header (the files it read) at most a few more. A larger file is not
// read: it is a miss.
const MaxEntryBytes = 64<<20 + 4<<20

// magic starts every entry; its number changes when the format does (an
// entry of another format is a miss, and the call that follows replaces
// it).
const magic = "wasmeval-call-cache 2\n"

// Read is one file a call read through read_asset: its path as the plugin
// gave it and the sha256 of the bytes it got (in hex), or Refused when the
// read was refused (a missing file, an escape, a file over the cap).
type Read struct {
	Path    string
	SHA256  string
	Refused bool
}

// Entry is what the store keeps of a call: its output, what it read, and
// which version of the caller's checks the output passed before it was
// kept (the caller's own numbering, kept for it; 0 says none).
type Entry struct {
	Output    []byte
	Reads     []Read
	Validated uint32
}

// Store is a cache directory. It is safe for concurrent use, also by
// other processes sharing the directory.
type Store struct {
	dir    string
	shards sync.Map // shard directories known to exist

	packOnce     sync.Once
	mu           sync.Mutex
	packed       map[string][]byte // the packs' entries by key, read once (pack.go)
	replaced     map[string]bool   // keys Put before the packs were read
	pending      map[string][]byte // entries for the next pack (Flush)
	pendingBytes int
}

// DefaultDir is where the cache lives unless told otherwise:
// $WASMEVAL_VERDICT_CACHE when set, else <user cache dir>/wasmeval/verdicts
// (the user cache dir honours XDG_CACHE_HOME, as the compilation cache's
// does). It returns "" when the cache is turned off ("off").
func DefaultDir() (string, error) {
	if env := os.Getenv(EnvDir); env != "" {
		if env == "off" {
			return "", nil
		}
		return env, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("verdict cache: no user cache directory (%v); set %s to a directory, or to off", err, EnvDir)
	}
	return filepath.Join(base, "wasmeval", "verdicts"), nil
}

// Open returns the store in dir, creating the directory.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("verdict cache: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// validKey says whether key can name an entry: lowercase hex, as a sha256
// gives it, so it is a safe file name.
func validKey(key string) bool {
	if len(key) != 64 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (s *Store) path(key string) string { return filepath.Join(s.dir, key[:2], key) }

// Get returns the entry stored under key. Anything that is not a whole
// entry for key (no file, a file too large, truncated, garbled, or an
// entry of another key) is a miss.
func (s *Store) Get(key string) (Entry, bool) {
	var got Entry
	ok := s.Find(key, func(e Entry) bool { got = e; return true })
	return got, ok
}

// Find offers use the entry stored under key: the one in a pack first,
// then, when there is none or use refuses it (a pack entry garbled, or
// one older than the entry's own file), the one in the entry's own file.
// It returns what use returned, false when there was no entry. An entry
// found only in its own file is gathered for the next pack (Flush).
func (s *Store) Find(key string, use func(Entry) bool) bool {
	if !validKey(key) {
		return false
	}
	if data, ok := s.packedEntry(key); ok {
		if e, ok := decode(key, data); ok && use(e) {
			return true
		}
	}
	data, ok := readCapped(s.path(key), MaxEntryBytes)
	if !ok {
		return false
	}
	e, ok := decode(key, data)
	if !ok || !use(e) {
		return false
	}
	s.gather(key, data)
	return true
}

// readCapped reads a file of at most max bytes. Most entries are a few
// kilobytes: one read into a pooled buffer takes them whole, which is
// what a warm lookup costs (a stat and a second read to see the end of
// the file cost as much again). A short read is no risk: an entry carries
// its output's length and sha256, and one read in part is a miss.
func readCapped(path string, max int64) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	buf := *bp
	n, err := f.Read(buf)
	if err != nil && err != io.EOF {
		return nil, false // a directory, an I/O error
	}
	if n < len(buf) {
		return bytes.Clone(buf[:n]), true
	}
	// A large entry: the rest, up to the cap.
	rest, err := io.ReadAll(io.LimitReader(f, max-int64(n)+1))
	if err != nil || int64(n+len(rest)) > max {
		return nil, false
	}
	return append(bytes.Clone(buf[:n]), rest...), true
}

// readBuffers hold the first read of an entry.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// An entry's bytes, after magic, are a fixed header and the reads, then
// the output (all integers little-endian):
//
//	key           64 bytes, the key in hex
//	checksum      4 bytes, CRC-32C of everything after it
//	validated     4 bytes (Entry.Validated)
//	reads         4 bytes, their count, then each: a byte (0 refused, 1
//	              read), the path's length (4 bytes) and the path, and for
//	              a read, the sha256 of what it got (32 bytes)
//	output length 4 bytes
//	output        the rest, exactly that long
//
// A binary header, not the JSON line of the first format: decoding JSON
// was half of what a lookup cost (docs/benchmarks.md, "Verdict cache").
// And a CRC-32C, not the output's sha256 of the first format, which cost
// a hit about a microsecond: the checksum is there to tell a damaged entry
// (a disk error, a pack garbled past its framing) from a whole one, which
// a CRC does, in hardware; it was never a defence against someone who
// writes entries, who could have written the sha256 too. The key, which
// names what a call was, stays a sha256 (the host's).
const fixedHeader = 64 + 4 + 4 + 4

// castagnoli is the CRC-32C table (SSE 4.2 and ARMv8 compute it).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decode checks an entry's bytes against key: anything but a whole entry
// of key, its checksum matching, is a miss. The entry's output and
// paths are parts of data (which the store never changes).
func decode(key string, data []byte) (Entry, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok || len(rest) < fixedHeader || string(rest[:64]) != key {
		return Entry{}, false
	}
	if crc32.Checksum(rest[68:], castagnoli) != binary.LittleEndian.Uint32(rest[64:]) {
		return Entry{}, false
	}
	e := Entry{Validated: binary.LittleEndian.Uint32(rest[68:])}
	n := binary.LittleEndian.Uint32(rest[72:])
	rest = rest[fixedHeader:]
	if uint64(n) > uint64(len(rest))/5 {
		return Entry{}, false // more reads than could fit
	}
	if n > 0 {
		e.Reads = make([]Read, n)
	}
	for i := range e.Reads {
		if len(rest) < 5 || rest[0] > 1 {
			return Entry{}, false
		}
		refused := rest[0] == 0
		l := binary.LittleEndian.Uint32(rest[1:])
		rest = rest[5:]
		if uint64(l) > uint64(len(rest)) {
			return Entry{}, false
		}
		e.Reads[i] = Read{Path: string(rest[:l]), Refused: refused}
		rest = rest[l:]
		if !refused {
			if len(rest) < sha256.Size {
				return Entry{}, false
			}
			e.Reads[i].SHA256 = hex.EncodeToString(rest[:sha256.Size])
			rest = rest[sha256.Size:]
		}
	}
	if len(rest) < 4 || uint64(binary.LittleEndian.Uint32(rest)) != uint64(len(rest)-4) {
		return Entry{}, false
	}
	e.Output = rest[4:]
	return e, true
}

// encode writes an entry's bytes.
func encode(key string, e Entry) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("key %q is not a sha256 in hex", key)
	}
	size := len(magic) + fixedHeader + 4 + len(e.Output)
	for _, r := range e.Reads {
		size += 5 + len(r.Path) + sha256.Size
	}
	if size > MaxEntryBytes {
		return nil, errTooLarge
	}
	buf := make([]byte, 0, size)
	buf = append(buf, magic...)
	buf = append(buf, key...)
	buf = append(buf, 0, 0, 0, 0) // the checksum, below
	buf = binary.LittleEndian.AppendUint32(buf, e.Validated)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(e.Reads)))
	for _, r := range e.Reads {
		if r.Refused {
			if r.SHA256 != "" {
				return nil, fmt.Errorf("read of %q is both refused and has a sha256", r.Path)
			}
			buf = append(buf, 0)
		} else {
			buf = append(buf, 1)
		}
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(r.Path)))
		buf = append(buf, r.Path...)
		if !r.Refused {
			d, err := hex.DecodeString(r.SHA256)
			if err != nil || len(d) != sha256.Size {
				return nil, fmt.Errorf("read of %q: sha256 %q is not a sha256 in hex", r.Path, r.SHA256)
			}
			buf = append(buf, d...)
		}
	}
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(e.Output)))
	buf = append(buf, e.Output...)
	at := len(magic) + 64
	binary.LittleEndian.PutUint32(buf[at:], crc32.Checksum(buf[at+4:], castagnoli))
	return buf, nil
}

// errTooLarge is an entry over MaxEntryBytes: not worth writing, as it
// would not be read back.
var errTooLarge = errors.New("entry too large")

// Put stores e under key, replacing what was there. The entry appears
// whole or not at all: it is written to a temporary file in the same
// directory and renamed into place.
func (s *Store) Put(key string, e Entry) error {
	if !validKey(key) {
		return fmt.Errorf("verdict cache: key %q is not a sha256 in hex", key)
	}
	data, err := encode(key, e)
	if errors.Is(err, errTooLarge) {
		return nil // too large to be read back: not worth writing
	}
	if err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	shard := filepath.Join(s.dir, key[:2])
	if _, ok := s.shards.Load(shard); !ok {
		if err := os.MkdirAll(shard, 0o755); err != nil {
			return fmt.Errorf("verdict cache: %w", err)
		}
		s.shards.Store(shard, true)
	}
	tmp, err := os.CreateTemp(shard, ".tmp-"+key[:8]+"-*")
	if errors.Is(err, os.ErrNotExist) {
		// The directory was removed (the cache cleared) while we ran.
		if err = os.MkdirAll(shard, 0o755); err == nil {
			tmp, err = os.CreateTemp(shard, ".tmp-"+key[:8]+"-*")
		}
	}
	if err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("verdict cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path(key)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("verdict cache: %w", err)
	}
	s.supersede(key)
	s.gather(key, data)
	return nil
}
