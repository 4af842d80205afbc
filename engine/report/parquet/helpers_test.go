package parquet

import (
	"fmt"
	"strconv"
)

// num reads a number DuckDB printed as JSON (big integers come as strings).
func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		return parseNum(x)
	}
	return -1
}

func parseNum(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return -1
	}
	return f
}

func isNumber(v any) bool {
	_, ok := v.(float64)
	return ok || fmt.Sprint(v) == ""
}
