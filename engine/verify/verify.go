// Package verify holds the built-in checks a problem can declare in config.
// Each check compares one attribute of a case's actual result with the
// expected value and yields an AttributeResult — the same shape a verifier
// plugin returns, so reports cannot tell which produced it.
package verify

import "github.com/wasmeval/wasmeval/plugins/abi"

// AttributeResult is the verdict on one attribute of one case.
type AttributeResult struct {
	Attribute string  `json:"attribute"`
	Actual    any     `json:"actual"`
	Expected  any     `json:"expected"`
	Diff      *Diff   `json:"diff,omitempty"`
	IsCorrect bool    `json:"is_correct"`
	Weight    float64 `json:"weight"`
	// Check names what produced the verdict ("json", "text", plugin name…).
	Check string `json:"check,omitempty"`
}

// The shapes a verdict's diff and a case's actual result take are the
// plugin ABI's: built-in checks and verifier plugins share them, so reports
// cannot tell which produced a verdict.
type (
	Diff      = abi.Diff
	DiffEntry = abi.DiffEntry
	Actual    = abi.Actual
)
