package conformance

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// TestSetupConformance holds every reference plugin, on both transports,
// to the setup vectors (vectors/setup), byte for byte; -update rewrites
// them from the Go one.
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
	for _, lang := range Languages {
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
					if *update && lang.Name == "go" {
						record(t, v, out, failure)
						return
					}
					check(t, v, out, failure)
				})
			}
		})
	}
}
