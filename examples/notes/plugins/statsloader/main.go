//go:build wasip1

// Command statsloader is the notes problem's stateful loader plugin. It
// first hands out one POST /notes case per configured note; once those
// have run, it computes the expected GET /stats answer from what the server
// actually returned — notes it created (status 201) and the words of their
// bodies — so the statistics are checked against the server's own history.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -o ../notes-statsloader.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputJSON(abi.Describe{ABIVersion: abi.Version, Name: "notes-statsloader", Version: "1.0.0", Transport: abi.TransportStdio,
		Kinds: []string{abi.KindLoader}, Stateful: true,
		ConfigSchema: []byte(`{"type":"object","required":["notes"],"properties":{"notes":{"type":"array","items":{"type":"object","required":["title"],"properties":{"title":{"type":"string"},"body":{"type":"string"}}}}}}`),
		Description:  "Creates the configured notes, then expects GET /stats to count what the server created."})
	return 0
}

type note struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

//go:wasmexport load_cases
func loadCases() int32 {
	var in abi.LoadInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	raw, _ := json.Marshal(in.Config["notes"])
	var notes []note
	if err := json.Unmarshal(raw, &notes); err != nil {
		wasmeval.WriteOutput(abi.LoadOutput{Error: fmt.Sprintf("config.notes: %v", err)})
		return 0
	}
	if len(in.History) == 0 {
		out := abi.LoadOutput{}
		for i, n := range notes {
			out.Cases = append(out.Cases, abi.Case{
				ID: fmt.Sprintf("create_%d", i+1), Arguments: []string{},
				Request:  map[string]any{"method": "POST", "path": "/notes", "json": map[string]any{"title": n.Title, "body": n.Body}},
				Expected: map[string]any{"status_code": 201},
			})
		}
		wasmeval.WriteOutput(out)
		return 0
	}
	// Every create has run: count what the server says it stored.
	count, words := 0, 0
	for _, h := range in.History {
		if h.Actual.StatusCode != 201 {
			continue
		}
		var created note
		if json.Unmarshal([]byte(h.Actual.Output), &created) != nil {
			continue
		}
		count++
		words += len(strings.Fields(created.Body))
	}
	wasmeval.WriteOutput(abi.LoadOutput{Done: true, Cases: []abi.Case{{
		ID: "stats", Arguments: []string{},
		Request:  map[string]any{"method": "GET", "path": "/stats"},
		Expected: map[string]any{"status_code": 200, "output": map[string]any{"count": count, "words": words}},
	}}})
	return 0
}
