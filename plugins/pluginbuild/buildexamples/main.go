// Command buildexamples compiles the example plugins from source (the
// Taskfile's `plugins` task runs it): go run ./plugins/pluginbuild/buildexamples
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
	if err := pluginbuild.BuildExamples(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, ex := range pluginbuild.Examples {
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
