package run

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
)

const exampleDir = "../../examples/inventory"

// runExample evaluates the example problem and returns records by key, in
// journal order.
func runExample(t *testing.T, submission string, jobs int) (*Outcome, []*result.CaseRecord) {
	t.Helper()
	runtest.RequirePython(t)
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	if err := Validate(context.Background(), p, BuiltinLoader, h); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Run(context.Background(), Options{
		Problem: p, Submission: filepath.Join(exampleDir, "submissions", submission),
		OutDir: out, Jobs: jobs, Runtime: local.New(local.Options{BaseDir: t.TempDir()}),
		Loader: BuiltinLoader, Plugins: h,
	})
	if err != nil {
		t.Fatal(err)
	}
	var recs []*result.CaseRecord
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return res, recs
}

// expectedOrder lists every case of the example in run order per group.
var expectedOrder = []string{
	"checkpoint_1/summary/empty", "checkpoint_1/summary/basic", "checkpoint_1/summary/static_catalog",
	"checkpoint_1/top/top_all", "checkpoint_1/top/top_two",
	"checkpoint_1/errors/missing_file", "checkpoint_1/errors/bad_count", "checkpoint_1/errors/unknown_command",
	"checkpoint_2/category/none", "checkpoint_2/category/catalog_tools", "checkpoint_2/category/office",
	"checkpoint_2/export/sorted", "checkpoint_2/export/unsorted",
	"checkpoint_2/by_category/category_tools", "checkpoint_2/by_category/category_home",
	"checkpoint_2/by_category/category_office", "checkpoint_2/by_category/category_missing",
	"checkpoint_2/checkpoint_1_summary/empty", "checkpoint_2/checkpoint_1_summary/basic", "checkpoint_2/checkpoint_1_summary/static_catalog",
}

// brokenFails lists the cases the broken submission must fail, with the
// attributes that must be wrong and the expected score.
var brokenFails = map[string]struct {
	wrong []string
	score float64
}{
	"checkpoint_1/summary/basic":                       {[]string{"output"}, 0.2},
	"checkpoint_1/summary/static_catalog":              {[]string{"output"}, 0.2},
	"checkpoint_1/errors/missing_file":                 {[]string{"status_code", "stderr"}, 0},
	"checkpoint_1/top/top_all":                         {[]string{"evaluator:top_by_value", "output"}, 0.1},
	"checkpoint_1/top/top_two":                         {[]string{"evaluator:top_by_value", "output"}, 0.1},
	"checkpoint_2/category/catalog_tools":              {[]string{"output"}, 0.2},
	"checkpoint_2/category/office":                     {[]string{"output"}, 0.2},
	"checkpoint_2/export/unsorted":                     {[]string{"files-out/items.csv"}, 0.5},
	"checkpoint_2/checkpoint_1_summary/basic":          {[]string{"output"}, 0.2},
	"checkpoint_2/by_category/category_tools":          {[]string{"output"}, 0.2},
	"checkpoint_2/by_category/category_home":           {[]string{"output"}, 0.2},
	"checkpoint_2/by_category/category_office":         {[]string{"output"}, 0.2},
	"checkpoint_2/checkpoint_1_summary/static_catalog": {[]string{"output"}, 0.2},
}

func groupOrder(recs []*result.CaseRecord) []string {
	// Records of one group appear in run order; groups may interleave.
	sorted := append([]*result.CaseRecord{}, recs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Checkpoint != sorted[j].Checkpoint {
			return sorted[i].Checkpoint < sorted[j].Checkpoint
		}
		gi, gj := groupRank(sorted[i].Group), groupRank(sorted[j].Group)
		if gi != gj {
			return gi < gj
		}
		return sorted[i].Index < sorted[j].Index
	})
	var keys []string
	for _, r := range sorted {
		keys = append(keys, r.Key())
	}
	return keys
}

func groupRank(g string) int {
	for i, name := range []string{"summary", "top", "errors", "category", "export", "by_category", "checkpoint_1_summary"} {
		if g == name {
			return i
		}
	}
	return 99
}

