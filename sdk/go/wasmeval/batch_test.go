package wasmeval

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// echoVerifier answers with the case's id, fails when the config says
// fail, and refuses (a verdict) when it says refuse.
func echoVerifier(in *VerifyInput) (*VerifyOutput, error) {
	if s, _ := in.Config["fail"].(string); s != "" {
		return nil, errors.New(s)
	}
	if s, _ := in.Config["refuse"].(string); s != "" {
		return &VerifyOutput{Error: s}, nil
	}
	return &VerifyOutput{Attributes: []Attribute{{Attribute: "id", Actual: in.Case.ID, Expected: in.Expected["id"], IsCorrect: in.Case.ID == in.Expected["id"], Weight: 1}}}, nil
}

// A batch's results are the single calls' outputs and failures, byte for
// byte, whatever the calls hold.
func TestBatchMatchesSingleCalls(t *testing.T) {
	calls := []string{
		`{"abi_version":1,"case":{"id":"a"},"expected":{"id":"a"},"actual":{"output":"x"}}`,
		`{"abi_version":1,"case":{"id":"b"},"expected":{"id":"a"},"config":{"fail":"cannot \"read\" <it>\n"}}`,
		`{"abi_version":1,"case":{"id":"c"},"config":{"refuse":"no"}}`,
		` {"abi_version" : 1, "case" : {"id":"d\u00e9 [x] {y}"}, "expected":{"id":"d\u00e9 [x] {y}"}} `,
		`[]`,
		`null`,
		`"a string"`,
		`12`,
		`{"abi_version":1,"case":{"id":7}}`,
		`{"abi_version":1,"case":{"id":"e"},"expected":{"deep":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}}`,
		`{"abi_version":1,"case":{"id":"e"},"expected":{"deep":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`,
		`{"abi_version":1,"case":{"id":"f"},"bad":tru}`,
		`{"abi_version":1,"case":{"id":"\ud800"}}`,
		`{"abi_version":1,"case":{"id":"a"},"expected":{"id":"a"},"actual":{"output":"x"}}`,
	}
	input := `{"calls":[` + strings.Join(calls, ",\n ") + `], "abi_version":1}`
	out, err := HandleVerifyBatch([]byte(input), echoVerifier)
	if err != nil {
		t.Fatal(err)
	}
	var batch struct {
		Results []struct {
			Call   *int
			Output json.RawMessage
			Error  *string
		}
	}
	if err := json.Unmarshal(out, &batch); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(batch.Results) != len(calls) {
		t.Fatalf("%d results for %d calls", len(batch.Results), len(calls))
	}
	for i, r := range batch.Results {
		want, wantErr := HandleVerify([]byte(strings.TrimSpace(calls[i])), echoVerifier)
		switch {
		case r.Call == nil || *r.Call != i:
			t.Errorf("result %d answers call %v", i, r.Call)
		case wantErr != nil && (r.Error == nil || *r.Error != wantErr.Error() || r.Output != nil):
			t.Errorf("call %d: want failure %q, got %+v", i, wantErr, r)
		case wantErr == nil && (r.Error != nil || string(r.Output) != string(want)):
			t.Errorf("call %d: want %s, got %s %v", i, want, r.Output, r.Error)
		}
	}
	// The output is canonical: call before error or output.
	if !strings.HasPrefix(string(out), `{"results":[{"call":0,"output":{"attributes":[`) ||
		!strings.Contains(string(out), `{"call":1,"error":"cannot \"read\" \u003cit\u003e\n"}`) {
		t.Errorf("batch output %s", out)
	}
}

