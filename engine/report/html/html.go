// Package html writes a run's report as one self-contained HTML file:
// inline CSS, inline SVG charts and a few lines of inline script for the
// case filter — nothing fetched over the network, so it opens from a CI
// artifact or an email attachment alike. It is streamed from the journal:
// summaries first, then one pass writing the case table (and spooling the
// failing cases' diffs, which follow it, and agent cases' transcripts,
// which follow those).
package html

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/runfile"
	"github.com/wasmeval/wasmeval/engine/result"
)

// FileName is the report's name inside a run directory.
const FileName = "report.html"

// Limits that keep the page openable for very large runs; the Parquet file
// has everything.
const (
	MaxFailureDetails = 2000
	maxValueBytes     = 8 << 10
	// reasonBytes caps one-line reasons (a status's tooltip, a failure's
	// summary line).
	reasonBytes = 300
)

// Options for one report.
type Options struct {
	Run    report.RunInfo
	Engine string
	// ArtifactBase is the run directory as seen from where the page is
	// kept, for links to artifacts (screenshots, server logs); "" when
	// the page is in the run directory, as report.html is.
	ArtifactBase string
}

// Write renders the report of the run in dir to w.
func Write(w io.Writer, dir string, opts Options, sums []*report.CheckpointSummary) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	t := report.Sum(sums)
	type groupChart struct {
		Name  string
		Chart template.HTML
	}
	data := struct {
		Run             report.RunInfo
		Engine          string
		Cases, Passed   int
		Counted         int
		Errored         int
		Unscored        int
		Checkpoints     []*report.CheckpointSummary
		CheckpointChart template.HTML
		Groups          []groupChart
		DuplicateNote   string
	}{Run: opts.Run, Engine: opts.Engine, Cases: t.Cases, Passed: t.Passed, Counted: t.Counted(),
		Errored: t.Errored, Unscored: t.Unscored, Checkpoints: sums,
		DuplicateNote: report.DuplicateNote(opts.Run.DuplicatesIgnored)}
	var cpBars []bar
	for _, s := range sums {
		cpBars = append(cpBars, bar{Label: s.Name, Passed: s.CasesPassed, Total: s.Cases - s.CasesUnscored})
		var gb []bar
		for _, g := range s.Groups {
			o := s.GroupOutcomes[g]
			gb = append(gb, bar{Label: g, Passed: o.Passed, Total: o.Counted()})
		}
		data.Groups = append(data.Groups, groupChart{Name: s.Name, Chart: barChart(s.Name+" groups", gb)})
	}
	data.CheckpointChart = barChart("checkpoints", cpBars)
	if err := head.Execute(bw, data); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	// One pass over the journal: rows go out directly, failure details to a
	// spool appended after the table.
	details, err := report.NewSpool()
	if err != nil {
		return err
	}
	defer details.Close()
	// Agent cases' transcripts go to a spool of their own, after the
	// failure details.
	transcripts, err := report.NewSpool()
	if err != nil {
		return err
	}
	defer transcripts.Close()
	// Cases' mock calls go to a third spool, after the server logs.
	mocks, err := report.NewSpool()
	if err != nil {
		return err
	}
	defer mocks.Close()
	mockCases, mocksShown := 0, 0
	detailed, failed := 0, 0
	agents, shown := 0, 0
	arts := newArtifacts(dir, opts.ArtifactBase)
	err = report.EachCase(dir, func(r *result.CaseRecord) error {
		rd := rowOf(r)
		logs := arts.addLogs(r)
		if r.Result.Agent {
			agents++
			if shown < MaxTranscripts {
				shown++
				rd.Transcript = transcriptAnchor(rd.Key)
				if err := transcript.Execute(transcripts, transcriptOf(r, rd.Key)); err != nil {
					return err
				}
			}
		}
		if rd.Mocks != nil {
			mockCases++
			if mocksShown < MaxMockCases {
				mocksShown++
				if err := mockCalls.Execute(mocks, mockCaseOf(r, rd.Key)); err != nil {
					return err
				}
			} else {
				rd.Mocks.Anchor = "" // not on the page: no link
			}
		}
		if err := row.Execute(bw, rd); err != nil {
			return err
		}
		if o := result.OutcomeOf(r); o == result.OutcomePassed || o == result.OutcomeUnscored {
			return nil
		}
		failed++
		if detailed >= MaxFailureDetails {
			return nil
		}
		detailed++
		fd := failureOf(r)
		fd.Shots, fd.Logs = arts.shots(r), logs
		fd.Mocks = rd.Mocks
		return failure.Execute(details, fd)
	})
	if err != nil {
		return err
	}
	if err := mid.Execute(bw, nil); err != nil {
		return err
	}
	if err := details.CopyTo(bw); err != nil {
		return err
	}
	if err := afterFailures.Execute(bw, struct{ More int }{failed - detailed}); err != nil {
		return err
	}
	if len(arts.order) > 0 {
		arts.readLogs()
		if err := serverLogs.Execute(bw, struct {
			Groups     []*groupLogs
			MoreGroups int
		}{arts.order, arts.moreGroups}); err != nil {
			return err
		}
	}
	if mockCases > 0 {
		if err := mockCallsHead.Execute(bw, nil); err != nil {
			return err
		}
		if err := mocks.CopyTo(bw); err != nil {
			return err
		}
		if err := mockCallsTail.Execute(bw, struct{ More int }{mockCases - mocksShown}); err != nil {
			return err
		}
	}
	if agents > 0 {
		if err := transcriptsHead.Execute(bw, nil); err != nil {
			return err
		}
		if err := transcripts.CopyTo(bw); err != nil {
			return err
		}
		if err := transcriptsTail.Execute(bw, struct{ More int }{agents - shown}); err != nil {
			return err
		}
	}
	if err := tail.Execute(bw, nil); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes <dir>/report.html, replacing it whole (see runfile).
