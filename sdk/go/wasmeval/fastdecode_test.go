package wasmeval

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fastDecodeSeeds are verify inputs for the fast path: the target case,
// the conformance suite's vectors and envelopes it must leave to the
// general path.
func fastDecodeSeeds(tb testing.TB) []string {
	singles, _ := targetInputs(tb, 2)
	seeds := []string{string(singles[0]), string(singles[1])}
	files, _ := filepath.Glob("../../../plugins/conformance/vectors/verify*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		v, err := ParseJSON(data)
		if err != nil {
			tb.Fatal(err)
		}
		if in, ok := v.(map[string]any)["input"]; ok {
			enc, _ := EncodeJSON(in)
			seeds = append(seeds, string(enc))
		}
	}
	return append(seeds,
		`{}`, `null`, `[]`, `{"case":null,"actual":null,"config":null,"expected":null,"abi_version":null}`,
		`{"abi_version":1,"case":{"id":"a","id":"b"}}`,
		`{"abi_version":1,"abi_version":1}`,
		`{"abi_version":1.5}`, `{"abi_version":1e3}`, `{"abi_version":"1"}`,
		`{"case":{"id":7}}`, `{"case":{"arguments":["a",null,"b"]}}`, `{"case":{"arguments":["a",1]}}`,
		`{"case":{"stdin":null}}`, `{"case":{"stdin":"in\n"}}`, `{"case":{"stdin":3}}`,
		`{"case":{"env":{"A":"1","B":null},"input_files":[{"path":"p","content":"c"}],"tracked_files":["t"],"expected":{"x":1},"extra":{},"timeout_s":2.5,"reset":true,"request":{"m":1}}}`,
		`{"case":{"env":{"A":1}}}`, `{"case":{"input_files":[{}]}}`, `{"case":{"input_files":[3]}}`,
		`{"actual":{"status_code":2,"output":"o","stderr":"e","files":{"f":"x"},"timed_out":true,"headers":{"a":"b"}}}`,
		`{"actual":{"mock_calls":[{"mock":"payments","method":"POST","path":"/v1/charges","query":{"a":["1","2"]},"headers":{"h":[]},"body":"{\"amount\":1999}","status":201,"route":0},{"mock":"rates","body_base64":"/w==","route":-1,"unmatched":true,"fault":"f"}]}}`,
		`{"actual":{"mock_calls":[]}}`, `{"actual":{"mock_calls":null}}`, `{"actual":{"mock_calls":[null,{}]}}`,
		`{"actual":{"mock_calls":{}}}`, `{"actual":{"mock_calls":[{"status":"201"}]}}`, `{"actual":{"mock_calls":[{"query":{"a":"1"}}]}}`,
		`{"actual":{"mock_calls":[{"route":1.5}]}}`, `{"actual":{"mock_calls":[3]}}`,
		`{"actual":{"status_code":2.5}}`, `{"actual":{"timed_out":1}}`, `{"actual":{"files":[]}}`,
		`{"expected":[],"config":{}}`, `{"expected":{"output":"x"},"unknown":[1,{"a":[]}]}`,
		`{"c\u0061se":{"id":"x"}}`, `{"case":{"\u0069d":"x"}}`,
		` { "case" : { "id" : "sp" } , "actual" : { } } `,
		`{"case":{"id":"x"}`, `{"case":{"id":"x"}} x`, `{"case":{"id":"\x"}}`,
		`{"expected":{"deep":`+strings.Repeat("[", 998)+strings.Repeat("]", 998)+`}}`,
		`{"expected":{"deep":`+strings.Repeat("[", 999)+strings.Repeat("]", 999)+`}}`,
	)
}

