package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// realisticOutput is a ~2 KB JSON case result: a summary with a list of
// line items, the shape most CLI problems produce.
func realisticOutput(change bool) string {
	var items []string
	for i := 0; i < 20; i++ {
		price := 1.25 * float64(i+1)
		if change && i == 13 {
			price += 1
		}
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"price":%.2f,"tags":["a","b"]}`, i, i, i%7, price))
	}
	return `{"currency":"EUR","total":1234.5,"items":[` + strings.Join(items, ",") + `]}`
}

// BenchmarkJSONCheck is the baseline a verifier plugin is compared with:
// the built-in json check on a ~2 KB result, equal and with one difference.
//
//	go test -run '^$' -bench JSONCheck ./engine/verify/
func BenchmarkJSONCheck(b *testing.B) {
	spec := checkspec.CheckSpec{Kind: "json", Tolerance: 0.001}
	expected := map[string]any{"output": realisticOutput(false)}
	for _, tc := range []struct {
		name   string
		output string
		env    Env
	}{
		{"equal", realisticOutput(false), Env{}},
		{"one-difference", realisticOutput(true), Env{}},
		// As engine/run runs the check: a document settled by its text is
		// kept as that text.
		{"equal-rawjson", realisticOutput(false), Env{RawJSON: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.output)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res := Run(spec, Actual{Output: tc.output}, expected, tc.env)
				if res.IsCorrect != (tc.name != "one-difference") {
					b.Fatalf("verdict %v", res.IsCorrect)
				}
			}
		})
	}
}