func WriteFile(dir string, opts Options, sums []*report.CheckpointSummary) error {
	return runfile.Write(filepath.Join(dir, FileName), func(w io.Writer) error {
		return Write(w, dir, opts, sums)
	})
}

type rowData struct {
	*result.CaseRecord
	Key, Type, Anchor, Status, Class string
	// Name is the case id, with its epoch in a run with --epochs.
	Name string
	// Transcript is the anchor of an agent case's transcript; "" when
	// the case has none on the page.
	Transcript string
	// Reason is why the case did not pass, in one line.
	Reason string
	// Mocks sums up the case's mock calls (nil when it made none); its
	// Anchor is "" when the page does not list them.
	Mocks *mockSummary
}

// rowOf is a case's row: its class is its outcome ("failed error" for an
// error, so "failing only" shows every case that did not pass), its
// status says what happened (report.Status), and the status's tooltip
// why (report.Reason).
func rowOf(r *result.CaseRecord) rowData {
	o := result.OutcomeOf(r)
	key := report.EpochName(r.Key(), r.Epoch)
	d := rowData{CaseRecord: r, Key: key, Type: string(r.GroupType), Anchor: anchor(key), Class: string(o), Status: report.Status(r),
		Name: report.EpochName(r.ID, r.Epoch), Reason: report.Reason(r, reasonBytes), Mocks: mockSummaryOf(r, key)}
	if o == result.OutcomeError {
		d.Class = "failed error"
	}
	return d
}

// anchor turns a case key into an HTML id.
func anchor(key string) string {
	var b strings.Builder
	b.WriteString("case-")
	for _, c := range key {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteRune(c)
		} else {
			fmt.Fprintf(&b, ".%x.", c)
		}
	}
	return b.String()
}

type line struct{ Class, Text string }

type entry struct{ Path, Op, Expected, Actual string }

type attrData struct {
	Name, Summary    string
	Unified          bool
	Lines            []line
	Entries          []entry
	ShowValues       bool
	Expected, Actual string
}

type failureData struct {
	Key, Anchor, Problem string
	// ProblemText is the whole problem when Problem, its first line,
	// leaves some out.
	ProblemText string
	Score       float64
	Attrs       []attrData
	// Shots are the case's screenshots; Logs the anchor of its group's
	// server logs ("" when none).
	Shots []shotData
	Logs  string
	// Mocks sums up the case's mock calls, linking to them.
	Mocks *mockSummary
}

func failureOf(r *result.CaseRecord) failureData {
	key := report.EpochName(r.Key(), r.Epoch)
	fd := failureData{Key: key, Anchor: anchor(key), Score: r.Score}
	var problem string
	switch {
	case result.ErrorKindOf(r) == result.ErrorMock:
		problem = "error (mock, not judged): " + report.MockProblem(r)
	case result.OutcomeOf(r) == result.OutcomeError && r.Result.PluginError != "":
		problem = "error (plugin, not judged): " + r.Result.PluginError
	case result.OutcomeOf(r) == result.OutcomeError && r.Result.TimedOut:
		problem = "error (timeout, not judged): " + r.Result.Error
	case result.OutcomeOf(r) == result.OutcomeError:
		problem = "error (" + string(result.ErrorKindOf(r)) + ", not judged): " + r.Result.Error
	default:
		// A timeout or a failed step, with the execution's message.
		problem = report.RunProblem(r)
	}
	problem = strings.TrimRight(problem, ": \n")
	fd.Problem = report.OneLine(problem, reasonBytes)
	if fd.Problem != problem {
		// Messages with a server's log tail or a long step error are
		// shown whole under the summary line.
		fd.ProblemText = report.Truncate(problem, maxValueBytes)
	}
	for _, a := range r.Attributes {
		if a.IsCorrect {
			continue
		}
		ad := attrData{Name: a.Attribute}
		if a.Diff != nil {
			ad.Summary = a.Diff.Summary
			if a.Diff.Unified != "" {
				ad.Unified = true
				for _, l := range strings.Split(strings.TrimRight(report.Truncate(a.Diff.Unified, maxValueBytes), "\n"), "\n") {
					cls := "ctx"
					switch {
					case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
						cls = "add"
					case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
						cls = "del"
					}
					ad.Lines = append(ad.Lines, line{cls, l})
				}
			}
			for _, e := range a.Diff.Entries {
				ad.Entries = append(ad.Entries, entry{e.Path, e.Op, report.Compact(e.Expected, 500), report.Compact(e.Actual, 500)})
			}
		}
		if !ad.Unified {
			ad.ShowValues = true
			ad.Expected, ad.Actual = value(a.Expected), value(a.Actual)
		}
		fd.Attrs = append(fd.Attrs, ad)
	}
	return fd
}

// value shows strings as text and anything else as JSON.
func value(v any) string {
	if s, ok := v.(string); ok {
		return report.Truncate(s, maxValueBytes)
	}
	return report.Compact(v, maxValueBytes)
}

func fmtPct(p, t int) string { return fmt.Sprintf("%.1f%%", 100*float64(p)/float64(t)) }
