package run

import (
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
)

// caseInfo is the record's compact view of a case: input file names, not
// their contents, so journal lines stay small.
func caseInfo(c *cases.Case) *result.CaseInfo {
	info := &result.CaseInfo{Arguments: c.Arguments, Stdin: c.Stdin, Env: c.Env,
		TimeoutS: c.Timeout.Seconds(), Reset: c.Reset, Source: c.Source}
	if info.Arguments == nil {
		info.Arguments = []string{}
	}
	if t := c.Task; t != nil {
		info.Instruction, info.Category, info.Tags, info.Apps = t.Instruction, t.Category, t.Tags, t.Apps
	}
	for _, f := range c.InputFiles {
		info.InputFiles = append(info.InputFiles, f.Path)
	}
	return info
}
