package jsonvalue

import (
	"fmt"
	"strings"
	"testing"
)

// benchDoc is the ~1.5 KB JSON case of the plugin benchmarks: a summary
// with 20 line items.
func benchDoc() string {
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"price":%.2f,"tags":["a","b"]}`, i, i, i%7, 1.25*float64(i+1)))
	}
	return `{"currency":"EUR","total":1234.5,"items":[` + strings.Join(items, ",") + `]}`
}

// BenchmarkValidText checks the ~1.5 KB document, as a verifier plugin
// does for each output it passes on as text (engine/verify's RawJSON).
// Run it in a Wasm guest too, where it matters most:
//
//	go test -run '^$' -bench ValidText ./plugins/abi/jsonvalue/
//	GOOS=wasip1 GOARCH=wasm go test -c -o jv.wasm ./plugins/abi/jsonvalue/ && wazero run jv.wasm -test.run '^$' -test.bench ValidText
func BenchmarkValidText(b *testing.B) {
	doc := benchDoc()
	b.SetBytes(int64(len(doc)))
	for i := 0; i < b.N; i++ {
		if !ValidText(doc) {
			b.Fatal("invalid")
		}
	}
}
