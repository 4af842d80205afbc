// Command buildexamples compiles every plugin of the repository from source
// — the examples' (Go, Rust, AssemblyScript) and the conformance suite's
// reference plugins (the Taskfile's `plugins` task runs it):
// go run ./plugins/pluginbuild/buildexamples
//
// With -pin it also rewrites the sha256 the examples' configs pin to the
// digests just built (`task plugins:pin`), after a change to a plugin's
// source or to code it imports.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

func main() {
	pin := flag.Bool("pin", false, "pin the examples' configs to the digests built")
	flag.Parse()
	all := append(append([]pluginbuild.Example{}, pluginbuild.Examples...), pluginbuild.References...)
	if err := pluginbuild.BuildAll(all); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, ex := range all {
		fmt.Println("built", ex.Output)
	}
	if *pin {
		changed, err := pluginbuild.PinExamples()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, f := range changed {
			fmt.Println("pinned", f)
		}
	}
}
