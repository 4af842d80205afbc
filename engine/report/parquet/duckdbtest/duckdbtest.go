// Package duckdbtest runs SQL with DuckDB from npm — a Parquet reader that
// shares no code with the writer — for tests anywhere in the module that
// check the Parquet files wasmeval writes. The node project lives in
// engine/report/parquet/testdata/duckdb (installed by `npm ci` there).
package duckdbtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir is the node project with DuckDB.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "duckdb")
}

// Query runs each named SQL query and returns its rows, as DuckDB prints
// them as JSON (big integers come as strings). Without node or the DuckDB
// package the test is skipped, or fails under CI=true.
func Query(t testing.TB, queries map[string]string) map[string][]map[string]any {
	t.Helper()
	dir := Dir()
	node, err := exec.LookPath("node")
	missing := ""
	if err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		missing = "@duckdb/node-api is not installed (run: npm ci --prefix " + dir + ")"
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reading Parquet back needs DuckDB: %s", missing)
		}
		t.Skipf("reading Parquet back needs DuckDB: %s", missing)
	}
	qf := filepath.Join(t.TempDir(), "queries.json")
	data, _ := json.Marshal(queries)
	if err := os.WriteFile(qf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "query.mjs", qf)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("duckdb: %v\n%s", err, stderr)
	}
	var res map[string][]map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, out)
	}
	return res
}
