// Package junit writes a run as JUnit XML, the format CI systems (GitLab,
// Jenkins, GitHub test reporters) render as test results: one testsuite per
// checkpoint, one testcase per case (classname checkpoint.group), failing
// cases with their attribute diffs, cases that could not run or timed out
// as errors.
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

type property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
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
	Failure   *message `xml:"failure,omitempty"`
	Error     *message `xml:"error,omitempty"`
	SystemErr string   `xml:"system-err,omitempty"`
}

type counts struct{ tests, failures, errors int }

// isError says whether a case failed to run rather than produced a wrong
// answer: JUnit tells the two apart, and so should CI.
func isError(r *result.CaseRecord) bool {
	return r.Result.AdapterError || r.Result.TimedOut || r.Result.PluginError != ""
}

// Write streams the run in dir as JUnit XML: one pass over the journal to
// count, then one per checkpoint to write its cases, so memory holds one
// record at a time.
func Write(w io.Writer, dir string, run report.RunInfo, sums []*report.CheckpointSummary) error {
	per := map[string]*counts{}
	var total counts
	err := report.EachCase(dir, func(r *result.CaseRecord) error {
		c := per[r.Checkpoint]
		if c == nil {
			c = &counts{}
			per[r.Checkpoint] = c
		}
		c.tests++
		total.tests++
		switch {
		case r.Passed:
		case isError(r):
			c.errors++
			total.errors++
		default:
			c.failures++
			total.failures++
		}
		return nil
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
		attr("errors", fmt.Sprint(total.errors)), attr("time", seconds(t.Duration))}}
	if err := enc.EncodeToken(root); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	for _, s := range sums {
		c := per[s.Name]
		if c == nil {
			c = &counts{}
		}
		suite := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
			attr("name", run.Problem+"."+s.Name), attr("tests", fmt.Sprint(c.tests)), attr("failures", fmt.Sprint(c.failures)),
			attr("errors", fmt.Sprint(c.errors)), attr("time", seconds(s.Duration)),
			attr("timestamp", s.Timestamp.UTC().Format("2006-01-02T15:04:05"))}}
		if err := enc.EncodeToken(suite); err != nil {
			return err
		}
		props := struct {
			XMLName xml.Name   `xml:"properties"`
			P       []property `xml:"property"`
		}{P: []property{{"run_id", run.RunID}, {"manifest", run.ManifestLink}, {"pass_policy", string(s.Policy)},
			{"checkpoint_passed", fmt.Sprint(s.Passed)}, {"complete", fmt.Sprint(s.Complete)}}}
		if err := enc.Encode(props); err != nil {
			return err
		}
		err := report.EachCase(dir, func(r *result.CaseRecord) error {
			if r.Checkpoint != s.Name {
				return nil
			}
			return enc.Encode(caseOf(run.Problem, r))
		})
		if err != nil {
			return err
		}
		if err := enc.EncodeToken(suite.End()); err != nil {
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

func caseOf(problemName string, r *result.CaseRecord) testcase {
	tc := testcase{Classname: problemName + "." + r.Checkpoint + "." + r.Group, Name: r.ID, Time: seconds(r.Duration)}
	if r.Passed {
		return tc
	}
	text := clean(report.FailureText(r, FailureTextLimit))
	var wrong []string
	for _, a := range r.Attributes {
		if !a.IsCorrect {
			wrong = append(wrong, a.Attribute)
		}
	}
	msg := fmt.Sprintf("score %.2f; incorrect: %s", r.Score, strings.Join(wrong, ", "))
	switch {
	case r.Result.TimedOut:
		tc.Error = &message{Message: "timed out", Type: "timeout", Text: text}
	case r.Result.AdapterError:
		tc.Error = &message{Message: clean(firstLine(r.Result.Error)), Type: "adapter_error", Text: text}
	case r.Result.PluginError != "":
		tc.Error = &message{Message: clean(firstLine(r.Result.PluginError)), Type: "plugin_error", Text: text}
	default:
		tc.Failure = &message{Message: clean(msg), Type: "incorrect", Text: text}
	}
	if r.Result.Stderr != "" {
		tc.SystemErr = clean(report.Truncate(r.Result.Stderr, FailureTextLimit))
	}
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
