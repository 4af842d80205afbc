package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// batchSDKs are the reference plugins whose SDK provides the batch
// exports: their describe must announce every batchable export of the
// kinds they serve.
var batchSDKs = []string{"go", "go-extism", "rust", "rust-extism", "assemblyscript", "assemblyscript-extism", "assemblyscript-minimal"}

// batchSDKsPending are the reference plugins whose SDK does not provide
// the batch exports yet. Their batches are still checked when their
// describe announces some; move a plugin to batchSDKs when its SDK
// provides them.
var batchSDKsPending = []string{}

// batchResult is one result of a batch output, every field kept as
// written.
type batchResult struct {
	Call   *int            `json:"call"`
	Output json.RawMessage `json:"output"`
	Error  *string         `json:"error"`
}

// TestBatch sends, for every reference plugin and every batch export its
// describe announces, all the vectors of that export as one batch, and
// holds each result to the same call made alone: one result per call, in
// the calls' order, whose output is the single call's output byte for byte
// or whose error is the single call's failure message. A vector whose
// input is not JSON text (malformed, or not UTF-8) cannot be a call of a
// batch and is left out; every other one is sent as it is, including
// inputs that are JSON but not an envelope.
func TestBatch(t *testing.T) {
	vectors, err := LoadVectors("vectors")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range Languages {
		t.Run(lang.Name, func(t *testing.T) {
			if !slices.Contains(batchSDKs, lang.Name) && !slices.Contains(batchSDKsPending, lang.Name) {
				t.Fatalf("reference plugin %s is in neither batchSDKs nor batchSDKsPending", lang.Name)
			}
			file := Reference(t, lang)
			ctx := context.Background()
			p, err := newHost(t).Load(ctx, file, "")
			if err != nil {
				t.Fatal(err)
			}
			d := p.Describe()
			if slices.Contains(batchSDKs, lang.Name) {
				var want []string
				for _, export := range abi.Batchable {
					for _, kind := range d.Kinds {
						if abi.Exports[kind] == export {
							want = append(want, export)
						}
					}
				}
				if !slices.Equal(d.Batch, want) {
					t.Errorf("describe announces batch %q, want %q (every batchable export of its kinds)", d.Batch, want)
				}
			}
			if len(d.Batch) == 0 {
				t.Skipf("%s announces no batch export", lang.Name)
			}
			for _, export := range d.Batch {
				t.Run(export, func(t *testing.T) {
					var calls []json.RawMessage
					var names []string
					for _, v := range vectors {
						if v.Export != export {
							continue
						}
						in, err := v.input()
						if err != nil {
							t.Fatal(err)
						}
						if !json.Valid(in) || !utf8.Valid(in) {
							continue // not JSON text: no host can send it in a batch
						}
						calls = append(calls, in)
						names = append(names, v.name)
					}
					if len(calls) < 2 {
						t.Fatalf("only %d vectors of %s to batch", len(calls), export)
					}
					input, err := json.Marshal(abi.BatchInput{ABIVersion: abi.Version, Calls: calls})
					if err != nil {
						t.Fatal(err)
					}
					batchExport := export + abi.BatchSuffix
					out, failure, err := callRaw(ctx, p, batchExport, input)
					if err != nil || failure != "" {
						t.Fatalf("%s: %v %s", batchExport, err, failure)
					}
					results, err := decodeBatchOutput(out)
					if err != nil {
						t.Fatalf("%s: %v\n%s", batchExport, err, head(out))
					}
					if len(results) != len(calls) {
						t.Fatalf("%s: %d results for %d calls", batchExport, len(results), len(calls))
					}
					for i, r := range results {
						single, singleFailure, err := callRaw(ctx, p, export, calls[i])
						if err != nil {
							t.Fatalf("%s alone: %v", names[i], err)
						}
						if err := sameAsSingle(i, r, single, singleFailure); err != nil {
							t.Errorf("%s, call %d (vector %s): %v", batchExport, i, names[i], err)
						}
					}
				})
			}
		})
	}
}

// callRaw makes one call of an export: its output bytes, or the message of
// a call that reported failure.
func callRaw(ctx context.Context, p *host.Plugin, export string, input []byte) ([]byte, string, error) {
	return call(ctx, p, &Vector{Export: export, Input: input})
}

