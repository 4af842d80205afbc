package diag

import "testing"

// An error says its file, line and key path as far as it knows them, and
// an error with none is its message alone, not ": message".
func TestErrorSaysWhereItKnows(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{File: "c.yaml", Line: 3, Path: "a.b", Msg: "bad"}, "c.yaml:3: a.b: bad"},
		{Error{File: "c.yaml", Msg: "bad"}, "c.yaml: bad"},
		{Error{Path: "a.b", Msg: "bad"}, "a.b: bad"},
		{Error{Msg: "bad"}, "bad"},
		{Error{File: "g.yaml", Line: 1, Path: "a\x00b.env", Msg: "bad"}, `g.yaml:1: "a\x00b.env": bad`},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}
