package share

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
)

// LockFileName is the lock file's name, next to the problem's config.
const LockFileName = "wasmeval.lock"

// LockVersion is the lock format this package reads and writes.
const LockVersion = 1

// maxLockBytes caps what ReadLock reads.
const maxLockBytes = 16 << 20

// Lock is wasmeval.lock: every plugin reference of a problem resolved to
// digests. Runs resolve references only through it.
type Lock struct {
	Version int         `json:"version"`
	Plugins []LockEntry `json:"plugins"`
}

// LockEntry is one resolved reference.
type LockEntry struct {
	// Ref is the reference as the problem names it, canonical (oci://…).
	Ref string `json:"ref"`
	// Manifest is the manifest digest, "sha256:<hex>": what a run pulls
	// by, never the tag.
	Manifest string `json:"manifest"`
	// SHA256 is the module's digest in hex, as pins are written.
	SHA256     string   `json:"sha256"`
	Size       int64    `json:"size"`
	ABIVersion int      `json:"abi_version"`
	Kinds      []string `json:"kinds"`
	// Signer names the key that signed the manifest, when signatures are
	// checked; empty otherwise.
	Signer string `json:"signer"`
}

// Find returns the entry of ref (any spelling ParseRef accepts).
func (l *Lock) Find(ref string) (*LockEntry, bool) {
	if l == nil {
		return nil, false
	}
	want := ref
	if r, err := ParseRef(ref); err == nil {
		want = r.String()
	}
	for i := range l.Plugins {
		have := l.Plugins[i].Ref
		if r, err := ParseRef(have); err == nil {
			have = r.String() // a lock written before hosts were lowercased
		}
		if have == want {
			return &l.Plugins[i], true
		}
	}
	return nil, false
}

// Put adds or replaces the entry of e.Ref.
func (l *Lock) Put(e LockEntry) {
	if old, ok := l.Find(e.Ref); ok {
		*old = e
		return
	}
	l.Plugins = append(l.Plugins, e)
}

// ReadLock reads and checks a lock file. Anything unexpected — an unknown
// or repeated key, a wrong type, a malformed digest or reference, a
// reference listed twice — is an error naming the file, the JSON path and
// what was expected.
func ReadLock(path string) (*Lock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLockBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxLockBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB; not a lock file", path, maxLockBytes>>20)
	}
	l, err := parseLock(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

func parseLock(data []byte) (*Lock, error) {
	if err := syntaxErr(data); err != nil {
		return nil, err
	}
	top, err := fields(data, "$")
	if err != nil {
		return nil, err
	}
	l := &Lock{}
	hasVersion := false
	for _, f := range top {
		switch f.key {
		case "version":
			hasVersion = true
			if err := json.Unmarshal(f.val, &l.Version); err != nil {
				return nil, fmt.Errorf("version: expected an integer, got %s", clip(f.val))
			}
		case "plugins":
			var items []json.RawMessage
			if err := json.Unmarshal(f.val, &items); err != nil || items == nil && !bytes.Equal(bytes.TrimSpace(f.val), []byte("[]")) {
				return nil, fmt.Errorf("plugins: expected an array, got %s", clip(f.val))
			}
			for i, item := range items {
				e, err := parseEntry(item, fmt.Sprintf("plugins[%d]", i))
				if err != nil {
					return nil, err
				}
				if _, dup := l.Find(e.Ref); dup {
					return nil, fmt.Errorf("plugins[%d].ref: %s is listed twice", i, e.Ref)
				}
				l.Plugins = append(l.Plugins, e)
			}
		default:
			return nil, fmt.Errorf("%s: unknown key; expected version and plugins", f.key)
		}
	}
	if !hasVersion {
		return nil, fmt.Errorf("version: missing; expected \"version\": %d", LockVersion)
	}
	if l.Version != LockVersion {
		return nil, fmt.Errorf("version: %d; this wasmeval reads lock version %d", l.Version, LockVersion)
	}
	return l, nil
}

// syntaxErr says, with its line and column, why data is not JSON at all:
// empty, cut short, or malformed.
func syntaxErr(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("the file is empty (truncated?); expected a JSON object with version and plugins: run `wasmeval plugin lock` again")
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	line, col := lineCol(data, se.Offset)
	if strings.Contains(se.Error(), "unexpected end of JSON input") {
		return fmt.Errorf("line %d, column %d: the JSON ends early (the file is truncated); run `wasmeval plugin lock` again", line, col)
	}
	return fmt.Errorf("line %d, column %d: invalid JSON: %v", line, col, se)
}

// lineCol is the 1-based line and column of byte offset off.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n') - 1 // the offset is just past the offending byte
	if col < 1 {
		col = 1
	}
	return line, col
}

