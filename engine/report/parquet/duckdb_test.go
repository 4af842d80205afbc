package parquet

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// duckDir holds the node project with DuckDB (installed by .ci/run).
const duckDir = "testdata/duckdb"

// duckQuery runs named SQL queries with DuckDB from npm — a reader that
// shares no code with the writer — and returns each query's rows.
func duckQuery(t *testing.T, queries map[string]string) map[string][]map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	missing := ""
	if err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(duckDir, "node_modules", "@duckdb", "node-api")); err != nil {
		missing = "@duckdb/node-api is not installed (run: npm ci --prefix " + duckDir + ")"
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
	cmd.Dir = duckDir
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
