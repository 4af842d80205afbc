package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/result"
)

// The eval-results document is the shape eval-case harnesses keep their
// runs in (and the run history stores, see engine/report/history): a
// header of pass counts, counts per category, and one short entry per
// case — what was asked, whether it passed, why not, what the agent
// answered and which tools it called. Its entries are cut to fixed sizes,
// so the document stays small whatever the agents wrote; the journal has
// everything.

// Limits of one eval-results entry.
const (
	evalAnswerBytes  = 4 << 10
	evalQueryBytes   = 4 << 10
	evalFailureBytes = 1 << 10
	evalMaxFailures  = 20
	evalMaxTools     = 200
)

// EvalResults is `wasmeval report --format eval-results`.
type EvalResults struct {
	// RunAt is when the run started, RFC 3339 in UTC.
	RunAt  string `json:"run_at"`
	Total  int    `json:"total"`
	Passed int    `json:"passed"`
	// PassRatePct is Passed out of Total in percent, rounded to one
	// decimal: every case counts, errored and unscored ones as not
	// passed.
	PassRatePct float64                  `json:"pass_rate_pct"`
	ByCategory  map[string]*EvalCategory `json:"by_category"`
	Results     []*EvalResult            `json:"results"`
}

// EvalCategory counts one category's cases.
type EvalCategory struct {
	Total       int     `json:"total"`
	Passed      int     `json:"passed"`
	PassRatePct float64 `json:"pass_rate_pct"`
}

// EvalResult is one case.
type EvalResult struct {
	// ID is the case id; when two cases of the run share it (in
	// different checkpoints or groups) each is named by its key,
	// checkpoint/group/id, so ids stay unique. In a run with --epochs each
	// epoch is an entry of its own, "<id> [epoch N]".
	ID string `json:"id"`
	// Category is the case's category; "" when it has none.
	Category string `json:"category"`
	// Query is what the case asked: its instruction, else the agent's
	// own account of it.
	Query   string  `json:"query"`
	Passed  bool    `json:"passed"`
	Score   float64 `json:"score"`
	Outcome string  `json:"outcome"`
	// Failures says why the case did not pass: an error of the harness,
	// a timeout, then each incorrect attribute with its diff's summary.
	Failures []string `json:"failures"`
	// Answer is the agent's answer (engine/agent's answer rules) as text:
	// a string as is, any other value as compact JSON. For a case that is
	// not an agent's, its output.
	Answer string `json:"answer"`
	// ToolsCalled names the tools the agent called, in call order, once
	// per call.
	ToolsCalled []string `json:"tools_called"`
	// ElapsedS is the agent's wall time as it reported it, else the time
	// the case's run took.
	ElapsedS float64 `json:"elapsed_s"`

	// key is the case's checkpoint/group/id, for when IDs clash.
	key string
}

// EvalResultsBuilder collects the entries of an eval-results document,
// one record at a time (in journal order: each case's epoch once, see
// EachCase). Entries are small and cut to fixed sizes (see the limits
// above); a document of a long run holds them all, as the document
// itself does.
type EvalResultsBuilder struct {
	runAt, earliest time.Time
	results         []*EvalResult
	ids             map[string]int
}

// NewEvalResults starts an eval-results document for a run started at
// runAt; a zero runAt is taken from the earliest record.
func NewEvalResults(runAt time.Time) *EvalResultsBuilder {
	return &EvalResultsBuilder{runAt: runAt, ids: map[string]int{}}
}

// Add adds one case's record.
func (b *EvalResultsBuilder) Add(r *result.CaseRecord) {
	if !r.StartedAt.IsZero() && (b.earliest.IsZero() || r.StartedAt.Before(b.earliest)) {
		b.earliest = r.StartedAt
	}
	e := evalEntry(r)
	b.ids[e.ID]++
	b.results = append(b.results, e)
}

// Results finishes the document: the header's counts, and ids made
// unique.
func (b *EvalResultsBuilder) Results() *EvalResults {
	at := b.runAt
	if at.IsZero() {
		at = b.earliest
	}
	doc := &EvalResults{RunAt: at.UTC().Format(time.RFC3339), ByCategory: map[string]*EvalCategory{},
		Results: make([]*EvalResult, 0, len(b.results))}
	for _, e := range b.results {
		if b.ids[e.ID] > 1 {
			e.ID = e.key
		}
		doc.Total++
		if e.Passed {
			doc.Passed++
		}
		if e.Category != "" {
			c := doc.ByCategory[e.Category]
			if c == nil {
				c = &EvalCategory{}
				doc.ByCategory[e.Category] = c
			}
			c.Total++
			if e.Passed {
				c.Passed++
			}
		}
		doc.Results = append(doc.Results, e)
	}
	doc.PassRatePct = PctRounded(doc.Passed, doc.Total)
	for _, c := range doc.ByCategory {
		c.PassRatePct = PctRounded(c.Passed, c.Total)
	}
	return doc
}

