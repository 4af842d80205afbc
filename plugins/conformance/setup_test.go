package conformance

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// SetupLanguages are the reference plugins that serve the setup kind: the
// Go reference plugin built with -tags wasmeval_setup, on both
// transports. (The tag keeps the describe vector, which every SDK answers,
// unchanged until every SDK serves setup.)
var SetupLanguages = []Language{
	{"go-setup", abi.TransportNative, func(out string) error {
		return pluginbuild.Build(moduleFile("plugins/conformance/go"), out, "-tags=wasmeval_setup")
	}},
	{"go-setup-extism", abi.TransportExtism, func(out string) error {
		return pluginbuild.Build(moduleFile("plugins/conformance/go"), out, "-tags=wasmeval_setup,wasmeval_extism")
	}},
}

// TestSetupConformance holds the setup reference plugins to the setup
// vectors (vectors/setup), byte for byte; -update rewrites them from the
// Go one.
func TestSetupConformance(t *testing.T) {
	vectors, err := LoadVectors(filepath.Join("vectors", "setup"))
	if err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 2 {
		t.Fatalf("%d setup vectors", len(vectors))
	}
	for _, v := range vectors {
		v.name = "setup/" + v.name // record writes it back where it was read
	}
	for _, lang := range SetupLanguages {
		t.Run(lang.Name, func(t *testing.T) {
			p, err := newHost(t).Load(context.Background(), Reference(t, lang), "")
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasKind(abi.KindSetup) {
				t.Fatalf("%s does not declare the setup kind: %v", lang.Name, p.Describe().Kinds)
			}
			for _, v := range vectors {
				t.Run(filepath.Base(v.name), func(t *testing.T) {
					out, failure, err := call(context.Background(), p, v)
					if err != nil {
						t.Fatalf("%s: %v", v.Description, err)
					}
					if v.Export == abi.DescribeExport {
						out = sameTransport(out, lang.Transport)
					}
					if *update && lang.Name == "go-setup" {
						record(t, v, out, failure)
						return
					}
					check(t, v, out, failure)
				})
			}
		})
	}
}
