package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// rawSDKs are the reference plugins whose describe announces raw strings
// (docs/plugin-abi.md, "Raw strings"): every native one whose SDK takes
// them. rawSDKsPending are the native ones whose SDK does not yet; move a
// plugin to rawSDKs when it does.
var (
	rawSDKs        = []string{"rust", "go", "assemblyscript", "assemblyscript-minimal"}
	rawSDKsPending = []string{}
)

// TestRawStrings holds the raw-string input framing to the vectors: every
// vector of an export with an input envelope, its input rewritten with
// each string value (long or short, empty included) raw, must give the
// same bytes as the vector, alone and as one batch of all of them. A
// vector whose input is not JSON (or not UTF-8) has no strings to
// rewrite and is left out.
func TestRawStrings(t *testing.T) {
	vectors, err := LoadVectors("vectors")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range Languages {
		if lang.Transport != abi.TransportNative {
			continue
		}
		t.Run(lang.Name, func(t *testing.T) {
			if !slices.Contains(rawSDKs, lang.Name) && !slices.Contains(rawSDKsPending, lang.Name) {
				t.Fatalf("native reference plugin %s is in neither rawSDKs nor rawSDKsPending", lang.Name)
			}
			ctx := context.Background()
			p, err := newHost(t).Load(ctx, Reference(t, lang), "")
			if err != nil {
				t.Fatal(err)
			}
			if want := slices.Contains(rawSDKs, lang.Name); p.Describe().RawStrings != want {
				t.Fatalf("describe says raw_strings %v, want %v", p.Describe().RawStrings, want)
			}
			if !p.Describe().RawStrings {
				t.Skipf("%s takes no raw strings yet", lang.Name)
			}
			batches := map[string][]*Vector{}
			for _, v := range vectors {
				if v.Export == abi.DescribeExport {
					continue
				}
				raw, ok := rawInput(t, v)
				if !ok {
					continue
				}
				t.Run(v.name, func(t *testing.T) {
					rv := *v
					rv.InputText, rv.Input = &raw, nil
					out, failure, err := call(ctx, p, &rv)
					if err != nil {
						t.Fatalf("%s: %v", v.Description, err)
					}
					check(t, v, out, failure)
				})
				if slices.Contains(p.Describe().Batch, v.Export) {
					batches[v.Export] = append(batches[v.Export], v)
				}
			}
			for _, export := range slices.Sorted(maps.Keys(batches)) {
				t.Run(export+abi.BatchSuffix, func(t *testing.T) {
					vs := batches[export]
					in := []byte(`{"abi_version":1,"calls":[`)
					for i, v := range vs {
						if i > 0 {
							in = append(in, ',')
						}
						raw, _ := rawInput(t, v)
						in = append(in, raw...)
					}
					in = append(in, "]}"...)
					out, err := p.Call(ctx, export+abi.BatchSuffix, in, host.CallOptions{})
					if err != nil {
						t.Fatal(err)
					}
					var batch struct{ Results []batchResult }
					if err := json.Unmarshal(out, &batch); err != nil || len(batch.Results) != len(vs) {
						t.Fatalf("batch output %v, %d results for %d calls: %s", err, len(batch.Results), len(vs), head(out))
					}
					for i, v := range vs {
						r := batch.Results[i]
						var got []byte
						failure := ""
						if r.Error != nil {
							failure = *r.Error
						} else {
							got = r.Output
						}
						t.Run(v.name, func(t *testing.T) { check(t, v, got, failure) })
					}
				})
			}
		})
	}
}

// rawInput is the vector's input with every string value raw; ok is false
// for an input that is not JSON.
func rawInput(t *testing.T, v *Vector) (string, bool) {
	in, err := v.input()
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(in) {
		return "", false // Go's decoder would change its bad bytes
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil || dec.More() {
		return "", false
	}
	return string(appendRawStrings(nil, doc)), true
}

// appendRawStrings encodes a decoded JSON value with its string values as
// raw strings (abi.AppendRaw) and its keys as JSON.
func appendRawStrings(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return abi.AppendRaw(b, v)
	case map[string]any:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = abi.AppendQuoted(b, k)
			b = append(b, ':')
			b = appendRawStrings(b, v[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRawStrings(b, e)
		}
		return append(b, ']')
	case json.Number:
		return append(b, v...)
	case bool, nil:
		return fmt.Append(b, map[any]string{true: "true", false: "false", nil: "null"}[v])
	}
	panic(fmt.Sprintf("unexpected %T", v))
}
