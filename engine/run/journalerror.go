package run

import "fmt"

// JournalError is a run stopped because its journal could not be written
// (a full disk): the run stopped at once, the journal holds Kept whole
// records and nothing partial, and a resumed run continues from them once
// the cause is gone.
type JournalError struct {
	Err  error // the journal's *journal.WriteError
	Path string
	Kept int // results in the journal, counting those of earlier sessions of a resumed run
}

func (e *JournalError) Error() string {
	return fmt.Sprintf("%v; the run stopped at once, with %d finished results kept in the journal", e.Err, e.Kept)
}

func (e *JournalError) Unwrap() error { return e.Err }
