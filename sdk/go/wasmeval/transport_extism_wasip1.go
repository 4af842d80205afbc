//go:build wasip1 && wasmeval_extism

package wasmeval

import (
	"os"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Built with -tags wasmeval_extism, the SDK speaks Extism's ABI, for hosts
// other than wasmeval's or plugins that use Extism's PDK beside it.

// Transport is how this plugin's kind exports exchange envelopes: stdio
// (the default in this build: one bulk copy each way) or extism.
// DescribePlugin declares it, the entry points use it; set it in an init
// function to change it.
var Transport = abi.TransportStdio

func describeOutput(out []byte) int32 {
	pdk.Output(out)
	return 0
}

func describeFailed(msg string) int32 {
	pdk.SetErrorString(msg)
	return 1
}

func serve(handle func(dst, in []byte) ([]byte, error)) int32 {
	var input []byte
	if Transport == abi.TransportStdio {
		var err error
		if input, err = readAll(os.Stdin, inputBuf[:0]); err != nil {
			pdk.SetErrorString("read input: " + err.Error())
			return 1
		}
		inputBuf = input
	} else {
		input = pdk.Input()
	}
	out, err := handle(outputBuf[:0], input)
	if err != nil {
		pdk.SetErrorString(err.Error())
		return 1
	}
	outputBuf = out
	if Transport == abi.TransportStdio {
		if _, err := os.Stdout.Write(out); err != nil {
			pdk.SetErrorString("write output: " + err.Error())
			return 1
		}
		return 0
	}
	pdk.Output(out)
	return 0
}

// ReadAsset returns a file of the problem directory through the host's
// read_asset function; ok is false when the host refused (the reason is in
// the run log).
func ReadAsset(path string) (data []byte, ok bool) {
	mem := pdk.AllocateString(path)
	defer mem.Free()
	off := readAsset(mem.Offset())
	if off == 0 {
		return nil, false
	}
	m := pdk.FindMemory(off)
	defer m.Free()
	return m.ReadBytes(), true
}

//go:wasmimport extism:host/user read_asset
func readAsset(uint64) uint64

// Log writes a line to the run log at a level: "debug", "info", "warn"
// or "error" (anything else is info).
func Log(level, msg string) {
	l := pdk.LogInfo
	switch level {
	case "debug":
		l = pdk.LogDebug
	case "warn":
		l = pdk.LogWarn
	case "error":
		l = pdk.LogError
	}
	pdk.Log(l, msg)
}
