package problem

import "github.com/wasmeval/wasmeval/engine/checkspec"

// CheckSpec declares one built-in check in config; see checkspec.CheckSpec.
type CheckSpec = checkspec.CheckSpec

// CheckKinds lists the built-in check kinds.
var CheckKinds = checkspec.Kinds
