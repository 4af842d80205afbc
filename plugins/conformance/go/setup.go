//go:build wasip1

package main

import (
	"strings"

	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/setup"
)

// The reference plugin is also a setup plugin, held to the setup vectors
// (vectors/setup) like the Rust and AssemblyScript ones.
func init() {
	setup.Serve(map[string]func(*wasmeval.SetupInput) (*wasmeval.SetupOutput, error){
		"write_and_run": writeAndRun,
		"refuse":        refuseSetup,
	})
}

// writeAndRun writes arguments.content at arguments.path, the same bytes
// followed by two that are not UTF-8 at path + ".bin", a summary of the
// task at task.txt, then runs arguments.command.
func writeAndRun(in *wasmeval.SetupInput) (*wasmeval.SetupOutput, error) {
	if err := common(in.Config); err != nil {
		return nil, err
	}
	path, content := str(in.Arguments, "path"), str(in.Arguments, "content")
	var command []string
	if words, ok := in.Arguments["command"].([]any); ok {
		for _, w := range words {
			s, _ := w.(string)
			command = append(command, s)
		}
	}
	return &wasmeval.SetupOutput{Actions: []wasmeval.SetupAction{
		wasmeval.WriteFile(path, content),
		wasmeval.WriteBytes(path+".bin", append([]byte(content), 0xff, 0x00)),
		wasmeval.WriteFile("task.txt", in.Task.ID+"\n"+in.Task.Instruction+"\n"+strings.Join(in.Task.Files, "\n")),
		wasmeval.RunCommand(command...),
	}}, nil
}

// refuseSetup cannot prepare any task, and says so.
func refuseSetup(in *wasmeval.SetupInput) (*wasmeval.SetupOutput, error) {
	return &wasmeval.SetupOutput{Error: "cannot prepare task " + quote(in.Task.ID)}, nil
}
