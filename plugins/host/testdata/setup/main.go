//go:build wasip1

// Command setup is a setup plugin (native transport) that does whatever
// its config's mode asks — answer, trap, loop forever, eat memory, return
// garbage or actions outside the limits — so the host's containment of
// the setup kind is tested against a real module.
package main

import (
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

var sink [][]byte

func main() {}

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "setup-misbehave", Version: "1.0.0",
		Kinds: []string{abi.KindSetup}, Functions: wasmeval.SetupFunctionNames(functions)})
}

// functions are the well-behaved setup functions.
var functions = map[string]wasmeval.SetupFunction{
	"prepare": func(in *wasmeval.SetupInput) (*wasmeval.SetupOutput, error) {
		name, _ := in.Arguments["name"].(string)
		return &wasmeval.SetupOutput{Actions: []wasmeval.SetupAction{
			wasmeval.WriteFile("data/"+name+".txt", "task "+in.Task.ID+": "+strings.Join(in.Task.Files, ",")),
			wasmeval.WriteBytes("data/blob.bin", []byte{0, 1, 2, 0xff}),
			wasmeval.RunCommand("sh", "-c", "wc -c data/"+name+".txt"),
		}}, nil
	},
	// copy_asset writes a task file, read through read_asset, into the
	// sandbox.
	"copy_asset": func(in *wasmeval.SetupInput) (*wasmeval.SetupOutput, error) {
		from, _ := in.Arguments["from"].(string)
		data, ok := wasmeval.ReadAsset(from)
		if !ok {
			return &wasmeval.SetupOutput{Error: "cannot read task file " + from}, nil
		}
		return &wasmeval.SetupOutput{Actions: []wasmeval.SetupAction{wasmeval.WriteBytes(from, data)}}, nil
	},
}

//go:wasmexport setup
func setup() int32 {
	return wasmeval.ServeRaw(func(dst, input []byte) ([]byte, error) {
		in, err := wasmeval.DecodeSetupInput(input)
		if err != nil {
			return nil, err
		}
		mode, _ := in.Config["mode"].(string)
		var actions []wasmeval.SetupAction
		switch mode {
		case "":
			return wasmeval.HandleSetup(input, functions)
		case "trap":
			var m map[string]int
			m["boom"] = 1 // nil map write: a Go panic, a Wasm trap
		case "loop":
			for {
			}
		case "oom":
			for {
				sink = append(sink, make([]byte, 8<<20))
			}
		case "badjson":
			return append(dst, "{not json"...), nil
		case "badenvelope":
			return append(dst, `{"actions": [{"copy": {"from": "a", "to": "b"}}]}`...), nil
		case "both":
			return append(dst, `{"actions": [{"write": {"path": "a", "content": "x"}, "run": {"command": ["true"]}}]}`...), nil
		case "emptylist":
			return append(dst, `{"actions": [{"run": {"command": []}}]}`...), nil
		case "fail":
			return nil, fmt.Errorf("refusing on purpose")
		case "many":
			for i := 0; i <= abi.MaxSetupActions; i++ {
				actions = append(actions, wasmeval.RunCommand("true"))
			}
		case "big":
			mib := strings.Repeat("x", 1<<20)
			for i := 0; i < 17; i++ {
				actions = append(actions, wasmeval.WriteFile(fmt.Sprintf("big%d", i), mib))
			}
		case "badbase64":
			actions = append(actions, wasmeval.SetupAction{Write: &wasmeval.SetupWrite{Path: "b.bin", ContentBase64: "not base64!"}})
		case "emptycommand":
			actions = append(actions, wasmeval.RunCommand("", "x"))
		default: // a path to write: "../x", "/etc/passwd", …
			actions = append(actions, wasmeval.WriteFile(mode, "x"))
		}
		return wasmeval.AppendJSON(dst, &wasmeval.SetupOutput{Actions: actions})
	})
}
