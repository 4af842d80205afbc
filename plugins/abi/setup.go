package abi

import "encoding/base64"

// SetupInput is the input of `setup`: a named setup function of a task
// spec with its arguments, and the task it prepares the sandbox for.
type SetupInput struct {
	ABIVersion int            `json:"abi_version"`
	Config     map[string]any `json:"config"`
	Function   string         `json:"function"`
	Arguments  map[string]any `json:"arguments"`
	Task       SetupTask      `json:"task"`
}

// SetupTask is the task a setup function prepares the sandbox for. Files
// are the task directory's files, relative to it with `/` separators, as
// read_asset takes them.
type SetupTask struct {
	ID          string   `json:"id"`
	Instruction string   `json:"instruction"`
	Files       []string `json:"files"`
}

// SetupOutput is the output of `setup`: the actions that prepare the
// sandbox, which wasmeval performs in order (a setup plugin never touches
// the sandbox itself). Error, when set, says the function could not
// prepare this task (bad arguments, a missing task file): the task cannot
// run, and the message says why; it is not a plugin fault.
type SetupOutput struct {
	Actions []SetupAction `json:"actions"`
	Error   string        `json:"error,omitempty"`
}

// SetupAction is one action: exactly one of Write and Run.
type SetupAction struct {
	Write *SetupWrite `json:"write,omitempty"`
	Run   *SetupRun   `json:"run,omitempty"`
}

// SetupWrite writes a file into the sandbox. Path is relative to the
// sandbox's working directory, `/`-separated, and stays inside it (no
// `..`, not absolute). The file's bytes are Content (text) or
// ContentBase64 (any bytes, base64), at most one of them; neither is an
// empty file.
type SetupWrite struct {
	Path          string `json:"path"`
	Content       string `json:"content,omitempty"`
	ContentBase64 string `json:"content_base64,omitempty"`
}

// Bytes returns the bytes the write puts in its file.
func (w *SetupWrite) Bytes() ([]byte, error) {
	if w.ContentBase64 != "" {
		return base64.StdEncoding.DecodeString(w.ContentBase64)
	}
	return []byte(w.Content), nil
}

// SetupRun runs a command in the sandbox's working directory, once the
// files written before it are there; it must exit 0. Command is the
// program and its arguments, not a shell line (use ["sh", "-c", "…"] for
// one).
type SetupRun struct {
	Command []string `json:"command"`
}

// Limits of a setup output, checked by the host: more actions, or more
// bytes written in all, is a fault of the plugin.
const (
	MaxSetupActions = 256
	MaxSetupBytes   = 16 << 20
)
