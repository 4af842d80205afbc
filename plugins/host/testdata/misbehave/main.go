//go:build wasip1

// Command misbehave is a plugin that does whatever its config asks —
// answer correctly, trap, loop forever, eat memory, return garbage — so the
// host's fault isolation can be tested against a real module.
package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

//go:wasmimport extism:host/user read_asset
func readAsset(uint64) uint64

var sink [][]byte

// abiOverride is set with -ldflags "-X main.abiOverride=99" to build a
// plugin that claims an ABI version the host does not speak, and
// transport with -X main.transport=native one that claims a transport it
// does not speak.
var abiOverride string

var transport = abi.TransportStdio

// batchLie is set with -X main.batchLie=1 to build a plugin whose describe
// lists evaluate under batch without exporting evaluate_batch.
var batchLie string

func main() {}

//go:wasmexport describe
func describe() int32 {
	kinds := []string{abi.KindVerifier, abi.KindEvaluator, abi.KindTest, abi.KindLoader}
	version := abi.Version
	if abiOverride != "" {
		fmt.Sscan(abiOverride, &version)
	}
	batch := []string{"verify"}
	if batchLie != "" {
		batch = append(batch, "evaluate")
	}
	pdk.OutputJSON(abi.Describe{ABIVersion: version, Name: "misbehave", Version: "1.0.0", Transport: transport, Kinds: kinds,
		Functions: []string{"echo"}, Batch: batch})
	return 0
}

//go:wasmexport verify
func verify() int32 {
	var in abi.VerifyInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	mode, _ := in.Config["mode"].(string)
	if m, ok := in.Case.Extra["mode"].(string); ok {
		mode = m // a case can pick its own misbehaviour
	}
	switch mode {
	case "trap":
		var m map[string]int
		m["boom"] = 1 // nil map write: a Go panic, a Wasm trap
	case "loop":
		for {
		}
	case "floodpanic":
		for i := 0; i < 40000; i++ { // about 2 MB on stderr, then a panic
			fmt.Fprintf(os.Stderr, "debug line %d of a plugin that prints as it goes\n", i)
		}
		panic("gave up after case " + in.Case.ID)
	case "noattrs":
		os.Stdout.WriteString(`{"attributes": []}`)
		return 0
	case "bigweight":
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "heavy", IsCorrect: true, Weight: 7, Actual: "x", Expected: "x"}}})
		return 0
	case "oom":
		for {
			sink = append(sink, make([]byte, 8<<20))
		}
	case "badjson":
		os.Stdout.WriteString("{not json")
		return 0
	case "badenvelope":
		os.Stdout.WriteString(`{"attributes": [{"attribute": "", "is_correct": "yes"}]}`)
		return 0
	case "fail":
		pdk.SetErrorString("refusing on purpose")
		return 1
	case "verdict":
		wasmeval.WriteOutput(abi.VerifyOutput{Error: "cannot verify this output"})
		return 0
	case "bigdiff":
		d := &abi.Diff{Summary: "10000 lines differ"}
		for i := 0; i < 10000; i++ {
			d.Entries = append(d.Entries, abi.DiffEntry{Path: fmt.Sprintf("line %d", i+1), Op: "changed", Expected: "a", Actual: "b"})
		}
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "output", Actual: "b", Expected: "a", Weight: 1, Diff: d}}})
		return 0
	case "manyattrs":
		n, _ := in.Config["attributes"].(float64)
		if m, ok := in.Case.Extra["attributes"].(float64); ok {
			n = m
		}
		attrs := make([]abi.Attribute, int(n))
		for i := range attrs {
			attrs[i] = abi.Attribute{Attribute: fmt.Sprintf("attr%d", i), IsCorrect: true, Weight: 1, Actual: "x", Expected: "x"}
		}
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: attrs})
		return 0
	case "http":
		url, _ := in.Config["url"].(string)
		res := pdk.NewHTTPRequest(pdk.MethodGet, url).Send()
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "http", IsCorrect: true, Weight: 1, Actual: int(res.Status())}}})
		return 0
	case "env":
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "env", IsCorrect: true, Weight: 1, Actual: fmt.Sprint(os.Environ(), len(os.Args))}}})
		return 0
	case "fs":
		_, err := os.ReadFile("/etc/passwd")
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "fs", IsCorrect: true, Weight: 1, Actual: fmt.Sprint(err)}}})
		return 0
	case "log":
		pdk.Log(pdk.LogInfo, "checked case "+in.Case.ID)
	case "logflood":
		pdk.Log(pdk.LogWarn, strings.Repeat("long ", 2000)) // 10,000 bytes in one line
		for i := 0; i < 20000; i++ {
			pdk.Log(pdk.LogInfo, fmt.Sprintf("line %d of a plugin that logs in a loop", i))
		}
	case "clock":
		b := make([]byte, 8)
		rand.Read(b)
		t0 := time.Now()
		time.Sleep(3 * time.Millisecond) // a sleep moves the sandbox's clock by exactly that
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "clock", IsCorrect: true, Weight: 1,
			Actual: fmt.Sprintf("%d %x %d", t0.UnixNano(), b, time.Since(t0).Nanoseconds())}}})
		return 0
	case "asset":
		path, _ := in.Config["path"].(string)
		mem := pdk.AllocateString(path)
		off := readAsset(mem.Offset())
		got := "refused"
		if off != 0 {
			m := pdk.FindMemory(off)
			got = string(m.ReadBytes())
		}
		wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "asset", IsCorrect: off != 0, Weight: 1, Actual: got}}})
		return 0
	}
	wasmeval.WriteOutput(abi.VerifyOutput{Attributes: []abi.Attribute{{
		Attribute: "output", Actual: in.Actual.Output, Expected: in.Expected["output"],
		IsCorrect: in.Actual.Output == in.Expected["output"], Weight: 1,
	}}})
	return 0
}

