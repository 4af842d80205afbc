package main

import (
	"fmt"
	"io"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// printWarning writes each of a command's warnings as one line on w
// (stderr), where it neither fails the command nor mixes with its output.
func printWarning(w io.Writer) func(*diag.Error) {
	return func(e *diag.Error) { fmt.Fprintf(w, "warning: %v\n", e) }
}
