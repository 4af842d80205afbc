package parquet

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// A large value is stored once. Its bytes are random, so compression
// cannot hide copies: the file stays near the size of the expected and
// actual values together. Min/max statistics used to repeat each value in
// page headers and the footer, and a 50 MB expected output made a file of
// hundreds of megabytes.
func TestLargeValuesAreStoredOnce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte('a' + rng.Intn(26))
	}
	expected := string(big)
	rng.Shuffle(len(big), func(i, j int) { big[i], big[j] = big[j], big[i] })
	actual := string(big)
	rec := &result.CaseRecord{Problem: "p", Checkpoint: "c", Group: "g", ID: "big", Case: &result.CaseInfo{},
		Result:     result.Execution{Output: actual},
		Attributes: []verify.AttributeResult{{Attribute: "output", Actual: actual, Expected: expected, Weight: 1, Check: "text"}},
	}
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path, "run", "sub")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Two values take at most their own bytes (compression may save some);
	// a third copy would pass the limit.
	if limit := int64(len(expected)) * 5 / 2; st.Size() > limit {
		t.Errorf("file is %d bytes for two values of %d: values are stored more than once", st.Size(), len(expected))
	}
	rows := duckQuery(t, map[string]string{"n": "SELECT length(a.expected) AS e, length(a.actual) AS a FROM read_parquet('" + path + "'), unnest(attributes) AS t(a)"})
	if r := rows["n"]; len(r) != 1 || num(r[0]["e"]) != float64(len(expected)+2) || num(r[0]["a"]) != float64(len(actual)+2) {
		t.Errorf("read back: %v", r)
	}
}
