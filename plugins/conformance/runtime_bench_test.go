package conformance

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// BenchmarkAssemblyScriptRuntimeMemory is what asc's minimal runtime costs
// in memory: for the AssemblyScript reference verifier built with the
// incremental runtime (pluginbuild's) and with the minimal one, the
// smallest memory cap, of 32, 48, 64, 96, 128, 192 and 256 MiB, under
// which five verify calls in a row of a ~2.6 MB JSON document against
// itself all pass, in process. The incremental runtime collects during a
// call; the minimal one only when the next call starts.
//
//	go test -run '^$' -bench AssemblyScriptRuntimeMemory -benchtime 1x ./plugins/conformance/
func BenchmarkAssemblyScriptRuntimeMemory(b *testing.B) {
	items := make([]string, 40000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"sku":"SKU-%05d","name":"item %d","qty":%d,"price":%.2f}`, i, i, i%7, 1.25*float64(i+1))
	}
	doc := `{"currency":"EUR","items":[` + strings.Join(items, ",") + `]}`
	in := abi.VerifyInput{ABIVersion: abi.Version, Config: map[string]any{}, Case: abi.Case{ID: "large"},
		Actual: abi.Actual{Output: doc}, Expected: map[string]any{"output": doc}}
	ctx := context.Background()
	for _, name := range []string{"assemblyscript", "assemblyscript-minimal"} {
		b.Run(name, func(b *testing.B) {
			file := Reference(b, languageNamed(b, name))
			b.ReportMetric(float64(len(doc))/(1<<20), "doc-MiB")
			for i := 0; i < b.N; i++ {
				fits := 0
				for _, mib := range []int{32, 48, 64, 96, 128, 192, 256} {
					h, err := host.New(host.Options{CacheDir: filepath.Join(b.TempDir(), "cache"), Isolation: host.InProcess,
						Timeout: 2 * time.Minute, MemoryBytes: uint64(mib) << 20})
					if err != nil {
						b.Fatal(err)
					}
					p, err := h.Load(ctx, file, "")
					if err != nil {
						h.Close()
						b.Fatal(err)
					}
					passed := 0
					for k := 0; k < 5; k++ {
						out, err := p.Verify(ctx, in, host.CallOptions{})
						if err == nil && len(out.Attributes) == 1 && out.Attributes[0].IsCorrect {
							passed++
						}
					}
					h.Close()
					if passed == 5 {
						fits = mib
						break
					}
				}
				if fits == 0 {
					b.Fatalf("%s: five calls do not pass under any cap up to 256 MiB", name)
				}
				b.ReportMetric(float64(fits), "cap-MiB")
			}
		})
	}
}
