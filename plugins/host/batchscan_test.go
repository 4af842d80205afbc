package host

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// batchOutputTexts are batch outputs, most of them of the shape the fast
// path takes and some it leaves to encoding/json.
var batchOutputTexts = []string{
	`{"results":[]}`,
	`{"results":[{"call":0,"output":{"attributes":[]}},{"call":1,"error":"refusing on purpose"}]}`,
	" {\n \"results\" : [ {\"output\" : {\"attributes\":[{\"attribute\":\"a\",\"actual\":{\"x\":[1,2]},\"expected\":{\"x\":[1,2]},\"is_correct\":true,\"weight\":1}]} , \"call\" : 0 } ] } \n",
	`{"results":[{"call":0,"error":"line 1\nline \"2\"\t\/"},{"call":1,"output":{"error":"cannot"}}]}`,
	`{"results":[{"call":0,"error":"caf\u00e9"}]}`,
	`{"results":[{"call":0,"output":null,"error":"x"}]}`,
	`{"results":[{"call":0,"output":{"attributes":[]},"error":null}]}`,
	`{"results":[{"call":0,"output":{"attributes":[]},"error":""}]}`,
	`{"results":[{"call":1,"output":{"attributes":[]}},{"call":0,"output":{"attributes":[]}}]}`,
	`{"results":[{"call":0,"output":{"attributes":[]},"error":"both"}]}`,
	`{"results":[{"call":0}]}`,
	`{"results":[{}]}`,
	`{"results":[null]}`,
	`{"results":null}`,
	`{"Results":[{"call":0,"error":"x"}]}`,
	`{"results":[{"Call":3,"error":"x"}]}`,
	`{"results":[{"call":1.0,"error":"x"}]}`,
	`{"results":[{"call":-1,"error":"x"}]}`,
	`{"results":[{"call":01,"error":"x"}]}`,
	`{"results":[{"call":12345678901,"error":"x"}]}`,
	`{"results":[{"call":0,"error":"x","call":1}]}`,
	`{"results":[{"call":0,"error":"x",}]}`,
	`{"results":[{"call":0,"error":"x"}],"extra":1}`,
	`{"results":[{"call":0,"output":"not an object"}]}`,
	`{"results":[{"call":0,"output":{"attributes":[{"attribute":"a","is_correct":true}]}}]}`,
	"{\"results\":[{\"call\":0,\"error\":\"bad \xff byte\"}]}",
	`{"results":[{"call":0,"output":{"attributes":[]}}]} x`,
	`{"results":[{"call":0,"output":{"attributes":[]}}`,
	`[]`,
	`null`,
	``,
}

// slowBatchResults is encoding/json's reading of a batch output, as
// batchResults has it when the fast path refuses.
func slowBatchResults(raw []byte) ([]batchResult, bool) {
	var out struct {
		Results *[]abi.BatchResult `json:"results"`
	}
	if json.Unmarshal(raw, &out) != nil || out.Results == nil {
		return nil, false
	}
	var results []batchResult
	for _, r := range *out.Results {
		hasOutput := len(r.Output) > 0 && !bytes.Equal(r.Output, []byte("null"))
		if hasOutput == (r.Error != "") {
			return nil, false
		}
		res := batchResult{call: r.Call, err: r.Error}
		if hasOutput {
			res.output = string(r.Output)
		}
		results = append(results, res)
	}
	return results, true
}

func checkBatchScan(t *testing.T, text string) {
	t.Helper()
	want, wantOK := slowBatchResults([]byte(text))
	decoded := map[int]abi.VerifyOutput{}
	got, ok := scanBatchOutput(text, func(n int, s string, at int) (int, bool) {
		vo, end, ok := scanVerifyOutputAt(s, at)
		if ok {
			decoded[n] = vo
		}
		return end, ok
	})
	if !ok {
		return // encoding/json's path decides
	}
	if !wantOK {
		t.Fatalf("%q: the fast path took what encoding/json refuses: %+v", text, got)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d results, encoding/json %d", text, len(got), len(want))
	}
	for n := range got {
		g, w := got[n], want[n]
		if g.call != w.call || g.output != w.output || g.err != w.err {
			t.Fatalf("%q: result %d is %+v, encoding/json's %+v", text, n, g, w)
		}
		if !g.decoded {
			continue
		}
		full, ok := scanVerifyOutput([]byte(g.output))
		if !ok || !sameVerdict(t, decoded[n], full) {
			t.Fatalf("%q: result %d decoded as %+v, alone as %+v (%v)", text, n, decoded[n], full, ok)
		}
	}
}

func TestScanBatchOutputMatchesEncodingJSON(t *testing.T) {
	takes := 0
	for _, text := range batchOutputTexts {
		checkBatchScan(t, text)
		if _, ok := scanBatchOutput(text, nil); ok {
			takes++
		}
	}
	for _, v := range verdictTexts {
		text := `{"results":[{"call":0,"output":` + strings.TrimSpace(v) + `},{"call":1,"error":"x"}]}`
		checkBatchScan(t, text)
	}
	if takes < 8 {
		t.Errorf("the fast path took %d of the usual batch outputs", takes)
	}
}

func FuzzScanBatchOutput(f *testing.F) {
	for _, text := range batchOutputTexts {
		f.Add(text)
	}
	for _, v := range verdictTexts {
		f.Add(`{"results":[{"call":0,"output":` + v + `}]}`)
	}
	f.Fuzz(func(t *testing.T, text string) { checkBatchScan(t, text) })
}
