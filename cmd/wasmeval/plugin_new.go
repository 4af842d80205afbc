package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/plugins/scaffold"
)

func newPluginNewCmd() *cobra.Command {
	var o scaffold.Options
	cmd := &cobra.Command{
		Use:   "new NAME --lang go|rust|assemblyscript --kind verifier|loader|evaluator|test|setup|mock",
		Short: "Create a standalone plugin project, with the SDK vendored, that builds with the language's own tools",
		Long: `Create a plugin project in a new directory (--dir, default ./NAME), outside
any clone of wasmeval: the plugin's source for the kind, the SDK vendored
under third_party/ (it is not published on a registry), build.sh (build,
test), a sample input in testdata/ with its expected output, and a README
saying how to build, test and bind it in a problem.

  go              a Go module; GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
  rust            a Cargo project (crate-type cdylib); cargo build --release
                  --target wasm32-unknown-unknown, or plain rustc
                  (./build.sh build-rustc)
  assemblyscript  an npm project; npm install && npm run build

./build.sh test builds the plugin and runs wasmeval plugin test on testdata/.
A directory that is not empty is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if o.Dir == "" {
				o.Dir = o.Name
			}
			if err := o.Check(); err != nil {
				return usageErr(err)
			}
			if err := scaffold.New(o); err != nil {
				return usageErr(err)
			}
			kind := o.Kind
			if kind == "test" {
				kind = "test function"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s: a %s plugin in %s; next: cd %s && ./build.sh test\n",
				filepath.Clean(o.Dir), kind, o.Lang, filepath.Clean(o.Dir))
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Lang, "lang", "", "language: "+strings.Join(scaffold.Languages, ", "))
	cmd.Flags().StringVar(&o.Kind, "kind", "", "plugin kind: "+strings.Join(scaffold.Kinds, ", "))
	cmd.Flags().StringVar(&o.Dir, "dir", "", "directory to create the project in (default: ./NAME); must be missing or empty")
	return cmd
}
