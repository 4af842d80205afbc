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

// verifyOutputOf gives what decoding the text into the type gives (with
// numbers kept as json.Number, as the built-in checks keep them).
func TestVerifyOutputOfMatchesDecoding(t *testing.T) {
	for _, text := range []string{
		`{"attributes":[]}`,
		`{"attributes":null,"error":"cannot verify: not a table"}`,
		`{"attributes":[{"attribute":"output","actual":{"a":[1,2.5,"x",null,true]},"expected":{"a":[1,2.50]},"is_correct":false,"weight":0.5,
		  "diff":{"summary":"$.a: 2 differences","entries":[{"path":"$.a[1]","op":"changed","expected":2.50,"actual":2.5},{"path":"$.a[2]","op":"extra","actual":"x"}],"truncated":true}}]}`,
		`{"attributes":[{"attribute":"stdout","actual":"a\nb","expected":"a\nc","is_correct":false,"weight":1,"diff":{"summary":"line 2 differs","unified":"@@ -1,2 +1,2 @@\n a\n-c\n+b\n"}},
		  {"attribute":"status_code","actual":0,"expected":0,"diff":null,"is_correct":true,"weight":2}]}`,
	} {
		doc, err := jsonvalue.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if err := abischema.Validate("verify_output", doc); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		var want abi.VerifyOutput
		dec := json.NewDecoder(bytes.NewReader([]byte(text)))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if want.Attributes == nil {
			want.Attributes = []abi.Attribute{}
		}
		if got := verifyOutputOf(doc); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", text, got, want)
		}
	}
}
