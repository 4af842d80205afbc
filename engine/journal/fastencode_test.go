package journal

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// storedOf is the record as encodeRecord stores it.
func storedOf(r *result.CaseRecord) *storedRecord {
	s := &storedRecord{CaseRecord: r}
	if r.Attributes != nil {
		s.Attributes = make([]storedAttribute, len(r.Attributes))
		for i, a := range r.Attributes {
			s.Attributes[i].AttributeResult = a
		}
	}
	return s
}

// checkFastEncode fails the test when appendRecord writes otherwise than
// json.Marshal, or succeeds where it fails.
func checkFastEncode(t *testing.T, r *result.CaseRecord) {
	t.Helper()
	s := storedOf(r)
	want, wantErr := json.Marshal(s)
	got, err := appendRecord(nil, s)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("error %v, json.Marshal's %v", err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("wrote\n%s\njson.Marshal writes\n%s", got, want)
	}
	// And encodeRecord says what it always said when it cannot.
	if _, err := encodeRecord(r); (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("encodeRecord: %v, want %v", err, wantErr)
	}
}

func TestFastEncodeIsEncodingJSON(t *testing.T) {
	for _, r := range sampleRecords() {
		checkFastEncode(t, r)
	}
	type other struct{ N int }
	for _, v := range []any{int(3), []string{"a"}, map[string]int{"b": 1}, other{4}, json.RawMessage(` {"a" : 1} `), []any(nil), map[string]any(nil),
		math.NaN(), math.Inf(1), map[string]any{"x": math.NaN()}, func() {}, 1e21, 1e-7, -0.0, 123456789.0, 5e-324} {
		checkFastEncode(t, &result.CaseRecord{ID: "v", Attributes: []verify.AttributeResult{{Actual: v}}})
	}
	checkFastEncode(t, &result.CaseRecord{ID: "year", StartedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	checkFastEncode(t, &result.CaseRecord{ID: "zone", StartedAt: time.Date(2020, 1, 1, 0, 0, 0, 5, time.FixedZone("x", 3600))})
}

func FuzzFastEncode(f *testing.F) {
	f.Add("plain", 1.5, int64(3), true)
	f.Add("<&> \"quoted\" \\ \x00\x1f\x7f \u2028\u2029 ü \xff\xfe", 1e-7, int64(-1), false)
	f.Add("", 1e21, int64(0), true)
	f.Fuzz(func(t *testing.T, s string, x float64, n int64, flag bool) {
		stdin := s + s
		r := &result.CaseRecord{Problem: s, ProblemVersion: int(n), Checkpoint: s, Version: int(n), Group: s, GroupType: "Core", ID: s,
			Index: int(n), OriginalCheckpoint: s, StartedAt: time.Unix(n%(1<<34), n%1e9).UTC(), Duration: x,
			Case: &result.CaseInfo{Arguments: []string{s, ""}, Stdin: &stdin, Env: map[string]string{s: s, "z" + s: ""}, TimeoutS: x, Reset: flag, Source: s},
			Result: result.Execution{Command: []string{s}, StatusCode: int(n), Output: s, Stderr: s, OutputDropped: n, Elapsed: x, TimedOut: flag, Signal: s,
				Files: map[string]any{s: []any{x, s, flag, nil, map[string]any{s: x}}}, Headers: map[string]string{s: s}, Artifacts: []string{s},
				AdapterError: flag, Error: s, PluginError: s, OOMKilled: flag},
			Attributes: []verify.AttributeResult{{Attribute: s, Actual: s, Expected: x, IsCorrect: flag, Weight: x, Check: s,
				Diff: &verify.Diff{Summary: s, Unified: s, Truncated: flag, Entries: []verify.DiffEntry{{Path: s, Op: s, Expected: x}, {Actual: []any{}}}}}},
			Score: x, Passed: flag, Outcome: result.Outcome(s), ErrorKind: result.ErrorKind(s), Unscored: s, Epoch: int(n), Attempt: int(n)}
		checkFastEncode(t, r)
	})
}

func BenchmarkEncode(b *testing.B) {
	s := storedOf(sampleRecords()[1])
	for _, c := range []struct {
		name string
		fn   func() ([]byte, error)
	}{
		{"encoding-json", func() ([]byte, error) { return json.Marshal(s) }},
		{"append", func() ([]byte, error) { return appendRecord(nil, s) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := c.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The record's types are those the fast codec was written for; and a
// record with every field set (found by reflection, so a field added to
// them is in it) is written and read back as encoding/json does.
func TestFastCodecKnowsEveryField(t *testing.T) {
	if !fastCodec {
		t.Fatal("the record's types changed: update fastdecode.go, fastencode.go and fastguard.go")
	}
	var r result.CaseRecord
	fill(reflect.ValueOf(&r).Elem())
	checkFastEncode(t, &r)
	line, err := json.Marshal(storedOf(&r))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []int{decodeWhole, decodeNoAttribute, decodeHeadOnly} {
		if !checkFastDecode(t, line, mode) {
			t.Errorf("mode %d: a record with every field set is not taken: %s", mode, line)
		}
	}
}

// fill gives every field of v a value other than its zero.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		v.SetMapIndex(reflect.ValueOf("k"), e)
	case reflect.Interface:
		v.Set(reflect.ValueOf("v"))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}
