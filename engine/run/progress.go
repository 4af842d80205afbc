package run

import (
	"strconv"

	"github.com/wasmeval/wasmeval/engine/result"
)

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

// GroupLabel is how progress names a group's epoch: the group's name, and
// "(epoch N)" after it for a run with --epochs. Progress calls about
// groups pass it; a case record's group and epoch give it back.
func GroupLabel(group string, epoch int) string {
	if epoch < 1 {
		return group
	}
	return group + " (epoch " + strconv.Itoa(epoch) + ")"
}

type nopProgress struct{}

func (nopProgress) GroupStarted(string, string, int)  {}
func (nopProgress) CaseFinished(*result.CaseRecord)   {}
func (nopProgress) GroupFinished(string, string)      {}
func (nopProgress) GroupError(string, string, string) {}
