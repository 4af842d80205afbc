package report

import (
	"crypto/sha256"
	"fmt"
	"runtime"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
)

// A journal holds a record per case and epoch — more than one when a case
// was tried again after an error (--retry-errors: every attempt is kept)
// — and, in a journal written before run directories were locked, also
// records two runs wrote for the same case. Every report counts each
// case's epoch once, by the rule a resume follows (engine/run's
// LoadFinished): the record of its last attempt counts, and of two
// records of the same attempt the first; the reports say how many such
// duplicates were ignored. Counting both made a report of 200 cases say
// 369/369.

// tryKey names one attempt of one epoch of a case: a 128-bit digest, not
// the key itself, so an index of a long journal stays small (tens of
// bytes a case).
type tryKey [16]byte

func tryKeyOf(key string, epoch int) tryKey {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", key, max(epoch, 1)))
	var k tryKey
	copy(k[:], sum[:])
	return k
}

// counting is which record counts for each epoch of each case.
type counting struct {
	last       map[tryKey]countingRecord
	duplicates int
	retried    bool // some case has more than one attempt
}

type countingRecord struct {
	attempt int
	offset  int64
}

// indexCounting reads the journal's heads once and finds the record that
// counts for each case's epoch.
func indexCounting(path string) (*counting, error) {
	c := &counting{last: map[tryKey]countingRecord{}}
	err := journal.ReadHeads(path, runtime.GOMAXPROCS(0), func(h journal.Head, _ []byte) journal.Head { return h },
		func(h journal.Head, off int64, _ int) error {
			k := tryKeyOf(problem.CaseKey(h.Checkpoint, h.Group, h.ID), h.Epoch)
			prev, seen := c.last[k]
			switch {
			case !seen:
			case h.Attempt == prev.attempt:
				c.duplicates++
				return nil
			case h.Attempt < prev.attempt:
				c.retried = true
				return nil
			default:
				c.retried = true
			}
			c.last[k] = countingRecord{attempt: h.Attempt, offset: off}
			return nil
		})
	return c, err
}

// ReadUnique streams the records of the journal at path in order, each
// case's epoch once: the record of its last attempt is passed to fn, and
// earlier attempts and duplicates are skipped. It returns how many
// duplicates (records of an attempt that already had one) were skipped.
func ReadUnique(path string, fn func(*result.CaseRecord) error) (int, error) {
	c, err := indexCounting(path)
	if err != nil {
		return 0, err
	}
	err = journal.ReadOffsets(path, func(r *result.CaseRecord, off int64) error {
		if c.last[tryKeyOf(r.Key(), r.Epoch)].offset != off {
			return nil
		}
		return fn(r)
	})
	return c.duplicates, err
}

// ReadEveryAttempt streams every attempt of every case's epochs, in
// order — the record that counts and those a retry replaced — each once:
// a duplicate record of an attempt is skipped. It returns how many were.
func ReadEveryAttempt(path string, fn func(*result.CaseRecord) error) (int, error) {
	seen := map[tryKey]struct{}{}
	skipped := 0
	err := journal.Read(path, func(r *result.CaseRecord) error {
		k := tryKeyOf(fmt.Sprintf("%s\x00%d", r.Key(), max(r.Attempt, 1)), r.Epoch)
		if _, dup := seen[k]; dup {
			skipped++
			return nil
		}
		seen[k] = struct{}{}
		return fn(r)
	})
	return skipped, err
}

// readLastAttempts streams the records of each case's last attempts, in
// order: the record that counts and any duplicates of it (a builder counts
// the first and tallies the others), not the attempts a retry replaced.
func readLastAttempts(path string, fn func(*result.CaseRecord) error) error {
	c, err := indexCounting(path)
	if err != nil {
		return err
	}
	return journal.Read(path, func(r *result.CaseRecord) error {
		if c.last[tryKeyOf(r.Key(), r.Epoch)].attempt != max(r.Attempt, 1) {
			return nil
		}
		return fn(r)
	})
}

// DuplicateNote says how many duplicate records a report ignored; "" when
// none.
func DuplicateNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d duplicate journal record(s) ignored: the journal holds more than one record for some cases (two runs wrote it at once), and the first record of each case counts", n)
}
