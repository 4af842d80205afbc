package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/batch"
	"github.com/wasmeval/wasmeval/engine/report/parquet/duckdbtest"
)

// analysisQueries reads the SQL blocks of docs/analysis.md, by the name
// their first line gives ("-- query: NAME"), with the table's path put in.
func analysisQueries(t *testing.T, table string) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../docs/analysis.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sql\n-- query: (\\w+)\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	out := map[string]string{}
	for _, b := range blocks {
		out[b[1]] = strings.ReplaceAll(b[2], "'results.parquet'", "'"+table+"'")
	}
	for _, name := range []string{"pass_rate", "hardest", "only_one"} {
		if out[name] == "" {
			t.Fatalf("docs/analysis.md has no query %q", name)
		}
	}
	return out
}

// The combined table of the example batch, read back by DuckDB with the
// queries of docs/analysis.md exactly as written, gives the leaderboard's
// numbers; the hardest cases and the cases only one submission passes
// agree with the pairs' own journals.
func TestBatchResultsParquetAnswersAnalysisQueries(t *testing.T) {
	out := filepath.Join(t.TempDir(), "batch")
	r := wasmeval(t, "batch", batchExample+"/problems/*", "--submissions", batchExample+"/submissions", "--out", out, "--jobs", "2")
	if r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readBatch(t, out)
	res := duckdbtest.Query(t, analysisQueries(t, filepath.Join(out, batch.ResultsName)))

	// Pass rate per submission, problem and checkpoint = the leaderboard.
	want := map[string]string{}
	for _, p := range f.Pairs {
		for _, c := range p.Checkpoints {
			want[p.Submission+"/"+p.Problem+"/"+c.Name] = fmt.Sprintf("%d %d %d %d %.4f", c.Cases, c.Passed, c.Failed, c.Errored, c.PassRate)
		}
	}
	got := map[string]string{}
	for _, row := range res["pass_rate"] {
		got[fmt.Sprint(row["submission"], "/", row["problem"], "/", row["checkpoint"])] = fmt.Sprintf("%v %v %v %v %.4f",
			row["cases"], row["passed"], row["failed"], row["errored"], row["pass_rate"])
	}
	if len(got) != len(want) || len(want) != 9 {
		t.Errorf("pass_rate: %d rows, leaderboard has %d checkpoints of pairs (want 9)", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("pass_rate %s: DuckDB %q, leaderboard %q", k, got[k], w)
		}
	}

	// Who passes each case, from the journals.
	passers := map[string][]string{}
	for _, p := range f.Pairs {
		for _, rec := range readJournal(t, filepath.Join(out, p.Dir)) {
			k := p.Problem + "/" + rec.Checkpoint + "/" + rec.Group + "/" + rec.ID
			if _, ok := passers[k]; !ok {
				passers[k] = nil
			}
			if rec.Passed {
				passers[k] = append(passers[k], p.Submission)
			}
		}
	}
	var only []string
	fewest := 99
	for k, subs := range passers {
		if len(subs) == 1 {
			only = append(only, k+" "+subs[0])
		}
		fewest = min(fewest, len(subs))
	}
	sort.Strings(only)
	var gotOnly []string
	for _, row := range res["only_one"] {
		gotOnly = append(gotOnly, fmt.Sprint(row["problem"], "/", row["checkpoint"], "/", row["group"], "/", row["id"], " ", row["only_passed_by"]))
	}
	if strings.Join(gotOnly, "\n") != strings.Join(only, "\n") || len(only) == 0 {
		t.Errorf("only_one: DuckDB\n%s\njournals\n%s", strings.Join(gotOnly, "\n"), strings.Join(only, "\n"))
	}
	// The example's crasher and broken submissions leave two wordcount
	// cases to the reference alone.
	for _, id := range []string{"lines", "spaces"} {
		if !strings.Contains(strings.Join(only, "\n"), "wordcount/checkpoint_1/core/"+id+" reference") {
			t.Errorf("only_one lacks wordcount %s passed by reference alone:\n%s", id, strings.Join(only, "\n"))
		}
	}
	hard := res["hardest"]
	if len(hard) == 0 {
		t.Fatal("hardest: no rows")
	}
	for i, row := range hard {
		k := fmt.Sprint(row["problem"], "/", row["checkpoint"], "/", row["group"], "/", row["id"])
		if n := fmt.Sprint(row["passed_by"]); n != fmt.Sprint(len(passers[k])) {
			t.Errorf("hardest %s: passed by %s, journals say %d", k, n, len(passers[k]))
		}
		if i == 0 && fmt.Sprint(row["passed_by"]) != fmt.Sprint(fewest) {
			t.Errorf("hardest first row %s passed by %v; the hardest case is passed by %d", k, row["passed_by"], fewest)
		}
	}
}
