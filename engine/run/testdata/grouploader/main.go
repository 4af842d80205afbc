//go:build wasip1

// Command grouploader is a loader plugin that tells what it was asked: it
// returns one case whose environment holds the group it was given — the
// group being run, where its cases come from, their directory — the
// note.txt it reads from that directory with read_asset, and its config's
// mode. The case sets no arguments, so the group's case_defaults give
// them.
package main

import (
	"encoding/json"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

//go:wasmimport extism:host/user read_asset
func readAsset(uint64) uint64

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputJSON(abi.Describe{ABIVersion: abi.Version, Name: "grouploader", Version: "1.0.0", Kinds: []string{abi.KindLoader}})
	return 0
}

//go:wasmexport load_cases
func loadCases() int32 {
	var in abi.LoadInput
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.SetError(err)
		return 1
	}
	note := "refused"
	mem := pdk.AllocateString(in.Group.Dir + "/note.txt")
	if off := readAsset(mem.Offset()); off != 0 {
		m := pdk.FindMemory(off)
		note = string(m.ReadBytes())
	}
	g := in.Group
	mode, _ := in.Config["mode"].(string)
	// A map, not an abi.Case: the case leaves `arguments` out.
	c := map[string]any{"id": "only", "expected": map[string]any{"status_code": 0}, "env": map[string]string{
		"CHECKPOINT": g.Checkpoint, "GROUP": g.Group, "CASE_GROUP": g.CaseGroup,
		"ORIGIN_CHECKPOINT": g.OriginCheckpoint, "ORIGIN_GROUP": g.OriginGroup, "DIR": g.Dir,
		"NOTE": note, "MODE": mode,
	}}
	pdk.OutputJSON(map[string]any{"cases": []any{c}, "done": true})
	return 0
}
