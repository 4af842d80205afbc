package diag

import (
	"encoding/json"
	"fmt"
)

// DescribeJSON names a decoded JSON value's type for an error message —
// "a string ("abc")", "a number (3)", "a list" — with short scalars
// quoted, so the message says what was found, not only that it is wrong.
// Numbers may be float64 or json.Number.
func DescribeJSON(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		if len(t) > 40 {
			t = t[:40] + "…"
		}
		return fmt.Sprintf("a string (%q)", t)
	case json.Number:
		return "a number (" + t.String() + ")"
	case float64:
		return fmt.Sprintf("a number (%v)", t)
	case bool:
		return fmt.Sprintf("a boolean (%v)", t)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
