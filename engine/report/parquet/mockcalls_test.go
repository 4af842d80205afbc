package parquet

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// mockRecords are three cases of an API group: one that called no mock,
// one that charged and then sent a request no route matches, and one
// whose currency mock faulted after so many calls that some were not
// kept — and one whose mocks could not start.
func mockRecords() []*result.CaseRecord {
	charge := abi.MockCall{Mock: "payments", Method: "POST", Path: "/v1/charges", Query: map[string][]string{"currency": {"EUR"}},
		Headers: map[string][]string{"content-type": {"application/json"}, "idempotency-key": {"k1"}},
		Body:    `{"amount":1200,"note":"</pre><script>x</script>"}`, Status: 201, Route: 0}
	unmatched := abi.MockCall{Mock: "payments", Method: "DELETE", Path: "/v1/charges/ch_1", Status: 501, Route: -1, Unmatched: true}
	binary := abi.MockCall{Mock: "rates", Method: "PUT", Path: "/blob", BodyBase64: "AAEC/w==", Status: 200, Route: -1}
	fault := abi.MockCall{Mock: "rates", Method: "GET", Path: "/v1/rates", Status: 500, Route: -1, Fault: "plugin trapped: unreachable"}
	right := []verify.AttributeResult{{Attribute: "status_code", Actual: 200, Expected: 200, IsCorrect: true, Weight: 1}}
	var out []*result.CaseRecord
	for i, calls := range [][]abi.MockCall{nil, {charge, unmatched}, {charge, binary, fault}, nil} {
		r := &result.CaseRecord{Problem: "checkout", ProblemVersion: 1, Checkpoint: "checkpoint_1", Version: 1, Group: "api",
			GroupType: problem.Core, ID: fmt.Sprintf("m%d", i), Index: i, StartedAt: time.Date(2026, 3, 1, 12, 0, i, 0, time.UTC),
			Case: &result.CaseInfo{Arguments: []string{}}, Result: result.Execution{StatusCode: 200, MockCalls: calls}, Attributes: right}
		if i == 2 {
			r.Result.MockCallsDropped = 997
		}
		if i == 3 {
			r.Result, r.Attributes = result.Execution{StatusCode: -1, MockError: "mock services could not start: no port"}, nil
		}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		out = append(out, r)
	}
	return out
}

// A case's mock calls are in the file as JSON text, with their counts in
// columns of their own, as a reader that is not ours (DuckDB) reads them.
func TestParquetMockCallsReadByDuckDB(t *testing.T) {
	dir := t.TempDir()
	recs := mockRecords()
	out := filepath.Join(dir, FileName)
	if _, err := FromJournal(writeJournal(t, dir, recs), out, "run-m", "/subs/s"); err != nil {
		t.Fatal(err)
	}
	file := "read_parquet('" + out + "')"
	res := duckQuery(t, map[string]string{
		"counts": "SELECT id, outcome, coalesce(error_kind, '') AS kind, coalesce(mock_error, '') AS why, mock_calls IS NULL AS none, mock_call_count AS n, mock_calls_unmatched AS unmatched, " +
			"mock_calls_faulted AS faulted, mock_calls_dropped AS dropped, coalesce(json_array_length(mock_calls), 0) AS kept FROM " + file + " ORDER BY id",
		"calls": "SELECT id, mock_calls FROM " + file + " WHERE mock_calls IS NOT NULL ORDER BY id",
		"fields": "SELECT json_extract_string(mock_calls, '$[0].query.currency[0]') AS currency, json_extract_string(mock_calls, '$[0].body') AS body, " +
			"json_extract_string(mock_calls, '$[0].headers.\"idempotency-key\"[0]') AS key, json_extract(mock_calls, '$[1].unmatched')::BOOLEAN AS unmatched, " +
			"json_extract(mock_calls, '$[1].route')::INT AS route FROM " + file + " WHERE id = 'm1'",
		"unmatched": "SELECT id FROM " + file + " WHERE mock_calls_unmatched > 0",
		// The query docs/reports.md gives.
		"docs": `SELECT id, c.mock, c.method, c.path
FROM (SELECT id, unnest(from_json(mock_calls, '[{"mock":"VARCHAR","method":"VARCHAR","path":"VARCHAR","unmatched":"BOOLEAN"}]')) AS c
      FROM ` + file + ` WHERE mock_calls_unmatched > 0)
WHERE c.unmatched`,
	})
	want := []string{
		"m0 passed   true 0 0 0 0 0",
		"m1 passed   false 2 1 0 0 2",
		"m2 error mock  false 1000 0 1 997 3",
		"m3 error mock mock services could not start: no port true 0 0 0 0 0",
	}
	for i, row := range res["counts"] {
		got := fmt.Sprint(row["id"], " ", row["outcome"], " ", row["kind"], " ", row["why"], " ", row["none"], " ", num(row["n"]), " ", num(row["unmatched"]), " ",
			num(row["faulted"]), " ", num(row["dropped"]), " ", num(row["kept"]))
		if i >= len(want) || got != want[i] {
			t.Errorf("row %d: %s", i, got)
		}
	}
	if len(res["counts"]) != len(want) {
		t.Fatalf("rows: %v", res["counts"])
	}
	// The JSON text decodes to the very calls the record holds.
	for _, row := range res["calls"] {
		var got []abi.MockCall
		if err := json.Unmarshal([]byte(fmt.Sprint(row["mock_calls"])), &got); err != nil {
			t.Fatalf("%v: mock_calls is not JSON: %v", row["id"], err)
		}
		var rec *result.CaseRecord
		for _, r := range recs {
			if r.ID == row["id"] {
				rec = r
			}
		}
		if !reflect.DeepEqual(got, rec.Result.MockCalls) {
			t.Errorf("%v: mock_calls %+v, want %+v", row["id"], got, rec.Result.MockCalls)
		}
	}
	if f := res["fields"]; len(f) != 1 || f[0]["currency"] != "EUR" || f[0]["body"] != `{"amount":1200,"note":"</pre><script>x</script>"}` ||
		f[0]["key"] != "k1" || f[0]["unmatched"] != true || num(f[0]["route"]) != -1 {
		t.Errorf("fields of m1's calls: %v", f)
	}
	if d := res["docs"]; len(d) != 1 || fmt.Sprint(d[0]["id"], d[0]["mock"], d[0]["method"], d[0]["path"]) != "m1paymentsDELETE/v1/charges/ch_1" {
		t.Errorf("the documented query: %v", d)
	}
	if u := res["unmatched"]; len(u) != 1 || u[0]["id"] != "m1" {
		t.Errorf("cases with unmatched calls: %v", u)
	}
}
