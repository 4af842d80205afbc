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
func TestSetupConformance(t *testing.T) { testKindVectors(t, abi.KindSetup, "setup") }

// TestMockConformance does the same with the mock vectors (vectors/mock).
func TestMockConformance(t *testing.T) { testKindVectors(t, abi.KindMock, "mock") }

// testKindVectors runs the vectors of one kind, kept in their own
// directory, against every reference plugin, which must declare the kind.
func testKindVectors(t *testing.T, kind, dir string) {
	vectors, err := LoadVectors(filepath.Join("vectors", dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 2 {
		t.Fatalf("%d %s vectors", len(vectors), kind)
	}
	for _, v := range vectors {
		v.name = dir + "/" + v.name // record writes it back where it was read
	}
	for _, lang := range Languages {
		t.Run(lang.Name, func(t *testing.T) {
			p, err := newHost(t).Load(context.Background(), Reference(t, lang), "")
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasKind(kind) {
				t.Fatalf("%s does not declare the %s kind: %v", lang.Name, kind, p.Describe().Kinds)
			}
			for _, v := range vectors {
				t.Run(filepath.Base(v.name), func(t *testing.T) {
					out, failure, err := call(context.Background(), p, v)
					if err != nil {
						t.Fatalf("%s: %v", v.Description, err)
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
