//go:build wasip1

// Command setup is a setup plugin written with the Go SDK's setup
// package, for the tests of SetupSteps.
package main

import (
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/setup"
)

func main() {}

func init() {
	setup.Serve(map[string]func(*wasmeval.SetupInput) (*wasmeval.SetupOutput, error){
		"seed": seed,
		"refuse": func(in *wasmeval.SetupInput) (*wasmeval.SetupOutput, error) {
			return &wasmeval.SetupOutput{Error: "cannot seed task " + in.Task.ID}, nil
		},
	})
}

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "seeder", Version: "1.0.0", Kinds: []string{abi.KindSetup}})
}

// seed copies the task file its arguments name into the sandbox, writes a
// manifest of the task's files, runs a command, then writes a last file.
func seed(in *wasmeval.SetupInput) (*wasmeval.SetupOutput, error) {
	from, _ := in.Arguments["from"].(string)
	data, ok := wasmeval.ReadAsset(from)
	if !ok {
		return &wasmeval.SetupOutput{Error: "no task file " + from}, nil
	}
	return &wasmeval.SetupOutput{Actions: []wasmeval.SetupAction{
		wasmeval.WriteBytes("data/"+from, data),
		wasmeval.WriteFile("./manifest.txt", in.Task.ID+": "+strings.Join(in.Task.Files, " ")),
		wasmeval.RunCommand("sh", "-c", "wc -l data/"+from),
		wasmeval.WriteFile("done.flag", ""),
	}}, nil
}
