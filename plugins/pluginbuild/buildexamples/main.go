// Command buildexamples compiles the example plugins from source (the
// Taskfile's `plugins` task runs it): go run ./plugins/pluginbuild/buildexamples
package main

import (
	"fmt"
	"os"

	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

func main() {
	if err := pluginbuild.BuildExamples(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, ex := range pluginbuild.Examples {
		fmt.Println("built", ex.Output)
	}
}