func parseEntry(data []byte, at string) (LockEntry, error) {
	fs, err := fields(data, at)
	if err != nil {
		return LockEntry{}, err
	}
	var e LockEntry
	seen := map[string]bool{}
	str := func(f field, dst *string) error {
		if err := json.Unmarshal(f.val, dst); err != nil || bytes.Equal(bytes.TrimSpace(f.val), []byte("null")) {
			return fmt.Errorf("%s.%s: expected a string, got %s", at, f.key, clip(f.val))
		}
		return nil
	}
	for _, f := range fs {
		seen[f.key] = true
		var err error
		switch f.key {
		case "ref":
			if err = str(f, &e.Ref); err == nil {
				r, perr := ParseRef(e.Ref)
				if perr != nil {
					return e, fmt.Errorf("%s.ref: %v", at, perr)
				}
				e.Ref = r.String()
			}
		case "manifest":
			if err = str(f, &e.Manifest); err == nil {
				if d, perr := digest.Parse(e.Manifest); perr != nil || d.Algorithm() != digest.SHA256 {
					return e, fmt.Errorf("%s.manifest: expected sha256: and 64 lowercase hex digits, got %q", at, e.Manifest)
				}
			}
		case "sha256":
			if err = str(f, &e.SHA256); err == nil && !isHex64(e.SHA256) {
				return e, fmt.Errorf("%s.sha256: expected 64 lowercase hex digits, got %q", at, e.SHA256)
			}
		case "size":
			if json.Unmarshal(f.val, &e.Size) != nil || e.Size <= 0 {
				return e, fmt.Errorf("%s.size: expected a positive integer, got %s", at, clip(f.val))
			}
		case "abi_version":
			if json.Unmarshal(f.val, &e.ABIVersion) != nil || e.ABIVersion < 0 {
				return e, fmt.Errorf("%s.abi_version: expected a non-negative integer, got %s", at, clip(f.val))
			}
		case "kinds":
			if json.Unmarshal(f.val, &e.Kinds) != nil || slices.Contains(e.Kinds, "") {
				return e, fmt.Errorf("%s.kinds: expected an array of kind names, got %s", at, clip(f.val))
			}
		case "signer":
			err = str(f, &e.Signer)
		default:
			return e, fmt.Errorf("%s.%s: unknown key; expected ref, manifest, sha256, size, abi_version, kinds, signer", at, f.key)
		}
		if err != nil {
			return e, err
		}
	}
	for _, k := range []string{"ref", "manifest", "sha256", "size"} {
		if !seen[k] {
			return e, fmt.Errorf("%s.%s: missing", at, k)
		}
	}
	return e, nil
}

type field struct {
	key string
	val json.RawMessage
}

// fields splits a JSON object into its members in order, refusing
// anything but an object, repeated keys and trailing data.
func fields(data []byte, at string) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: expected a JSON object, got %s", at, clip(data))
	}
	var out []field
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: invalid JSON: %v", at, err)
		}
		key := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("%s.%s: invalid JSON: %v", at, key, err)
		}
		if seen[key] {
			return nil, fmt.Errorf("%s.%s: key repeated", at, key)
		}
		seen[key] = true
		out = append(out, field{key, val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %v", at, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: unexpected data after the object", at)
	}
	return out, nil
}

func clip(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	if s == "" {
		s = "nothing"
	}
	return s
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// WriteLock writes l to path atomically (a temporary file beside it,
// synced, renamed over it): a crash leaves the old lock or the new one,
// never half of one. Entries are sorted by reference so that the same
// resolution always writes the same bytes.
func WriteLock(path string, l *Lock) error {
	out := Lock{Version: LockVersion, Plugins: slices.Clone(l.Plugins)}
	for i := range out.Plugins {
		out.Plugins[i].Kinds = slices.Clone(out.Plugins[i].Kinds)
		slices.Sort(out.Plugins[i].Kinds)
		if out.Plugins[i].Kinds == nil {
			out.Plugins[i].Kinds = []string{}
		}
	}
	if out.Plugins == nil {
		out.Plugins = []LockEntry{}
	}
	slices.SortFunc(out.Plugins, func(a, b LockEntry) int { return strings.Compare(a.Ref, b.Ref) })
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if _, err := parseLock(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeAtomic(path, data)
}

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
