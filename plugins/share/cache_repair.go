package share

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// corruptName is the file beside index.json that records the index
// entries taken out of it because their manifest blob was missing or no
// longer matched its digest.
//
// oras loads every manifest index.json names when it opens a layout and
// refuses the whole layout over one bad blob; a cache must instead lose
// only that entry. The entry is moved here (its blob removed, so that a
// pull by digest writes it again), `cache ls` shows it as CORRUPT and
// `cache prune` forgets it.
const corruptName = ".wasmeval-corrupt.json"

// corruptEntry is an index entry whose manifest blob was bad.
type corruptEntry struct {
	Digest string `json:"digest"`
	// Ref is the reference it was fetched by ("" when untagged).
	Ref string `json:"ref,omitempty"`
	// Why is what was wrong with the blob.
	Why string `json:"why"`
}

// badManifests returns the index entries whose manifest blob is missing or
// does not match its digest, and those that refer to one of them (a
// signature of a bad manifest cannot be loaded without it).
func (c *Cache) badManifests(index *ocispec.Index) map[digest.Digest]string {
	bad := map[digest.Digest]string{}
	subjects := map[digest.Digest]digest.Digest{}
	for _, d := range index.Manifests {
		if _, seen := bad[d.Digest]; seen {
			continue
		}
		if d.Digest.Validate() != nil || d.Digest.Algorithm() != digest.SHA256 {
			bad[d.Digest] = "not a sha256 digest"
			continue
		}
		raw, err := os.ReadFile(c.blobPath(d.Digest.Encoded()))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			bad[d.Digest] = "its blob is missing"
			continue
		case err != nil:
			bad[d.Digest] = err.Error()
			continue
		}
		if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != d.Digest.Encoded() {
			bad[d.Digest] = "its blob hashes to sha256:" + hex.EncodeToString(sum[:])
			continue
		}
		var m ocispec.Manifest
		if json.Unmarshal(raw, &m) == nil && m.Subject != nil {
			subjects[d.Digest] = m.Subject.Digest
		}
	}
	for changed := true; changed; {
		changed = false
		for d, subject := range subjects {
			if _, isBad := bad[d]; isBad {
				continue
			}
			if why, subjectBad := bad[subject]; subjectBad {
				bad[d] = "it refers to manifest " + subject.String() + ", which " + why
				changed = true
			}
		}
	}
	return bad
}

// repair moves the bad entries of index.json to the corrupt list. It runs
// under the exclusive lock.
func (c *Cache) repair(index *ocispec.Index, bad map[digest.Digest]string) error {
	list, err := c.corruptEntries()
	if err != nil {
		return err
	}
	kept := index.Manifests[:0]
	for _, d := range index.Manifests {
		why, isBad := bad[d.Digest]
		if !isBad {
			kept = append(kept, d)
			continue
		}
		e := corruptEntry{Digest: d.Digest.String(), Ref: d.Annotations[ocispec.AnnotationRefName], Why: why}
		if !slices.Contains(list, e) {
			list = append(list, e)
		}
		if d.Digest.Validate() == nil {
			os.Remove(c.blobPath(d.Digest.Encoded()))
		}
	}
	index.Manifests = kept
	data, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(c.dir, corruptName), data); err != nil {
		return fmt.Errorf("plugin cache: %w", err)
	}
	data, err = json.Marshal(index)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(c.dir, ocispec.ImageIndexFile), data); err != nil {
		return fmt.Errorf("plugin cache: %w", err)
	}
	return nil
}

// corruptEntries reads the corrupt list (none when the file is missing or
// unreadable: it only informs).
func (c *Cache) corruptEntries() ([]corruptEntry, error) {
	data, err := os.ReadFile(filepath.Join(c.dir, corruptName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugin cache: %w", err)
	}
	var list []corruptEntry
	if json.Unmarshal(data, &list) != nil {
		return nil, nil
	}
	return list, nil
}

// forgetCorrupt empties the corrupt list (prune), returning what it held.
func (c *Cache) forgetCorrupt() ([]corruptEntry, error) {
	list, err := c.corruptEntries()
	if err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Join(c.dir, corruptName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("plugin cache: %w", err)
	}
	return list, nil
}

func writeFileAtomic(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

// corruptWhy says what was wrong with manifest d when the cache took it
// out of its index as corrupt, else "".
func (c *Cache) corruptWhy(d string) string {
	list, _ := c.corruptEntries()
	for _, e := range list {
		if e.Digest == d {
			return e.Why
		}
	}
	return ""
}
