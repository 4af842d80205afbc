package plugincall

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// SetupTask is the task a setup plugin's function prepares the sandbox
// for, and how its steps are named.
type SetupTask struct {
	ID          string
	Instruction string
	// Dir is the task directory: its regular files are listed in the
	// call's task.files and the plugin reads them through read_asset.
	// Empty means no files.
	Dir string
	// Config is the plugin binding's config (nil for none).
	Config map[string]any
	// Name names the steps in messages ("config[1] seed_db"); the
	// function's name when empty.
	Name string
}

// SetupError is a setup function's own refusal (the output's error): the
// task cannot be prepared, and Message says why. It is not a plugin fault.
type SetupError struct {
	Plugin, Function, Message string
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("setup function %s of plugin %s: %s", e.Function, e.Plugin, e.Message)
}

// MaxSetupTaskFiles caps the task files listed in a setup call.
const MaxSetupTaskFiles = 10000

// SetupSteps calls a setup plugin's function and turns the actions it
// returns into sandbox steps, in order: each run of writes becomes a step's
// Files (with their content), and the command that follows them that
// step's Command; writes after the last command make a last step of files
// only. The host has held the actions to the ABI's limits (paths inside
// the sandbox, at most abi.MaxSetupActions actions and abi.MaxSetupBytes
// written). A plugin fault comes back as *host.Error, the function's own
// refusal as *SetupError.
func SetupSteps(ctx context.Context, p *host.Plugin, function string, args map[string]any, task SetupTask) ([]cases.SetupStep, error) {
	files, err := taskFiles(task.Dir)
	if err != nil {
		return nil, err
	}
	in := abi.SetupInput{Config: task.Config, Function: function, Arguments: args,
		Task: abi.SetupTask{ID: task.ID, Instruction: task.Instruction, Files: files}}
	out, err := p.Setup(ctx, in, host.CallOptions{Assets: ProblemAssets(task.Dir)})
	if err != nil {
		return nil, err
	}
	if out.Error != "" {
		return nil, &SetupError{Plugin: p.Label(), Function: function, Message: out.Error}
	}
	return setupSteps(out.Actions, cmp.Or(task.Name, function))
}

// setupSteps groups actions into steps named after name and, when there
// are several, the action that ends each.
func setupSteps(actions []abi.SetupAction, name string) ([]cases.SetupStep, error) {
	var steps []cases.SetupStep
	var ends []int
	var pending []cases.InputFile
	for i, a := range actions {
		switch {
		case a.Write != nil:
			data, err := a.Write.Bytes()
			if err != nil {
				return nil, fmt.Errorf("%s: actions[%d]: %w", name, i, err)
			}
			if data == nil {
				data = []byte{}
			}
			pending = append(pending, cases.InputFile{Path: path.Clean(a.Write.Path), Content: data})
		case a.Run != nil:
			steps = append(steps, cases.SetupStep{Files: pending, Command: slices.Clone(a.Run.Command)})
			ends = append(ends, i)
			pending = nil
		}
	}
	if len(pending) > 0 {
		steps = append(steps, cases.SetupStep{Files: pending})
		ends = append(ends, len(actions)-1)
	}
	for k := range steps {
		steps[k].Name = name
		if len(steps) > 1 {
			steps[k].Name = fmt.Sprintf("%s actions[%d]", name, ends[k])
		}
	}
	return steps, nil
}

// taskFiles lists the regular files of dir, relative, `/`-separated and
// sorted; symbolic links and what is under them are left out.
func taskFiles(dir string) ([]string, error) {
	files := []string{}
	if dir == "" {
		return files, nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if len(files) == MaxSetupTaskFiles {
			return errTooManyFiles
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if errors.Is(err, errTooManyFiles) {
		return nil, fmt.Errorf("task directory %s has more than %d files", dir, MaxSetupTaskFiles)
	}
	if err != nil {
		return nil, fmt.Errorf("task directory: %w", err)
	}
	slices.Sort(files)
	return files, nil
}

var errTooManyFiles = errors.New("too many files")