// EvalResultsOf builds the eval-results document of the run in dir from
// its journal; runAt as for NewEvalResults.
func EvalResultsOf(dir string, runAt time.Time) (*EvalResults, error) {
	b := NewEvalResults(runAt)
	err := EachCase(dir, func(r *result.CaseRecord) error {
		b.Add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.Results(), nil
}

// WriteEvalResults writes the eval-results document of the run in dir
// (see EvalResultsOf).
func WriteEvalResults(w io.Writer, dir string, runAt time.Time) error {
	doc, err := EvalResultsOf(dir, runAt)
	if err != nil {
		return err
	}
	return doc.Write(w)
}

// Write writes the document as indented JSON.
func (doc *EvalResults) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write eval results: %w", err)
	}
	return nil
}

// ReadEvalResults reads an eval-results document.
func ReadEvalResults(r io.Reader) (*EvalResults, error) {
	var doc EvalResults
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("not an eval-results document: %w", err)
	}
	return &doc, nil
}

// evalEntry is a record's entry.
func evalEntry(r *result.CaseRecord) *EvalResult {
	o := result.OutcomeOf(r)
	e := &EvalResult{ID: EpochName(r.ID, r.Epoch), key: EpochName(r.Key(), r.Epoch), Passed: o == result.OutcomePassed,
		Score: r.Score, Outcome: string(o), Failures: failureList(r), ToolsCalled: []string{}, ElapsedS: r.Result.Elapsed}
	if r.Case != nil {
		e.Category, e.Query = r.Case.Category, r.Case.Instruction
	}
	if !r.Result.Agent {
		e.Answer = Truncate(r.Result.Output, evalAnswerBytes)
		e.Query = Truncate(e.Query, evalQueryBytes)
		return e
	}
	res, err := agent.Parse([]byte(r.Result.Output), agent.Options{Source: "output"})
	if err != nil {
		// A check cannot judge an unreadable result, so the case did
		// not pass on it: say why with its other reasons.
		if !e.Passed {
			e.Failures = append(e.Failures, Truncate(err.Error(), evalFailureBytes))
		}
		e.Query = Truncate(e.Query, evalQueryBytes)
		return e
	}
	if e.Query == "" {
		e.Query = res.Instruction
	}
	e.Query = Truncate(e.Query, evalQueryBytes)
	e.Answer = Truncate(AnswerText(res.Answer().Value), evalAnswerBytes)
	names := res.Conversation.ToolNames()
	if len(names) > evalMaxTools {
		names = append(names[:evalMaxTools:evalMaxTools], fmt.Sprintf("… %d more calls", len(names)-evalMaxTools))
	}
	e.ToolsCalled = append(e.ToolsCalled, names...)
	if res.ElapsedSeconds != nil {
		e.ElapsedS = *res.ElapsedSeconds
	}
	return e
}

// AnswerText shows an agent's answer as text: a string as it is, nothing
// for no answer, any other value as compact JSON.
func AnswerText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// failureList says why a case did not pass, one line per reason: an empty
// list for a case that passed.
func failureList(r *result.CaseRecord) []string {
	out := []string{}
	x := r.Result
	switch p := RunProblem(r); {
	case x.AdapterError:
		out = append(out, "could not run: "+x.Error)
	case p != "":
		// With its message: which step or request timed out, which step
		// failed and why.
		out = append(out, p)
	}
	if x.PluginError != "" {
		out = append(out, "plugin error: "+x.PluginError)
	}
	if result.OutcomeOf(r) != result.OutcomePassed {
		if m := MockProblem(r); m != "" && m != RunProblem(r) {
			out = append(out, m)
		}
		if n := MockNote(r); n != "" {
			out = append(out, n)
		}
	}
	if r.Unscored != "" {
		out = append(out, "unscored: "+r.Unscored)
	}
	if !x.AdapterError {
		// A case that could not run has no answer to be wrong about.
		for _, a := range r.Attributes {
			if a.IsCorrect {
				continue
			}
			why := "incorrect"
			if a.Diff != nil && a.Diff.Summary != "" {
				why = a.Diff.Summary
			}
			out = append(out, AttributeName(a)+": "+why)
		}
	}
	if len(out) > evalMaxFailures {
		n := len(out) - evalMaxFailures
		out = append(out[:evalMaxFailures:evalMaxFailures], fmt.Sprintf("… %d more", n))
	}
	for i := range out {
		out[i] = Truncate(out[i], evalFailureBytes)
	}
	return out
}
