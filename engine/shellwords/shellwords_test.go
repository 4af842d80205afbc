package shellwords

import (
	"strings"
	"testing"
)

// What has no meaning without a shell is an error at its position; a
// process substitution used to crash the shell library's expansion.
func TestSplitRefusesWhatNeedsAShell(t *testing.T) {
	for in, want := range map[string]string{
		"a $(ls)":   "unexpected command substitution at 1:3",
		"a `ls`":    "unexpected command substitution at 1:3",
		`a "$(ls)"`: "unexpected command substitution at 1:4",
		"a <(ls)":   "unexpected process substitution at 1:3",
		"a > b":     "1:3: `>` is not a valid word",
		"a | b":     "1:3: `|` is not a valid word",
	} {
		got, err := Split(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Split(%s) = %q, %v; want an error saying %q", in, got, err, want)
		}
	}
}