// An input that is not a batch fails the batch as a whole, saying why.
func TestBatchInputErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"abi_version":1}`:                      "invalid input: $.calls is missing, expected an array",
		`{}`:                                     "invalid input: $.calls is missing, expected an array",
		`{"abi_version":1,"calls":{}}`:           "invalid input: $.calls is an object, expected an array",
		`{"abi_version":1,"calls":null}`:         "invalid input: $.calls is null, expected an array",
		`[]`:                                     "invalid input: $ is an array, expected an object",
		`{"calls":[{}]`:                          "invalid input: invalid JSON at byte 13: unexpected end of input",
		`{"calls":[{}]} x`:                       "invalid input: invalid JSON at byte 15: unexpected data after the value",
		`{"calls":[{},]}`:                        "invalid input: invalid JSON at byte 13: unexpected byte 0x5d",
		`{"calls":[{}] "x":1}`:                   "invalid input: invalid JSON at byte 14: unexpected byte 0x22",
		`{"calls":[{}],"calls":3}`:               "invalid input: $.calls is a number, expected an array",
		"{\"calls\":[{\"a\":\"\xff\"}],\"x\":[}": "invalid input: invalid JSON at byte 16: invalid UTF-8",
		``:                                       "invalid input: invalid JSON at byte 0: unexpected end of input",
	} {
		_, err := HandleVerifyBatch([]byte(in), echoVerifier)
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", in, err, want)
		}
	}
}

// The calls array is found under any spelling of its key, the last one
// counts, and the other members are skipped whatever they hold.
func TestBatchCallsKey(t *testing.T) {
	for _, in := range []string{
		`{"\u0063alls":[{"case":{"id":"x"}}]}`,
		`{"calls":[{"case":{"id":"y"}}],"calls":[{"case":{"id":"x"}}]}`,
		`{"other":{"calls":[1,2]},"x":"]}\"[{","n":-1.5e3,"t":true,"calls":[{"case":{"id":"x"}}],"z":null}`,
	} {
		out, err := HandleVerifyBatch([]byte(in), echoVerifier)
		if err != nil || !strings.Contains(string(out), `"actual":"x"`) || strings.Count(string(out), `"call":`) != 1 {
			t.Errorf("%s: %s %v", in, out, err)
		}
	}
	out, err := HandleVerifyBatch([]byte(`{"calls":[]}`), echoVerifier)
	if err != nil || string(out) != `{"results":[]}` {
		t.Errorf("no calls: %s %v", out, err)
	}
}

// A batch's work per call is the single call's: measured with the
// conformance suite's verify_json_diff vector, 64 calls a batch.
//
//	go test -run '^$' -bench Batch -benchmem ./sdk/go/wasmeval/
func BenchmarkBatch(b *testing.B) {
	call := verifyInput(b)
	const n = 64
	calls := make([]string, n)
	for i := range calls {
		calls[i] = string(call)
	}
	batch := []byte(`{"abi_version":1,"calls":[` + strings.Join(calls, ",") + `]}`)
	fn := func(in *VerifyInput) (*VerifyOutput, error) { return benchVerify(in), nil }
	b.Run("single", func(b *testing.B) {
		var dst []byte
		for i := 0; i < b.N; i++ {
			var err error
			if dst, err = handleVerify(dst[:0], call, fn); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("batch-"+strconv.Itoa(n), func(b *testing.B) {
		var dst []byte
		one := func(dst []byte, v any) ([]byte, error) { return verifyValue(dst, v, fn) }
		for i := 0; i < b.N; i++ {
			var err error
			if dst, err = handleBatch(dst[:0], batch, one); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
	})
}

// skipValue ends every valid JSON value where the parser ends it.
func TestSkipValue(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `""`, `"a\"b\\"`, `"\\"`, `"\u005c"`, `0`, `-1.5e+3`, `true`, `null`,
		`{"a":[1,{"b":"]}"},"\\\""],"c":{}}`,
		`[[[[]]],{"x":{"y":[]}}]`,
		`{"s":"` + strings.Repeat(`\"{[`, 100) + `"}`,
		strings.Repeat("[", 1500) + strings.Repeat("]", 1500),
	}
	data, err := os.ReadFile("../../../plugins/conformance/vectors/verify_unicode.json")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, strings.TrimSpace(string(data)))
	for _, d := range docs {
		for _, tail := range []string{"", ",", "]", " x"} {
			end, ok := skipValue([]byte(d+tail), 0)
			if !ok || end != len(d) {
				t.Errorf("%.60s + %q: ended at %d %v, want %d", d, tail, end, ok, len(d))
			}
		}
		// Cut short, a string, object or array has no end.
		if d[0] == '"' || d[0] == '{' || d[0] == '[' {
			if end, ok := skipValue([]byte(d[:len(d)-1]), 0); ok {
				t.Errorf("%.60s cut short: ended at %d", d, end)
			}
		}
	}
}
