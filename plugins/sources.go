// Package plugins carries the sources of the plugin ABI package
// (plugins/abi), which the Go SDK imports, so that the wasmeval binary can
// vendor it with the SDK into a plugin project created outside any clone
// (see sdk.Sources). It is embedded here, in the directory above it,
// because plugins/abi is compiled into every Go plugin and must not carry
// its own sources.
package plugins

import "embed"

// ABISources holds abi/ (its packages and envelope schemas), tests
// included.
//
//go:embed abi
var ABISources embed.FS
