// Package sdk carries the sources of the plugin SDKs, so that the
// wasmeval binary can vendor them into a plugin project created outside
// any clone (`wasmeval plugin new`, plugins/scaffold): none of them is
// published on a registry. go:embed cannot reach above the embedding
// package's directory, so the SDKs are embedded here, in the directory
// above them, and the ABI package the Go SDK imports by plugins.ABISources.
package sdk

import "embed"

// Sources holds, at their paths below sdk/: go/wasmeval (every package of
// the Go SDK), rust (Cargo.toml and src) and assemblyscript (package.json
// and assembly). Tests are embedded too (a pattern cannot leave them
// out); whoever copies the sources skips _test.go files and testdata.
//
//go:embed go/wasmeval
//go:embed rust/Cargo.toml rust/src
//go:embed assemblyscript/package.json assemblyscript/assembly
var Sources embed.FS
