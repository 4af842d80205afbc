package host

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/abi/abischema"
	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

// verdictTexts are verify outputs the schema accepts.
var verdictTexts = []string{
	`{"attributes":[]}`,
	`{"attributes":null,"error":"cannot verify: not a table"}`,
	`{"error":"no \"table\" here\n"}`,
	` {"attributes" : [ {"attribute":"status_code","actual":0,"expected":0,"is_correct":true,"weight":1} ] } `,
	`{"attributes":[{"attribute":"output","actual":{"b":[1,2.50,"x\u00e9<&>",null,true],"a":{}},"expected":{"b":[1,2.50,"x\u00e9<&>",null,true],"a":{}},"is_correct":true,"weight":1}]}`,
	`{"attributes":[{"attribute":"output","actual":{"a":[1,2.5,"x",null,true]},"expected":{"a":[1,2.50]},"is_correct":false,"weight":0.5,
	  "diff":{"summary":"$.a: 2 differences","entries":[{"path":"$.a[1]","op":"changed","expected":2.50,"actual":2.5},{"path":"$.a[2]","op":"extra","actual":"x"}],"truncated":true}}]}`,
	`{"attributes":[{"attribute":"stdout","actual":"a\nb","expected":"a\nc","is_correct":false,"weight":1,"diff":{"summary":"line 2 differs","unified":"@@ -1,2 +1,2 @@\n a\n-c\n+b\n"}},
	  {"attribute":"status_code","actual":0,"expected":null,"diff":null,"is_correct":true,"weight":2}]}`,
	`{"attributes":[{"attribute":"caf\u00e9","is_correct":false,"weight":-0,"note":{"x":[1]},"diff":{"summary":"s","entries":[]}}],"extra":1}`,
	`{"attributes":[{"weight":1e-400,"is_correct":true,"attribute":"x","actual":"\ud800"}]}`,
	`{"attributes":[{"actual":"7 wrong\n","attribute":"output","diff":{"entries":[{"actual":"7 wrong","expected":"7 x\u00e9","op":"chang\u0065d","path":"line 1"},{"op":"missing","path":"line 2","expected":null},{"path":"line 3","op":"extra","actual":true}],"summary":"1 line differs","truncated":false,"unified":"@@ -1 +1 @@\n-7 x\n+7 wrong\n"},"expected":"7 x\u00e9\n","is_correct":false,"weight":1}]}`,
}

// fullVerifyOutput is the full path: parse, schema, decode.
func fullVerifyOutput(text string) (abi.VerifyOutput, error) {
	doc, err := jsonvalue.Parse(text)
	if err != nil {
		return abi.VerifyOutput{}, err
	}
	if err := abischema.Validate("verify_output", doc); err != nil {
		return abi.VerifyOutput{}, err
	}
	return verifyOutputOf(doc), nil
}

