package abischema

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A document with several violations gets the same message every time,
// its violations in the order of their places in the document.
func TestExplainIsInDocumentOrder(t *testing.T) {
	doc, err := parse(`{"attributes":[{"attribute":"","is_correct":"yes"},{"attribute":"b","is_correct":1,"weight":1}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i := 0; i < 50; i++ {
		err := Validate("verify_output", doc)
		if err == nil {
			t.Fatal("a bad verdict passed")
		}
		if i == 0 {
			first = err.Error()
		} else if err.Error() != first {
			t.Fatalf("validation %d said %q, the first %q", i, err.Error(), first)
		}
	}
	order := []string{"'/attributes/0'", "'/attributes/0/attribute'", "'/attributes/0/is_correct'", "'/attributes/1/is_correct'"}
	at := 0
	for _, place := range order {
		i := strings.Index(first[at:], place)
		if i < 0 {
			t.Fatalf("%q: %s missing or out of order", first, place)
		}
		at += i + len(place)
	}
}

func parse(s string) (any, error) { return jsonschema.UnmarshalJSON(strings.NewReader(s)) }
