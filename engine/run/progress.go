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

type nopProgress struct{}

func (nopProgress) GroupStarted(string, string, int)  {}
func (nopProgress) CaseFinished(*result.CaseRecord)   {}
func (nopProgress) GroupFinished(string, string)      {}
func (nopProgress) GroupError(string, string, string) {}
