package wasmeval

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// targetInputs are the verify inputs of plugins/conformance's
// BenchmarkTargets (targetCalls there: the ~1.5 KB JSON case, n distinct
// calls), encoded as the host encodes them, and the batch input that sends
// all of them at once.
func targetInputs(tb testing.TB, n int) (singles [][]byte, batch []byte) {
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"price":%.2f,"tags":["a","b"]}`, i, i, i%7, 1.25*float64(i+1)))
	}
	batch = []byte(`{"abi_version":1,"calls":[`)
	for k := 0; k < n; k++ {
		out := fmt.Sprintf(`{"currency":"EUR","total":%.1f,"items":[%s]}`, 1234.5+float64(k), strings.Join(items, ","))
		data, err := json.Marshal(abi.VerifyInput{ABIVersion: abi.Version, Config: map[string]any{"tolerance": 0.001},
			Case:   abi.Case{ID: fmt.Sprintf("bench-%d", k), Arguments: []string{"summary", "items.csv"}},
			Actual: abi.Actual{StatusCode: 0, Output: out}, Expected: map[string]any{"status_code": 0, "output": out}})
		if err != nil {
			tb.Fatal(err)
		}
		singles = append(singles, data)
		if k > 0 {
			batch = append(batch, ',')
		}
		batch = append(batch, data...)
	}
	return singles, append(batch, "]}"...)
}

// targetVerifier is the conformance reference verifier's check for these
// calls (plugins/conformance/go: the exit status, and the output as JSON
// against the expected JSON text within the config's tolerance).
func targetVerifier(in *VerifyInput) (*VerifyOutput, error) {
	num := func(m map[string]any, k string) float64 {
		n, _ := m[k].(json.Number)
		f, _ := strconv.ParseFloat(string(n), 64)
		return f
	}
	out := &VerifyOutput{Attributes: []Attribute{}}
	if want, ok := in.Expected["status_code"]; ok {
		a := Attribute{Attribute: "status_code", Actual: in.Actual.StatusCode, Expected: want, Weight: 1}
		n, isNum := want.(json.Number)
		f, _ := strconv.ParseFloat(string(n), 64)
		a.IsCorrect = isNum && f == float64(in.Actual.StatusCode)
		if !a.IsCorrect {
			a.Diff = &Diff{Summary: "expected exit status " + Brief(want) + ", got " + strconv.Itoa(in.Actual.StatusCode)}
		}
		out.Attributes = append(out.Attributes, a)
	}
	if want, ok := in.Expected["output"]; ok {
		a := Attribute{Attribute: "output", Weight: 1}
		if s, isText := want.(string); isText {
			if doc, same := SameJSON(s, in.Actual.Output); same {
				a.Expected, a.Actual, a.IsCorrect = doc, doc, true
				out.Attributes = append(out.Attributes, a)
				return out, nil
			}
			if v, err := ParseJSON([]byte(s)); err == nil {
				want = v
			}
		}
		a.Expected = want
		v, err := ParseJSON([]byte(in.Actual.Output))
		if err != nil {
			return nil, err
		}
		a.Actual = v
		a.Diff = CompareJSON(want, v, JSONOptions{Tolerance: num(in.Config, "tolerance")})
		a.IsCorrect = a.Diff == nil
		out.Attributes = append(out.Attributes, a)
	}
	return out, nil
}

// BenchmarkTargetCalls is a verify call of plugins/conformance's
// BenchmarkTargets through the path the wasip1 entry points take (decode,
// the verifier, encode), natively: one call at a time and a batch of 256.
//
//	go test -run '^$' -bench TargetCalls -benchmem ./sdk/go/wasmeval/
func BenchmarkTargetCalls(b *testing.B) {
	singles, batch := targetInputs(b, 256)
	var scratch []byte
	envelopeScratch = &scratch
	defer func() { envelopeScratch = nil }()
	b.Run("single", func(b *testing.B) {
		b.ReportAllocs()
		var dst []byte
		for i := 0; i < b.N; i++ {
			out, err := handleVerify(dst[:0], singles[i%len(singles)], targetVerifier)
			if err != nil || !strings.Contains(string(out), `"is_correct":true`) {
				b.Fatalf("%v %s", err, out)
			}
			dst = out
		}
	})
	b.Run("batch-256", func(b *testing.B) {
		b.ReportAllocs()
		var dst []byte
		for i := 0; i < b.N; i++ {
			out, err := handleVerifyBatch(dst[:0], batch, targetVerifier)
			if err != nil {
				b.Fatal(err)
			}
			dst = out
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/256, "ns/call")
	})
}

// BenchmarkTargetParts times the parts of a target call: parsing and
// decoding the input (or decoding it on the fast path), SameJSON on its
// output and encoding the verdict.
//
//	go test -run '^$' -bench TargetParts -benchmem ./sdk/go/wasmeval/
func BenchmarkTargetParts(b *testing.B) {
	singles, _ := targetInputs(b, 1)
	var scratch []byte
	envelopeScratch = &scratch
	defer func() { envelopeScratch = nil }()
	v, err := parseEnvelope(singles[0])
	if err != nil {
		b.Fatal(err)
	}
	in, _ := verifyInputOf(v)
	verdict, _ := targetVerifier(in)
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := parseEnvelope(singles[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fastdecode", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			p := parser{data: singles[0], reuse: envelopeScratch}
			if _, ok := p.fastVerifyInput(); !ok {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := verifyInputOf(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("samejson", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, ok := SameJSON(in.Actual.Output, in.Actual.Output); !ok {
				b.Fatal("not the same")
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		var dst []byte
		for i := 0; i < b.N; i++ {
			dst, _ = AppendJSON(dst[:0], verdict)
		}
	})
}
