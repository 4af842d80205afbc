package report

import (
	"crypto/sha256"
	"fmt"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
)

// A journal holds one record per case, except one written before run
// directories were locked: two runs into one directory interleaved their
// records, so a case can have two. Every report counts a case once, by the
// rule a resume follows (engine/run's LoadFinished): the first record of a
// case counts and later ones are ignored, and the reports say how many
// were. Counting both made a report of 200 cases say 369/369.

// caseSet remembers which cases have had their record. It holds a 128-bit
// digest per case key, not the record, so it stays small for long
// journals (tens of bytes a case) whatever the cases' outputs hold.
type caseSet map[[16]byte]struct{}

// first reports whether r is the first record of its case, and remembers
// the case.
func (s caseSet) first(r *result.CaseRecord) bool {
	sum := sha256.Sum256([]byte(r.Key()))
	var k [16]byte
	copy(k[:], sum[:])
	if _, seen := s[k]; seen {
		return false
	}
	s[k] = struct{}{}
	return true
}

// ReadUnique streams the records of the journal at path in order, each
// case once: a case's first record is passed to fn, later records of the
// same case are skipped. It returns how many were skipped.
func ReadUnique(path string, fn func(*result.CaseRecord) error) (int, error) {
	seen := caseSet{}
	skipped := 0
	err := journal.Read(path, func(r *result.CaseRecord) error {
		if !seen.first(r) {
			skipped++
			return nil
		}
		return fn(r)
	})
	return skipped, err
}

// DuplicateNote says how many duplicate records a report ignored; "" when
// none.
func DuplicateNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d duplicate journal record(s) ignored: the journal holds more than one record for some cases (two runs wrote it at once), and the first record of each case counts", n)
}