func TestReferenceSubmissionPassesEverything(t *testing.T) {
	res, recs := runExample(t, "reference", 1)
	if got := strings.Join(groupOrder(recs), "\n"); got != strings.Join(expectedOrder, "\n") {
		t.Fatalf("cases run:\n%s\nwant:\n%s", got, strings.Join(expectedOrder, "\n"))
	}
	for _, r := range recs {
		if !r.Passed || r.Score != 1 {
			t.Errorf("%s: passed=%v score=%v attributes=%+v result=%+v", r.Key(), r.Passed, r.Score, r.Attributes, r.Result)
		}
	}
	if !res.Passed {
		t.Error("reference run must pass its policy")
	}
	// The top group combines a built-in check with two plugins, a Go
	// verifier and a Go evaluator, each attribute saying which checked it.
	for _, r := range recs {
		if r.Group != "top" {
			continue
		}
		var checks []string
		for _, a := range r.Attributes {
			checks = append(checks, a.Attribute+"="+strings.Split(a.Check, "@")[0])
		}
		if got, want := strings.Join(checks, " "), "status_code=status evaluator:top_by_value=inventory-ranking output=inventory-verifier"; got != want {
			t.Errorf("%s: attributes checked by %s, want %s", r.Key(), got, want)
		}
	}
	for _, s := range res.Summaries {
		if !s.Passed || !s.Complete || s.Cases != s.CasesPassed {
			t.Errorf("summary %s: %+v", s.Name, s)
		}
	}
}

func TestBrokenSubmissionFailsSpecificCases(t *testing.T) {
	res, recs := runExample(t, "broken", 1)
	if len(recs) != len(expectedOrder) {
		t.Fatalf("got %d records, want %d", len(recs), len(expectedOrder))
	}
	for _, r := range recs {
		want, shouldFail := brokenFails[r.Key()]
		if r.Passed == shouldFail {
			t.Errorf("%s: passed=%v, want %v (attributes %+v)", r.Key(), r.Passed, !shouldFail, r.Attributes)
			continue
		}
		if !shouldFail {
			continue
		}
		var wrong []string
		for _, a := range r.Attributes {
			if !a.IsCorrect {
				wrong = append(wrong, a.Attribute)
				if a.Diff == nil || a.Diff.Summary == "" {
					t.Errorf("%s: wrong attribute %s has no diff", r.Key(), a.Attribute)
				}
			}
		}
		if strings.Join(wrong, ",") != strings.Join(want.wrong, ",") {
			t.Errorf("%s: wrong attributes %v, want %v", r.Key(), wrong, want.wrong)
		}
		if math.Abs(r.Score-want.score) > 1e-9 {
			t.Errorf("%s: score %v, want %v", r.Key(), r.Score, want.score)
		}
	}
	if res.Passed {
		t.Error("broken run must fail the core-cases policy")
	}
	cp1 := res.Summaries[0]
	if cp1.Passed || cp1.PassCounts["Core"] != 1 || cp1.TotalCounts["Core"] != 3 || cp1.PassCounts["Error"] != 2 {
		t.Errorf("checkpoint_1 summary counts: %+v %+v", cp1.PassCounts, cp1.TotalCounts)
	}
	if g := cp1.GroupOutcomes["summary"]; strings.Join(g.Failed, ",") != "basic,static_catalog" {
		t.Errorf("summary group failed list: %v", g.Failed)
	}
	// The evaluator gives partial credit: ranked by quantity, the full
	// list gets its last two ranks right.
	for _, r := range recs {
		if r.Key() != "checkpoint_1/top/top_all" {
			continue
		}
		for _, a := range r.Attributes {
			if a.Attribute == "evaluator:top_by_value" && fmt.Sprint(a.Actual) != "0.4" {
				t.Errorf("top_all ranking score %v, want 0.4 (diff %+v)", a.Actual, a.Diff)
			}
		}
	}
}

// Groups run concurrently but each has its own workspace and stream, so the
// per-case results cannot depend on --jobs.
func TestResultsDoNotDependOnParallelism(t *testing.T) {
	verdicts := func(recs []*result.CaseRecord) string {
		var lines []string
		for _, r := range recs {
			var attrs []string
			for _, a := range r.Attributes {
				attrs = append(attrs, fmt.Sprintf("%s=%v", a.Attribute, a.IsCorrect))
			}
			lines = append(lines, fmt.Sprintf("%s #%d passed=%v score=%.4f %v out=%q", r.Key(), r.Index, r.Passed, r.Score, attrs, r.Result.Output))
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	_, serial := runExample(t, "broken", 1)
	_, parallel := runExample(t, "broken", 4)
	if a, b := verdicts(serial), verdicts(parallel); a != b {
		t.Fatalf("jobs=1 and jobs=4 differ:\n%s\n----\n%s", a, b)
	}
}
