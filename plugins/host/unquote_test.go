package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

var unquoteCorpus = []string{
	`""`, `"plain"`, `"esc\"aped\\ \n \t \u00e9 \ud83d\ude00"`, `"lone \ud800 surrogate"`,
	`"ünïcödé 😀 e\u0301"`, `"\ud800\ud800 \udc00 \ud83d\u0041 \ud83d\\ \ud83d"`, `"a\b\f\r\/\u0000\uFFFD\uabcd"`,
	`"` + strings.Repeat("x", 400) + `\n"`, `"\ud83d\u12"`, `"x\u00"`,
}

// TestUnquote holds unquoteLit to encoding/json on every literal
// jsonvalue.ValueEnd accepts.
func TestUnquote(t *testing.T) {
	for _, lit := range unquoteCorpus {
		checkUnquote(t, lit)
	}
}

func FuzzUnquote(f *testing.F) {
	for _, lit := range unquoteCorpus {
		f.Add(lit)
	}
	f.Fuzz(checkUnquote)
}

func checkUnquote(t *testing.T, lit string) {
	if end, ok := jsonvalue.ValueEnd(lit, 0); !ok || end != len(lit) || lit[0] != '"' {
		return // not a literal the scanner would hand over
	}
	var want string
	if err := json.Unmarshal([]byte(lit), &want); err != nil {
		t.Fatalf("ValueEnd accepted %q, which encoding/json refuses: %v", lit, err)
	}
	if got, ok := unquoteLit(lit); !ok || got != want {
		t.Fatalf("unquoteLit(%q) = %q, %v; want %q", lit, got, ok, want)
	}
}
