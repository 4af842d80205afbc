package wasmeval

import (
	"encoding/base64"
	"slices"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The setup envelopes: a setup function of a task spec, its arguments and
// the task in; the actions that prepare the sandbox out (files to write,
// commands to run), which wasmeval performs.
type (
	SetupInput  = abi.SetupInput
	SetupOutput = abi.SetupOutput
	SetupTask   = abi.SetupTask
	SetupAction = abi.SetupAction
	SetupWrite  = abi.SetupWrite
	SetupRun    = abi.SetupRun
)

// SetupFunction is one setup function of a setup plugin. A plugin serves
// several, by name (the setup package); each returns the actions, or an
// output with Error set when it cannot prepare the task (the task then
// cannot run), or an error when the call itself fails.
type SetupFunction = func(*SetupInput) (*SetupOutput, error)

// WriteFile is the action that writes text into the sandbox at path
// (relative to its working directory, `/`-separated).
func WriteFile(path, content string) SetupAction {
	return SetupAction{Write: &SetupWrite{Path: path, Content: content}}
}

// WriteBytes is the action that writes bytes, of any kind, into the
// sandbox at path (sent base64).
func WriteBytes(path string, data []byte) SetupAction {
	w := &SetupWrite{Path: path}
	if len(data) > 0 {
		w.ContentBase64 = base64.StdEncoding.EncodeToString(data)
	}
	return SetupAction{Write: w}
}

// RunCommand is the action that runs a program with its arguments in the
// sandbox's working directory (no shell: RunCommand("sh", "-c", line) for
// one). It must exit 0.
func RunCommand(command ...string) SetupAction {
	return SetupAction{Run: &SetupRun{Command: command}}
}

// HandleSetup runs the function of fns that a setup input envelope names.
// A name fns does not have is answered with an output whose error says so
// (the task cannot run), not with a failed call.
func HandleSetup(input []byte, fns map[string]SetupFunction) ([]byte, error) {
	return handleSetup(nil, input, fns)
}

func handleSetup(dst, input []byte, fns map[string]SetupFunction) ([]byte, error) {
	v, err := parseEnvelope(input)
	if err != nil {
		return nil, inputError(err)
	}
	in, err := setupInputOf(v)
	if err != nil {
		return nil, inputError(err)
	}
	fn, ok := fns[in.Function]
	if !ok || fn == nil {
		return AppendJSON(dst, setupValue(&SetupOutput{Error: UnknownSetupFunction(in.Function, SetupFunctionNames(fns))}))
	}
	out, err := fn(in)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = &SetupOutput{}
	}
	return AppendJSON(dst, setupValue(out))
}

// UnknownSetupFunction is the error every SDK answers a setup call with
// when the plugin has no function of that name: `unknown setup function
// "name" (functions: a, b)`.
func UnknownSetupFunction(name string, have []string) string {
	return "unknown setup function " + string(AppendQuoted(nil, name)) + " (functions: " + strings.Join(have, ", ") + ")"
}

// SetupFunctionNames lists the names of fns, sorted.
func SetupFunctionNames(fns map[string]SetupFunction) []string {
	names := make([]string, 0, len(fns))
	for name, fn := range fns {
		if fn != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// DecodeSetupInput parses a setup input envelope.
func DecodeSetupInput(data []byte) (*SetupInput, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return setupInputOf(v)
}

// setupInputOf decodes a parsed setup input envelope.
func setupInputOf(v any) (*SetupInput, error) {
	d := &decoder{}
	m := d.top(v)
	in := &SetupInput{ABIVersion: d.integer(root("$.abi_version"), m["abi_version"]), Config: d.obj(root("$.config"), m["config"]),
		Function: d.str(root("$.function"), m["function"]), Arguments: d.obj(root("$.arguments"), m["arguments"])}
	if t := d.obj(root("$.task"), m["task"]); t != nil {
		in.Task = SetupTask{ID: d.str(root("$.task.id"), t["id"]), Instruction: d.str(root("$.task.instruction"), t["instruction"]),
			Files: d.strs(root("$.task.files"), t["files"])}
	}
	return in, d.err
}

// setupValue is a setup output in the shared value model, written
// canonically like every envelope: actions always a list, a write's
// content always present unless it is base64, error left out when empty.
func setupValue(out *SetupOutput) map[string]any {
	actions := make([]any, len(out.Actions))
	for i, a := range out.Actions {
		am := map[string]any{}
		if w := a.Write; w != nil {
			wm := map[string]any{"path": w.Path}
			if w.ContentBase64 != "" {
				wm["content_base64"] = w.ContentBase64
			} else {
				wm["content"] = w.Content
			}
			am["write"] = wm
		}
		if r := a.Run; r != nil {
			cmd := r.Command
			if cmd == nil {
				cmd = []string{}
			}
			am["run"] = map[string]any{"command": cmd}
		}
		actions[i] = am
	}
	m := map[string]any{"actions": actions}
	putStr(m, "error", out.Error)
	return m
}