// sameVerdict compares two verdicts by the value they encode to, which is
// what the journal and the reports see.
func sameVerdict(t *testing.T, a, b abi.VerifyOutput) bool {
	t.Helper()
	norm := func(v abi.VerifyOutput) any {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func TestScanVerifyOutputMatchesFullPath(t *testing.T) {
	for _, text := range verdictTexts {
		want, err := fullVerifyOutput(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got, ok := scanVerifyOutput([]byte(text))
		if !ok {
			t.Errorf("%s: refused", text)
			continue
		}
		if !sameVerdict(t, got, want) {
			t.Errorf("%s:\nscanned %+v\nfull    %+v", text, got, want)
		}
		for _, a := range got.Attributes {
			switch v := a.Actual.(type) {
			case map[string]any, []any:
				t.Errorf("%s: actual %T, want its text", text, v)
			case json.RawMessage:
				if v[0] != '{' && v[0] != '[' {
					t.Errorf("%s: actual %s kept as text, want it decoded", text, v)
				}
			}
		}
	}
}

// A passing verdict's expected value is the same text as its actual one:
// it is kept once.
func TestScanVerifyOutputSharesRepeatedValue(t *testing.T) {
	got, ok := scanVerifyOutput([]byte(verdictTexts[4]))
	if !ok {
		t.Fatal("refused")
	}
	a, e := got.Attributes[0].Actual.(json.RawMessage), got.Attributes[0].Expected.(json.RawMessage)
	if &a[0] != &e[0] {
		t.Error("the repeated value was copied")
	}
}

// A diff as verifiers write it is decoded in place (diff); one it
// refuses is left to diffOfText, and both give the same for what both
// accept.
func TestScanDiff(t *testing.T) {
	for _, tt := range []struct {
		text     string
		inPlace  bool // diff accepts it
		accepted bool // diffOfText accepts it
	}{
		{`null`, true, true},
		{`{"summary":"s"}`, true, true},
		{`{"summary":"s","entries":[]}`, true, true},
		{`{"summary":"a\nb","unified":"-a\n+b\n","truncated":true,"entries":[{"path":"line 1","op":"changed","expected":"a","actual":"b"},{"path":"$.x","op":"missing","expected":null},{"path":"$.y","op":"extra","actual":false}]}`, true, true},
		{`{"summary":"s","entries":[{"path":"$.a","op":"type","expected":1,"actual":"1"}]}`, false, true},
		{`{"summary":"s","entries":[{"path":"$.a","op":"changed","expected":{"b":1}}]}`, false, true},
		{`{"summary":"s","note":"x"}`, false, true},
		{`{"summary":"s","summary":"t"}`, false, true},
		{`{"summary":"s","entries":[{"path":"$","op":"moved"}]}`, false, false},
		{`{"summary":"s","entries":[{"path":"$"}]}`, false, false},
		{`{"summary":"s","entries":null}`, false, false},
		{`{"summary":"s","truncated":1}`, false, false},
		{`{"summary":1}`, false, false},
		{`{"unified":"u"}`, false, false},
		{`[]`, false, false},
	} {
		sc := &verdictScanner{s: tt.text, detach: true}
		got, ok := sc.diff()
		ok = ok && sc.i == len(tt.text)
		want, wantOK := diffOfText(tt.text)
		if ok != tt.inPlace || wantOK != tt.accepted {
			t.Errorf("%s: in place %v, diffOfText %v; want %v, %v", tt.text, ok, wantOK, tt.inPlace, tt.accepted)
			continue
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nin place   %+v\ndiffOfText %+v", tt.text, got, want)
		}
	}
}

// What the scanner refuses goes the full path, which either decodes it
// (a repeated key keeps the last) or words the fault.
func TestScanVerifyOutputRefuses(t *testing.T) {
	for _, tt := range []struct {
		text        string
		schemaValid bool
	}{
		{``, false},
		{`[]`, false},
		{`{}`, false},
		{`{"attributes":{}}`, false},
		{`{"attributes":[1]}`, false},
		{`{"attributes":[{"attribute":"","is_correct":true,"weight":1}]}`, false},
		{`{"attributes":[{"attribute":"x","is_correct":true}]}`, false},
		{`{"attributes":[{"attribute":"x","is_correct":1,"weight":1}]}`, false},
		{`{"attributes":[{"attribute":"x","is_correct":true,"weight":-1}]}`, false},
		{`{"attributes":[{"attribute":"x","is_correct":true,"weight":"1"}]}`, false},
		{`{"attributes":[{"attribute":"x","is_correct":true,"weight":1,"diff":{}}]}`, false},
		{`{"attributes":[{"attribute":"x","is_correct":true,"weight":1,"diff":{"summary":"s","entries":[{"path":"$","op":"moved"}]}}]}`, false},
		{`{"attributes":[{"attribute":"x","is_correct":true,"weight":1,"diff":[]}]}`, false},
		{`{"attributes":[],"error":3}`, false},
		{`{"attributes":[]} x`, false},
		{`{"attributes":[{"attribute":"x","is_correct":truex,"weight":1}]}`, false},
		{`{"attributes":[{"attribute":"x","actual":"` + "\xff" + `","is_correct":true,"weight":1}]}`, true}, // decoding replaces the byte
		{`{"attributes":[{"attribute":"x","is_correct":true,"weight":1,"weight":2}]}`, true},
		{`{"attributes":[],"attributes":null}`, true},
		{`{"attributes":[{"attribute":"x","is_correct":true,"weight":1e400}]}`, true},
	} {
		if _, ok := scanVerifyOutput([]byte(tt.text)); ok {
			t.Errorf("%q: accepted", tt.text)
		}
		if _, err := fullVerifyOutput(tt.text); (err == nil) != tt.schemaValid {
			t.Errorf("%q: full path error %v, want valid=%v", tt.text, err, tt.schemaValid)
		}
	}
}

// FuzzScanVerifyOutput holds the scanner to the full path: whatever it
// accepts, the schema accepts, and both give the same verdict.
func FuzzScanVerifyOutput(f *testing.F) {
	for _, text := range verdictTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, ok := scanVerifyOutput([]byte(text))
		if !ok {
			return
		}
		want, err := fullVerifyOutput(text)
		if err != nil {
			t.Fatalf("%q: scanned, but the full path says %v", text, err)
		}
		if !sameVerdict(t, got, want) {
			t.Fatalf("%q:\nscanned %+v\nfull    %+v", text, got, want)
		}
		// A cached verdict is scanned keeping no part of its text.
		if detached, ok := scanVerifyOutputDetached(text); !ok || !sameVerdict(t, detached, got) {
			t.Fatalf("%q: detached %+v, %v; scanned %+v", text, detached, ok, got)
		}
	})
}
