package abi

import (
	"strings"
	"testing"
)

// With raw strings, a long UTF-8 output is written raw as the actual
// output and, the same text, as the expected one; a short one, or one
// that is not UTF-8, is written as JSON; everything else is AppendJSON's.
func TestAppendInputRaw(t *testing.T) {
	long := `{"total": 21, "note": "` + strings.Repeat(`é"\`, 30) + `"}`
	other := strings.Repeat("x", RawMin)
	for _, c := range []struct {
		name             string
		output, expected any
		wantOut, wantExp string
	}{
		{"same long output", long, long, string(AppendRaw(nil, long)), string(AppendRaw(nil, long))},
		{"other long expected", long, other, string(AppendRaw(nil, long)), string(AppendRaw(nil, other))},
		{"short output", "21", "21", `"21"`, `"21"`},
		{"short expected", long, "21", string(AppendRaw(nil, long)), `"21"`},
		{"not UTF-8", long + "\xff", long + "\xff", string(AppendQuoted(nil, long+"\xff")), string(AppendQuoted(nil, long+"\xff"))},
		{"expected not a string", long, 21.0, string(AppendRaw(nil, long)), `21`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := VerifyInput{ABIVersion: 1, Case: Case{ID: "c1"}, Actual: Actual{Output: c.output.(string)},
				Expected: map[string]any{"output": c.expected, "status_code": 0}}
			got, err := in.AppendInput(nil, true)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"abi_version":1,"config":null,"case":{"id":"c1","arguments":null},"actual":{"status_code":0,"output":` + c.wantOut +
				`,"stderr":"","timed_out":false},"expected":{"output":` + c.wantExp + `,"status_code":0}}`
			if string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			plain, _ := in.AppendInput(nil, false)
			json, _ := in.AppendJSON(nil)
			if string(plain) != string(json) {
				t.Errorf("AppendInput without raw strings %s, AppendJSON %s", plain, json)
			}
		})
	}
}

func TestAppendRaw(t *testing.T) {
	if got := string(AppendRaw([]byte("x"), `a"b`)); got != `x'3:a"b` {
		t.Errorf("AppendRaw = %q", got)
	}
	if got := string(AppendRaw(nil, "")); got != `'0:` {
		t.Errorf("AppendRaw of nothing = %q", got)
	}
}

func TestRawAt(t *testing.T) {
	for _, c := range []struct {
		text       string
		start, end int
		ok         bool
	}{
		{`'3:a"b,`, 3, 6, true},
		{`'0:`, 3, 3, true},
		{`'12:é"\x00\n}]{["'`, 4, 16, true},
		{`'3:ab`, 0, 0, false},        // shorter than its length
		{`'03:abc`, 0, 0, false},      // a leading zero
		{`'3abc`, 0, 0, false},        // no colon
		{`':abc`, 0, 0, false},        // no length
		{`'1:é`, 0, 0, false},         // ends inside a character
		{`'1234567890:`, 0, 0, false}, // more digits than any length
	} {
		start, end, ok := RawAt([]byte(c.text), 0)
		if start != c.start || end != c.end || ok != c.ok {
			t.Errorf("RawAt(%q) = %d, %d, %v, want %d, %d, %v", c.text, start, end, ok, c.start, c.end, c.ok)
		}
	}
}
