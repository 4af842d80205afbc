// Package junit writes a run as JUnit XML, the format CI systems (GitLab,
// Jenkins, GitHub test reporters) render as test results: one testsuite per
// checkpoint, one testcase per case (classname problem.checkpoint.group,
// then .category for a case with a category), failed
// cases (wrong answers, timeouts) as failures with their attribute diffs,
// cases that ended in an error of the harness (adapter, plugin, mock, loading) as
// errors, and unscored cases as skipped.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
)

// FailureTextLimit caps the diff text of one failing case.
const FailureTextLimit = 16 << 10

// messageLimit caps a failure's or error's message attribute: one line.
const messageLimit = 1 << 10

type property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type properties struct {
	P []property `xml:"property"`
}

type message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type testcase struct {
	XMLName   xml.Name `xml:"testcase"`
	Classname string   `xml:"classname,attr"`
	Name      string   `xml:"name,attr"`
	Time      string   `xml:"time,attr"`
	// Props are the case's category and tags (pytest writes testcase
	// properties the same way), for tools that read them.
	Props     *properties `xml:"properties,omitempty"`
	Failure   *message    `xml:"failure,omitempty"`
	Error     *message    `xml:"error,omitempty"`
	Skipped   *message    `xml:"skipped,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
	SystemErr string      `xml:"system-err,omitempty"`
}

type counts struct{ tests, failures, errors, skipped int }

// add counts a case of outcome o. JUnit tells a wrong answer (failure)
// from a case the harness could not judge (error), and so should CI.
func (c *counts) add(o result.Outcome) {
	c.tests++
	switch o {
	case result.OutcomeFailed:
		c.failures++
	case result.OutcomeError:
		c.errors++
	case result.OutcomeUnscored:
		c.skipped++
	}
}

// Write streams the run in dir as JUnit XML. Suite headers carry counts,
// so each checkpoint's test cases are spooled to a temporary file during a
// single pass over the journal and copied out after their header: memory
// holds one record at a time.
func Write(w io.Writer, dir string, run report.RunInfo, sums []*report.CheckpointSummary) error {
	type suite struct {
		counts
		spool *report.Spool
		enc   *xml.Encoder
		// started holds the groups whose server start-up is written.
		started map[string]bool
	}
	suites := map[string]*suite{}
	defer func() {
		for _, s := range suites {
			s.spool.Close()
		}
	}()
	var total counts
	att := newAttachments(dir)
	err := report.EachCase(dir, func(r *result.CaseRecord) error {
		s := suites[r.Checkpoint]
		if s == nil {
			sp, err := report.NewSpool()
			if err != nil {
				return err
			}
			s = &suite{spool: sp, enc: xml.NewEncoder(sp), started: map[string]bool{}}
			s.enc.Indent("    ", "  ")
			sp.WriteString("\n") // the encoder starts a line before every element but the first
			suites[r.Checkpoint] = s
		}
		if r.Result.ServerStartup > 0 && !s.started[r.Group] {
			// The group's setup, before its first case: how long its
			// server took to come up.
			s.started[r.Group] = true
			s.add(result.OutcomePassed)
			total.add(result.OutcomePassed)
			if err := s.enc.Encode(startupCase(run.Problem, r)); err != nil {
				return err
			}
		}
		o := result.OutcomeOf(r)
		s.add(o)
		total.add(o)
		return s.enc.Encode(caseOf(run.Problem, r, att))
	})
	if err != nil {
		return err
	}
	t := report.Sum(sums)
	io.WriteString(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	root := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		attr("name", run.Problem), attr("tests", fmt.Sprint(total.tests)), attr("failures", fmt.Sprint(total.failures)),
		attr("errors", fmt.Sprint(total.errors)), attr("skipped", fmt.Sprint(total.skipped)), attr("time", seconds(t.Duration))}}
	if err := enc.EncodeToken(root); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	for _, sum := range sums {
		s := suites[sum.Name]
		c := counts{}
		if s != nil {
			c = s.counts
		}
		start := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
			attr("name", run.Problem+"."+sum.Name), attr("tests", fmt.Sprint(c.tests)), attr("failures", fmt.Sprint(c.failures)),
			attr("errors", fmt.Sprint(c.errors)), attr("skipped", fmt.Sprint(c.skipped)), attr("time", seconds(sum.Duration)),
			attr("timestamp", sum.Timestamp.UTC().Format("2006-01-02T15:04:05"))}}
		if err := enc.EncodeToken(start); err != nil {
			return err
		}
		props := struct {
			XMLName xml.Name   `xml:"properties"`
			P       []property `xml:"property"`
		}{P: []property{{"run_id", run.RunID}, {"manifest", run.ManifestLink}, {"pass_policy", string(sum.Policy)},
			{"checkpoint_passed", fmt.Sprint(sum.Passed)}, {"verdict", string(sum.Verdict)}, {"error_policy", string(sum.ErrorPolicy)},
			{"complete", fmt.Sprint(sum.Complete)}}}
		if sum.DuplicatesIgnored > 0 {
			props.P = append(props.P, property{"duplicate_records_ignored", fmt.Sprint(sum.DuplicatesIgnored)})
		}
		if err := enc.Encode(props); err != nil {
			return err
		}
		if s != nil {
			// The spooled cases are complete elements; splice them in
			// between the encoder's own tokens.
			if err := enc.Flush(); err != nil {
				return err
			}
			if err := s.enc.Flush(); err != nil {
				return err
			}
			if err := s.spool.CopyTo(w); err != nil {
				return err
			}
		}
		if err := enc.EncodeToken(start.End()); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// StartupCase names the testcase that stands for a server group's setup:
// its time is how long the server took to answer its health check.
const StartupCase = "(server start-up)"

func startupCase(problemName string, r *result.CaseRecord) testcase {
	return testcase{Classname: problemName + "." + r.Checkpoint + "." + r.Group, Name: StartupCase, Time: seconds(r.Result.ServerStartup)}
}

func caseOf(problemName string, r *result.CaseRecord, att *attachments) testcase {
	tc := testcase{Classname: problemName + "." + r.Checkpoint + "." + r.Group, Name: report.EpochName(r.ID, r.Epoch), Time: seconds(r.Duration)}
	if c := r.Case; c != nil && (c.Category != "" || len(c.Tags) > 0) {
		tc.Props = &properties{}
		if c.Category != "" {
			// CI tools show the classname (GitLab's suite column,
			// Jenkins' class under its package, GitHub reporters'
			// grouping) but few show testcase properties: the category
			// goes in both. A dot would read as another package level.
			tc.Classname += "." + clean(strings.ReplaceAll(c.Category, ".", "_"))
			tc.Props.P = append(tc.Props.P, property{"category", clean(c.Category)})
		}
		for _, tag := range c.Tags {
			tc.Props.P = append(tc.Props.P, property{"tag", clean(tag)})
		}
	}
	o := result.OutcomeOf(r)
	switch o {
	case result.OutcomePassed:
		return tc
	case result.OutcomeUnscored:
		tc.Skipped = &message{Message: clean(firstLine("unscored: " + r.Unscored)), Type: "unscored"}
		return tc
	}
	text := clean(report.FailureText(r, FailureTextLimit))
	var wrong []string
	for _, a := range r.Attributes {
		if !a.IsCorrect {
			wrong = append(wrong, report.AttributeName(a))
		}
	}
	msg := fmt.Sprintf("score %.2f; incorrect: %s", r.Score, strings.Join(wrong, ", "))
	if r.Attempt > 1 {
		msg += fmt.Sprintf(" (attempt %d)", r.Attempt)
	}
	// The message is what CI lists beside the test's name: it carries the
	// execution's own message (which step or request timed out, which
	// step failed), not only the status.
	switch {
	case o == result.OutcomeError:
		why := r.Result.Error
		switch {
		case result.ErrorKindOf(r) == result.ErrorMock:
			why = report.MockProblem(r) // "mock payments: …"
		case r.Result.PluginError != "":
			why = r.Result.PluginError
		case r.Result.TimedOut:
			why = report.RunProblem(r)
		}
		tc.Error = &message{Message: clean(report.OneLine(why, messageLimit)), Type: string(result.ErrorKindOf(r)) + "_error", Text: text}
	case r.Result.TimedOut:
		tc.Failure = &message{Message: clean(report.OneLine(report.RunProblem(r), messageLimit)), Type: "timeout", Text: text}
	case r.Result.OOMKilled:
		tc.Failure = &message{Message: clean(report.OneLine(report.RunProblem(r), messageLimit)), Type: "out_of_memory", Text: text}
	default:
		if r.Result.Error != "" {
			msg += "; " + r.Result.Error
		}
		tc.Failure = &message{Message: clean(report.OneLine(msg, messageLimit)), Type: "incorrect", Text: text}
	}
	// A request no route of a mock matched often explains the answer:
	// CI lists it beside the test's name (the text lists every one).
	for _, m := range []*message{tc.Failure, tc.Error} {
		if note := report.MockNote(r); m != nil && note != "" {
			m.Message = clean(report.OneLine(m.Message+"; "+note, messageLimit))
		}
	}
	out, errs := att.forCase(r)
	tc.SystemOut = clean(report.Truncate(out, FailureTextLimit))
	if r.Result.Stderr != "" && errs != "" {
		errs = "--- the case's stderr ---\n" + report.Truncate(r.Result.Stderr, FailureTextLimit/2) + "\n" + errs
	} else if r.Result.Stderr != "" {
		errs = r.Result.Stderr
	}
	tc.SystemErr = clean(report.Truncate(errs, FailureTextLimit))
	return tc
}

func attr(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// clean drops characters XML 1.0 cannot carry (control bytes a submission
// may print), which encoding/xml would otherwise replace silently or reject.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r != 0xFFFE && r != 0xFFFF && !(r >= 0xD800 && r <= 0xDFFF)) {
			return r
		}
		return '\uFFFD'
	}, s)
}
