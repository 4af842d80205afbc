// Package wasmeval carries the sources of the plugin SDKs, so the wasmeval
// binary can vendor them into a plugin project created outside any clone
// (wasmeval plugin new): the Go SDK and the ABI package it imports, the
// Rust crate and the AssemblyScript package. None of them is published on
// a registry, and go:embed cannot reach above the embedding package's
// directory, so the embedding is done here, at the module root, the one
// directory above all of them.
package wasmeval

import "embed"

// SDKSources holds, at their paths in this module: sdk/go/wasmeval (every
// package of the Go SDK), plugins/abi (the ABI's types and envelope
// schemas, which the Go SDK imports), sdk/rust (Cargo.toml and src) and
// sdk/assemblyscript (package.json and assembly). Tests are embedded too
// (a pattern cannot leave them out); whoever copies the sources skips
// _test.go files and testdata directories.
//
//go:embed sdk/go/wasmeval plugins/abi
//go:embed sdk/rust/Cargo.toml sdk/rust/src
//go:embed sdk/assemblyscript/package.json sdk/assemblyscript/assembly
var SDKSources embed.FS
