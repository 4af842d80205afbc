package host

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Setup calls a named setup function: the plugin returns the actions that
// prepare the task's sandbox (files to write, commands to run), which the
// caller performs; the plugin never touches the sandbox. The actions are
// held to the limits (at most abi.MaxSetupActions actions and
// abi.MaxSetupBytes written, paths relative and inside the sandbox, no
// empty command); anything else is a FaultSetupActions fault. An error
// the plugin reports in the envelope (out.Error) is its answer, left for
// the caller to word; the actions are not checked then, and are not to be
// performed.
func (p *Plugin) Setup(ctx context.Context, in abi.SetupInput, opts CallOptions) (abi.SetupOutput, error) {
	var out abi.SetupOutput
	if err := p.call(ctx, abi.KindSetup, setupInput(in), &out, opts, nil); err != nil {
		return abi.SetupOutput{}, err
	}
	if out.Error != "" {
		return out, nil
	}
	if err := p.checkSetup(&out); err != nil {
		return abi.SetupOutput{}, err
	}
	return out, nil
}

// setupInput is the setup envelope as the schema has it: the ABI version
// set, objects and lists where it promises them.
func setupInput(in abi.SetupInput) abi.SetupInput {
	in.ABIVersion = abi.Version
	in.Config = nonNil(in.Config)
	in.Arguments = nonNil(in.Arguments)
	if in.Task.Files == nil {
		in.Task.Files = []string{}
	}
	return in
}

// checkSetup holds a setup output's actions to the limits.
func (p *Plugin) checkSetup(out *abi.SetupOutput) error {
	fault := func(format string, a ...any) error {
		return &Error{Plugin: p.Label(), Export: abi.Exports[abi.KindSetup], Fault: FaultSetupActions, Detail: fmt.Sprintf(format, a...)}
	}
	if n := len(out.Actions); n > abi.MaxSetupActions {
		return fault("%d actions, at most %d are accepted", n, abi.MaxSetupActions)
	}
	total := 0
	for i, a := range out.Actions {
		switch {
		case (a.Write == nil) == (a.Run == nil):
			return fault("actions[%d] is not exactly one of write and run", i)
		case a.Write != nil:
			w := a.Write
			if err := sandboxPathError(w.Path); err != nil {
				return fault("actions[%d].write.path %q %v", i, w.Path, err)
			}
			if w.Content != "" && w.ContentBase64 != "" {
				return fault("actions[%d].write has both content and content_base64", i)
			}
			n := len(w.Content)
			if w.ContentBase64 != "" {
				data, err := base64.StdEncoding.DecodeString(w.ContentBase64)
				if err != nil {
					return fault("actions[%d].write.content_base64 is not base64: %v", i, err)
				}
				n = len(data)
			}
			if total += n; total > abi.MaxSetupBytes {
				return fault("the writes up to actions[%d] (%s) total more than the %s accepted", i, w.Path, sizeLabel(abi.MaxSetupBytes))
			}
		default:
			cmd := a.Run.Command
			if len(cmd) == 0 || strings.TrimSpace(cmd[0]) == "" {
				return fault("actions[%d].run.command is empty: it names no program", i)
			}
			for j, word := range cmd {
				if strings.ContainsRune(word, 0) {
					return fault("actions[%d].run.command[%d] contains a NUL byte", i, j)
				}
			}
		}
	}
	return nil
}

// sandboxPathError says why p cannot name a file inside the sandbox, or
// returns nil: it must be relative, `/`-separated, name no parent (`..`)
// and not be the working directory itself.
func sandboxPathError(p string) error {
	switch {
	case p == "":
		return errors.New("is empty")
	case strings.ContainsRune(p, 0):
		return errors.New("contains a NUL byte")
	case strings.HasPrefix(p, "/"):
		return errors.New("is absolute: paths are relative to the sandbox's working directory")
	case strings.Contains(p, `\`):
		return errors.New(`contains \: paths are /-separated`)
	case len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'):
		return errors.New("starts with a drive letter: paths are relative to the sandbox's working directory")
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return errors.New("leaves the sandbox (..)")
		}
	}
	if path.Clean(p) == "." {
		return errors.New("names the working directory, not a file")
	}
	return nil
}
