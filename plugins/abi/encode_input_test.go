package abi

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fullVerifyInput sets every field of a verify envelope, its case and its
// actual result, with the awkward values JSON encoding has rules for.
func fullVerifyInput() VerifyInput {
	stdin := "in <put> & \u2028 \xff"
	return VerifyInput{ABIVersion: Version,
		Config: map[string]any{"tolerance": 0.001, "mode": "json", "n": json.Number("12"), "list": []any{1, "two", nil, true}, "int": 7,
			"int64": int64(-1 << 63), "uint64": uint64(1<<64 - 1), "int8": int8(-8),
			// More keys than sortedKeys sorts in place.
			"many": map[string]any{"k": 1, "j": 2, "i": 3, "h": 4, "g": 5, "f": 6, "e": 7, "d": 8, "c": 9, "b": 10, "a": 11}},
		Case: Case{ID: "c<1>", Checkpoint: "cp", Group: "g", GroupType: "Core", Arguments: []string{"a b", "\"q\""},
			Stdin: &stdin, Env: map[string]string{"Z": "1", "A": "<2>"},
			InputFiles:   []InputFile{{Path: "a.txt", Content: "text"}, {Path: "b.bin", Content: "AQI=", Encoding: "base64"}},
			TrackedFiles: []string{"out/*.csv"}, Expected: map[string]any{"output": "x\n"}, TimeoutS: 2.5, Reset: true,
			Extra: map[string]any{"mode": "trap"}, Request: map[string]any{"method": "GET", "path": "/"},
			Steps: []any{map[string]any{"goto": "/"}, "click"}},
		Actual: Actual{StatusCode: 3, Output: `{"a":"<b>"}` + "\t\x01\u2029", Stderr: "err\xfe",
			Files:   map[string]any{"b.bin": []byte{0, 1, 2}, "a.csv": "x,y\n", "n.bin": []byte(nil)},
			Headers: map[string]string{"content-type": "application/json", "x-a": "&"}, TimedOut: true,
			MockCalls: []MockCall{{Mock: "pay", Method: "POST", Path: "/c<1>", Query: map[string][]string{"q": {"1", "&"}},
				Headers: map[string][]string{"x": {"\u2028"}}, Body: `{"a":1}`, BodyBase64: "AA==", Status: 500, Route: 2, Unmatched: true, Fault: "trap <x>"}}},
		Expected: map[string]any{"status_code": 3, "output": map[string]any{"a": "<b>"}, "big": 1e21, "small": 1e-7}}
}

// Every field of the types AppendJSON writes is set in fullVerifyInput, so
// a field added to them without being written fails this test.
func checkEveryFieldSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), path+"."+v.Type().Field(i).Name
		if f.IsZero() {
			t.Errorf("%s is not set in fullVerifyInput: set it, and write it in AppendJSON", name)
			continue
		}
		if f.Kind() == reflect.Struct {
			checkEveryFieldSet(t, f, name)
		}
		if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			checkEveryFieldSet(t, f.Index(f.Len()-1), name+"[]")
		}
	}
}

func sameAsEncodingJSON(t *testing.T, in VerifyInput) {
	t.Helper()
	want, werr := json.Marshal(in)
	got, gerr := in.AppendJSON(nil)
	if (werr == nil) != (gerr == nil) || string(got) != string(want) {
		t.Errorf("AppendJSON:\n%s (%v)\nencoding/json:\n%s (%v)", got, gerr, want, werr)
	}
}

// AppendJSON writes exactly what encoding/json writes for a verify
// envelope, bare or with every field set.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	full := fullVerifyInput()
	checkEveryFieldSet(t, reflect.ValueOf(full), "VerifyInput")
	sameAsEncodingJSON(t, full)
	sameAsEncodingJSON(t, VerifyInput{})
	sameAsEncodingJSON(t, VerifyInput{Config: map[string]any{}, Case: Case{Arguments: []string{}, Env: map[string]string{}}, Expected: map[string]any{}})
	// An expected output that is the actual one's text is copied from it.
	same := fullVerifyInput()
	same.Actual.Output = "{\"a\":\"<\u2028>\"}\n\xff"
	same.Expected["output"] = same.Actual.Output
	same.Expected["status_code"] = 0
	sameAsEncodingJSON(t, same)
	// A value encoding/json refuses is refused alike.
	bad := fullVerifyInput()
	bad.Config["x"] = func() {}
	sameAsEncodingJSON(t, bad)
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("c1", "a b", "{\"x\":1}\n", "err", "out.txt", "k", 0.5)
	f.Add("<&>", "\xff", "\u2028\x00", "\\\"", "", "", 1e300)
	f.Fuzz(func(t *testing.T, id, arg, output, stderr, file, key string, num float64) {
		in := fullVerifyInput()
		in.Case.ID, in.Case.Arguments = id, []string{arg, id}
		in.Actual.Output, in.Actual.Stderr = output, stderr
		in.Actual.Files[file] = []byte(output)
		in.Config[key] = num
		in.Expected[output] = []any{key, num}
		sameAsEncodingJSON(t, in)
		in.Expected["output"] = output
		sameAsEncodingJSON(t, in)
	})
}
