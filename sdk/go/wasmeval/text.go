package wasmeval

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// NormalizeText applies the text check's normalisations, as the engine
// does: line endings become \n; ignoring case lowercases every character
// (Unicode simple lowercase mapping); ignoring whitespace collapses runs of
// whitespace inside a line to one space, trims each line and drops blank
// lines.
func NormalizeText(s string, ignoreWhitespace, ignoreCase bool) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if ignoreCase {
		s = strings.Map(unicode.ToLower, s)
	}
	if !ignoreWhitespace {
		return s
	}
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			lines = append(lines, strings.Join(f, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// ParseJSONL decodes JSON Lines into a list of records; blank lines are
// skipped and a bad line is reported with its number.
func ParseJSONL(s string) ([]any, error) {
	records := []any{}
	for i, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := ParseJSON([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		records = append(records, v)
	}
	return records, nil
}

// ParseNumber reads s (surrounding whitespace ignored) as a JSON number
// literal; every SDK accepts exactly the JSON grammar, so "0x10", "inf" or
// "1_000" are not numbers anywhere.
func ParseNumber(s string) (float64, bool) {
	v, err := ParseJSON([]byte(strings.TrimSpace(s)))
	n, ok := v.(json.Number)
	if err != nil || !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}
