package run

import "github.com/wasmeval/wasmeval/engine/result"

// Progress receives run events as they happen. Implementations must be safe
// for concurrent use: groups run in parallel.
type Progress interface {
	// GroupStarted is called when a group begins; total is -1 when unknown.
	GroupStarted(checkpoint, group string, total int)
	CaseFinished(rec *result.CaseRecord)
	GroupFinished(checkpoint, group string)
	GroupError(checkpoint, group, msg string)
}

// RetryProgress is a Progress that also hears of attempts that ended in an
// error and run again (--retry-errors). CaseFinished hears only of each
// case's last attempt.
type RetryProgress interface {
	Progress
	CaseRetried(rec *result.CaseRecord)
}

type nopProgress struct{}

func (nopProgress) GroupStarted(string, string, int)  {}
func (nopProgress) CaseFinished(*result.CaseRecord)   {}
func (nopProgress) GroupFinished(string, string)      {}
func (nopProgress) GroupError(string, string, string) {}
