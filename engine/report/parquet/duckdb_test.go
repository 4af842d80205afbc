package parquet

import (
	"testing"

	"github.com/wasmeval/wasmeval/engine/report/parquet/duckdbtest"
)

// duckQuery runs named SQL queries with DuckDB from npm — a reader that
// shares no code with the writer — and returns each query's rows.
func duckQuery(t *testing.T, queries map[string]string) map[string][]map[string]any {
	t.Helper()
	return duckdbtest.Query(t, queries)
}