// verifyBatch answers a batch of verify calls. Each call's mode (its
// config's, or its case's extra) is one of the single call's: ok (the
// default), verdict, fail, trap or loop — a trap or a loop faults the whole
// batch. The first call's config "batch" makes the batch output lie:
// "short" drops the last result, "swap" swaps the first two, "both" gives
// the first an output and an error, "garbage" is not JSON.
//
//go:wasmexport verify_batch
func verifyBatch() int32 {
	var in struct {
		Calls []abi.VerifyInput `json:"calls"`
	}
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	var results []map[string]any
	for i, c := range in.Calls {
		mode, _ := c.Config["mode"].(string)
		if m, ok := c.Case.Extra["mode"].(string); ok {
			mode = m
		}
		r := map[string]any{"call": i}
		switch mode {
		case "trap":
			var m map[string]int
			m["boom"] = 1
		case "loop":
			for {
			}
		case "fail":
			r["error"] = "refusing on purpose"
		case "verdict":
			r["output"] = abi.VerifyOutput{Error: "cannot verify this output"}
		default:
			r["output"] = abi.VerifyOutput{Attributes: []abi.Attribute{{
				Attribute: "output", Actual: c.Actual.Output, Expected: c.Expected["output"],
				IsCorrect: c.Actual.Output == c.Expected["output"], Weight: 1,
			}}}
		}
		results = append(results, r)
	}
	lie := ""
	if len(in.Calls) > 0 {
		lie, _ = in.Calls[0].Config["batch"].(string)
	}
	switch lie {
	case "short":
		results = results[:len(results)-1]
	case "swap":
		results[0], results[1] = results[1], results[0]
	case "both":
		results[0]["error"] = "and an error"
	case "garbage":
		os.Stdout.WriteString(`{"results": [`)
		return 0
	}
	wasmeval.WriteOutput(map[string]any{"results": results})
	return 0
}

//go:wasmexport evaluate
func evaluate() int32 {
	var in abi.EvaluateInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	score, _ := in.Arguments["score"].(float64)
	wasmeval.WriteOutput(abi.EvaluateOutput{Score: score, Details: map[string]any{"function": in.Function}})
	return 0
}

//go:wasmexport test
func test() int32 {
	var in abi.TestInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	wasmeval.WriteOutput(abi.TestOutput{Passed: in.Result.Status == "completed", Feedback: "status " + in.Result.Status})
	return 0
}

//go:wasmexport load_cases
func loadCases() int32 {
	var in abi.LoadInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	n := len(in.History)
	if n == 3 {
		wasmeval.WriteOutput(abi.LoadOutput{Cases: []abi.Case{}, Done: true})
		return 0
	}
	wasmeval.WriteOutput(abi.LoadOutput{Cases: []abi.Case{{ID: fmt.Sprintf("c%d", n), Arguments: []string{fmt.Sprint(n)}}}})
	return 0
}

// echo copies its input to its output untouched: the transport's cost alone.
//
//go:wasmexport echo
func echo() int32 {
	data, _ := io.ReadAll(os.Stdin)
	os.Stdout.Write(data)
	return 0
}

var spinSink int

// spin runs a tight loop of 10⁶ iterations: the cost of termination checks.
//
//go:wasmexport spin
func spin() int32 {
	s := 0
	for i := 0; i < 1000000; i++ {
		s += i * i % 7
	}
	spinSink = s
	return 0
}
