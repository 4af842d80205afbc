package host

import "fmt"

// What went wrong with a plugin. A fault is never a verdict: the case that
// hit it records a plugin error and the run goes on.
const (
	FaultNotWasm       = "not a Wasm module"
	FaultDigest        = "digest mismatch"
	FaultABI           = "unsupported ABI version"
	FaultMissingExport = "missing export"
	FaultTrap          = "trapped"
	FaultTimeout       = "timed out"
	FaultMemory        = "memory limit reached"
	FaultInvalidJSON   = "returned invalid JSON"
	FaultEnvelope      = "returned a wrong envelope"
	FaultFailed        = "reported failure"
	FaultOversized     = "returned an oversized verdict"
	FaultSetupActions  = "returned invalid setup actions"
	FaultMockResponse  = "returned an invalid mock response"
	FaultImport        = "imports what wasmeval does not provide"
)

// Error is a plugin fault: which plugin, which export, what went wrong.
type Error struct {
	Plugin string // the plugin's name (or file) and digest prefix
	Export string
	Fault  string // one of the Fault constants
	Detail string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("plugin %s", e.Plugin)
	if e.Export != "" {
		s += fmt.Sprintf(", export %s", e.Export)
	}
	s += ": " + e.Fault
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}
