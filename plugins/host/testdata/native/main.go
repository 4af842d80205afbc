//go:build wasip1

// Command native is the misbehave plugin's counterpart on the native
// transport (built with the Go SDK's default): it does whatever its config
// asks — answer, trap, loop forever, eat memory, return garbage — so the
// host's fault isolation is tested on that path too.
package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

var sink [][]byte

// transport is set with -ldflags "-X main.transport=stdio" to build a
// native module whose describe claims another transport.
var transport string

func main() {}

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "misbehave-native", Version: "1.0.0",
		Kinds: []string{abi.KindVerifier}, Transport: transport})
}

//go:wasmexport verify
func verify() int32 { return wasmeval.ServeRaw(verifyRaw) }

func verifyRaw(dst, input []byte) ([]byte, error) {
	var in abi.VerifyInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	mode, _ := in.Config["mode"].(string)
	switch mode {
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
		return append(dst, `{"attributes": [{"attribute": "", "is_correct": "yes"}]}`...), nil
	case "fail":
		return nil, errors.New("refusing on purpose")
	case "big":
		return append(dst, strings.Repeat(" ", 65<<20)...), nil
	case "clock":
		b := make([]byte, 8)
		rand.Read(b)
		t0 := time.Now()
		time.Sleep(3 * time.Millisecond) // a sleep moves the sandbox's clock by exactly that
		return json.Marshal(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "clock", IsCorrect: true, Weight: 1,
			Actual: fmt.Sprintf("%d %x %d", t0.UnixNano(), b, time.Since(t0).Nanoseconds())}}})
	case "log":
		wasmeval.Log("info", "checked case "+in.Case.ID)
	case "asset":
		path, _ := in.Config["path"].(string)
		data, ok := wasmeval.ReadAsset(path)
		got := "refused"
		if ok {
			got = string(data)
		}
		return json.Marshal(abi.VerifyOutput{Attributes: []abi.Attribute{{Attribute: "asset", IsCorrect: ok, Weight: 1, Actual: got}}})
	}
	return json.Marshal(abi.VerifyOutput{Attributes: []abi.Attribute{{
		Attribute: "output", Actual: in.Actual.Output, Expected: in.Expected["output"],
		IsCorrect: in.Actual.Output == in.Expected["output"], Weight: 1,
	}}})
}

// echo copies its input to its output untouched: the transport's cost alone.
//
//go:wasmexport echo
func echo() int32 {
	return wasmeval.ServeRaw(func(dst, input []byte) ([]byte, error) { return append(dst, input...), nil })
}