// checkFastDecode holds the fast path to the general one: whatever it
// decodes, the general path decodes to the same input.
func checkFastDecode(t *testing.T, s string) {
	p := parser{data: []byte(s)}
	p.skip()
	in, ok := p.fastVerifyInput()
	if !ok {
		return
	}
	p.skip()
	if p.pos != len(s) {
		return
	}
	v, err := ParseJSON([]byte(s))
	if err != nil {
		t.Fatalf("%q: the fast path decodes what ParseJSON refuses: %v", s, err)
	}
	want, err := verifyInputOf(v)
	if err != nil {
		t.Fatalf("%q: the fast path decodes what the decoder refuses: %v", s, err)
	}
	if !reflect.DeepEqual(in, want) {
		t.Fatalf("%q:\nfast    %#v\ngeneral %#v", s, in, want)
	}
}

func TestFastVerifyInput(t *testing.T) {
	decoded := 0
	for _, s := range fastDecodeSeeds(t) {
		checkFastDecode(t, s)
		p := parser{data: []byte(s)}
		if _, ok := p.fastVerifyInput(); ok {
			decoded++
		}
	}
	if decoded < 10 {
		t.Errorf("the fast path decoded only %d of the seeds", decoded)
	}
	// Single calls and batches answer with the same bytes either way.
	seeds := fastDecodeSeeds(t)
	var calls []string
	for _, s := range seeds {
		if _, err := ParseJSON([]byte(s)); err == nil {
			calls = append(calls, s)
		}
	}
	batch := `{"abi_version":1,"calls":[` + strings.Join(calls, ",") + `]}`
	fast, err := HandleVerifyBatch([]byte(batch), echoVerifier)
	if err != nil {
		t.Fatal(err)
	}
	general, err := handleBatch(nil, []byte(batch), func(dst []byte, v any) ([]byte, error) { return verifyValue(dst, v, echoVerifier) })
	if err != nil {
		t.Fatal(err)
	}
	if string(fast) != string(general) {
		t.Errorf("batch:\nfast    %s\ngeneral %s", fast, general)
	}
	for _, s := range seeds {
		got, gotErr := HandleVerify([]byte(s), echoVerifier)
		v, err := ParseJSON([]byte(s))
		var want []byte
		var wantErr error
		if err != nil {
			wantErr = inputError(err)
		} else {
			want, wantErr = verifyValue(nil, v, echoVerifier)
		}
		if string(got) != string(want) || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%q: got %s %v, want %s %v", s, got, gotErr, want, wantErr)
		}
	}
}

func FuzzFastVerifyInput(f *testing.F) {
	for _, s := range fastDecodeSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkFastDecode)
}

// A verifier reads the calls a case's mocks received as Actual.MockCalls,
// whichever path decodes the envelope; a call of the wrong shape is an
// input error naming the field.
func TestDecodeMockCalls(t *testing.T) {
	s := `{"abi_version":1,"actual":{"status_code":0,"mock_calls":[` +
		`{"mock":"payments","method":"POST","path":"/v1/charges","query":{"currency":["EUR"]},"headers":{"idempotency-key":["k1"]},"body":"{\"amount\":1999}","status":201,"route":0},` +
		`{"mock":"payments","method":"GET","path":"/x","body_base64":"/w==","status":501,"route":-1,"unmatched":true}]}}`
	want := []MockCall{
		{Mock: "payments", Method: "POST", Path: "/v1/charges", Query: map[string][]string{"currency": {"EUR"}},
			Headers: map[string][]string{"idempotency-key": {"k1"}}, Body: `{"amount":1999}`, Status: 201},
		{Mock: "payments", Method: "GET", Path: "/x", BodyBase64: "/w==", Status: 501, Route: -1, Unmatched: true},
	}
	p := parser{data: []byte(s)}
	fast, ok := p.fastVerifyInput()
	if !ok {
		t.Fatal("the fast path left the envelope to the general path")
	}
	general, err := DecodeVerifyInput([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]*VerifyInput{"fast": fast, "general": general} {
		if !reflect.DeepEqual(in.Actual.MockCalls, want) {
			t.Errorf("%s: %#v", name, in.Actual.MockCalls)
		}
	}
	_, err = DecodeVerifyInput([]byte(`{"actual":{"mock_calls":[{"mock":"p"},{"status":"201"}]}}`))
	if err == nil || err.Error() != "$.actual.mock_calls[1].status is a string, expected a number" {
		t.Errorf("error %v", err)
	}
}