// decodeBatchOutput reads a batch output, refusing any field the ABI does
// not define, and any result without its call or with both or neither of
// output and error.
func decodeBatchOutput(out []byte) ([]batchResult, error) {
	var o struct {
		Results *[]batchResult `json:"results"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("not a batch output: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a batch output: data after the object")
	}
	if o.Results == nil {
		return nil, fmt.Errorf("not a batch output: no results")
	}
	for i, r := range *o.Results {
		switch {
		case r.Call == nil:
			return nil, fmt.Errorf("result %d has no call", i)
		case (r.Output != nil) == (r.Error != nil):
			return nil, fmt.Errorf("result %d has both or neither of output and error", i)
		}
	}
	return *o.Results, nil
}

// sameAsSingle compares result i of a batch with the same call made alone.
func sameAsSingle(i int, r batchResult, single []byte, failure string) error {
	if *r.Call != i {
		return fmt.Errorf("result %d answers call %d", i, *r.Call)
	}
	switch {
	case failure != "" && r.Error == nil:
		return fmt.Errorf("alone the call fails with %q; in the batch it answers %s", failure, head(r.Output))
	case failure != "" && *r.Error != failure:
		return fmt.Errorf("alone the call fails with %q; in the batch with %q", failure, *r.Error)
	case failure == "" && r.Error != nil:
		return fmt.Errorf("alone the call answers %s; in the batch it fails with %q", head(single), *r.Error)
	case failure == "" && !bytes.Equal(r.Output, single):
		return fmt.Errorf("output differs from the single call's at byte %d\nalone    %s\nin batch %s",
			firstDiff(r.Output, single), head(single), head(r.Output))
	}
	return nil
}

// TestBatchDecode holds the test's reading of batch outputs to the ABI.
func TestBatchDecode(t *testing.T) {
	for out, want := range map[string]string{
		`{"results":[{"call":0,"output":{"a":1}},{"call":1,"error":"no"}]}`: "",
		`{"results":[]}`:                                   "",
		`{"results":[{"output":{}}]}`:                      "result 0 has no call",
		`{"results":[{"call":0}]}`:                         "result 0 has both or neither",
		`{"results":[{"call":0,"output":{},"error":"x"}]}`: "result 0 has both or neither",
		`{"results":[{"call":0,"extra":1}]}`:               "not a batch output",
		`{"result":[]}`:                                    "not a batch output",
		`{}`:                                               "not a batch output: no results",
	} {
		_, err := decodeBatchOutput([]byte(out))
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", out, err, want)
		}
	}
	one := 1
	msg := "boom"
	for _, c := range []struct {
		r       batchResult
		single  string
		failure string
		want    string
	}{
		{batchResult{Call: &one, Output: json.RawMessage(`{"a":1}`)}, `{"a":1}`, "", ""},
		{batchResult{Call: &one, Output: json.RawMessage(`{"a": 1}`)}, `{"a":1}`, "", "differs"},
		{batchResult{Call: &one, Error: &msg}, "", "boom", ""},
		{batchResult{Call: &one, Error: &msg}, "", "bang", "fails with"},
		{batchResult{Call: &one, Error: &msg}, `{}`, "", "fails with"},
		{batchResult{Call: &one, Output: json.RawMessage(`{}`)}, "", "boom", "answers"},
	} {
		err := sameAsSingle(1, c.r, []byte(c.single), c.failure)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c, err, c.want)
		}
	}
	if err := sameAsSingle(0, batchResult{Call: &one, Output: json.RawMessage(`{}`)}, []byte(`{}`), ""); err == nil {
		t.Error("a result answering another call passed")
	}
}

// notBatches are inputs of a batch export that are not batches: the
// export fails as a whole (the host then makes the calls one by one), and
// the SDKs of batchSDKs say why in the same words.
var notBatches = []struct{ input, message string }{
	{`{"abi_version":1}`, "invalid input: $.calls is missing, expected an array"},
	{`{"abi_version":1,"calls":{}}`, "invalid input: $.calls is an object, expected an array"},
	{`[]`, "invalid input: $ is an array, expected an object"},
	{`{"abi_version":1,"calls":[{}]`, "invalid input: invalid JSON at byte 29: unexpected end of input"},
}

func TestBatchNotABatch(t *testing.T) {
	for _, lang := range Languages {
		t.Run(lang.Name, func(t *testing.T) {
			file := Reference(t, lang)
			ctx := context.Background()
			p, err := newHost(t).Load(ctx, file, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Describe().Batch) == 0 {
				t.Skipf("%s announces no batch export", lang.Name)
			}
			for _, export := range p.Describe().Batch {
				for _, nb := range notBatches {
					out, failure, err := callRaw(ctx, p, export+abi.BatchSuffix, []byte(nb.input))
					switch {
					case err != nil || failure == "":
						t.Errorf("%s_batch %s: want a reported failure, got %v %s", export, nb.input, err, head(out))
					case slices.Contains(batchSDKs, lang.Name) && failure != nb.message:
						t.Errorf("%s_batch %s: failure %q, want %q", export, nb.input, failure, nb.message)
					}
				}
			}
		})
	}
}
