// Package callcache stores the outputs of plugin calls on disk, so a call
// made again with the same module, the same input and the same files read
// is answered without running the plugin (docs/running.md, "Verdict
// cache"). It is a plain store: keys are computed, and entries judged
// still valid, by the plugin host (plugins/host, CallCache); this package
// only keeps the bytes safe.
//
// A store appends the entries it writes to a log of its own,
// <dir>/packs/<time>-<random>.log, one write each, and at the end of a
// run (Flush) renames the log into a pack, <time>-<random>.pack; the next
// process reads every pack and log once, into memory. An entry names its
// own key and carries a checksum of the rest, and a record is framed with
// its length: a torn write, garbage or a valid entry framed under another
// key is a miss, never a wrong answer, and the call that follows the miss
// writes a good entry after it. See RATIONALE.md.
package callcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
)

// EnvDir names the environment variable that overrides where the cache
// lives; "off" turns it off.
const EnvDir = "WASMEVAL_VERDICT_CACHE"

// MaxEntryBytes caps an entry (its output and the files it read): a
// larger one is not kept, and its call is made every time. Logs and packs
// are read whole into memory, up to maxPackBytes each, so an entry is a
// fraction of that.
const MaxEntryBytes = 16 << 20

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
// other processes sharing the directory: each writes a log of its own.
type Store struct {
	dir string

	packOnce sync.Once
	mu       sync.Mutex
	packed   map[string][]byte   // the packs' and logs' newest entry by key, read once (pack.go)
	older    map[string][][]byte // their older entries for a key, newest first
	written  map[string][]byte   // entries this store wrote, for its own lookups
	kept     int                 // bytes in written
	log      *os.File            // this store's log, nil until the first Put
	logPath  string
	logBytes int64
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

// Get returns the entry stored under key. Anything that is not a whole
// entry for key (none, truncated, garbled, or an entry of another key) is
// a miss.
func (s *Store) Get(key string) (Entry, bool) {
	var got Entry
	ok := s.Find(key, func(e Entry) bool { got = e; return true })
	return got, ok
}

// Find offers use the entries stored under key, newest first, until use
// takes one: the one this store wrote, then those in the packs and logs
// (newest file first). The host refuses an entry whose files changed
// since, and an older entry, made when they were as they are now, may
// still answer. It returns what use returned, false when no entry was
// taken.
func (s *Store) Find(key string, use func(Entry) bool) bool {
	if !validKey(key) {
		return false
	}
	s.mu.Lock()
	mine, ok := s.written[key]
	s.mu.Unlock()
	if ok {
		if e, ok := decode(key, mine); ok && use(e) {
			return true
		}
	}
	for _, data := range s.packedEntries(key) {
		if e, ok := decode(key, data); ok && use(e) {
			return true
		}
	}
	return false
}

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

// Put stores e under key: after it, this store's lookups find e first,
// and so do the next process's (a newer record wins). The entry is
// appended to the store's log as one record, with one write: a reader, or
// the next process after a crash, sees a whole record or a torn one that
// parses as none. A write that fails (a full disk) closes the log, so no
// record is ever written after a torn one; the next Put starts another.
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
	rec := appendRecord(make([]byte, 0, len(data)+len(key)+24), key, data)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.appendLog(rec); err != nil {
		return fmt.Errorf("verdict cache: %w", err)
	}
	if s.written == nil {
		s.written = make(map[string][]byte)
	}
	old, had := s.written[key]
	if had {
		s.kept -= len(old)
	}
	if s.kept+len(data) <= maxKept {
		s.written[key] = data
		s.kept += len(data)
	} else if had {
		delete(s.written, key) // the log's record is newer than it
	}
	return nil
}

// maxKept caps what a store keeps in memory of the entries it wrote;
// past it, an entry written is found from the next process on.
const maxKept = 64 << 20
