package junit

import (
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
)

// A failing case's screenshots and its group's server logs travel in the
// form CI systems read from JUnit XML: each file as a line
//
//	[[ATTACHMENT|/absolute/path/to/file]]
//
// on its own in the testcase's <system-out>, the convention of Jenkins'
// junit-attachments plugin (https://plugins.jenkins.io/junit-attachments/:
// "[[ATTACHMENT|/absolute/path/to/some/file]] ... on its own line,
// without any text before or after"), which GitLab's unit test reports
// also read (https://docs.gitlab.com/ci/testing/unit_test_reports/, where
// the path must lie in the project directory) — and the logs' last lines
// as text: a server's stdout in <system-out>, its stderr in <system-err>
// after the case's own stderr. Files are checked as the HTML report checks
// them (report.OpenArtifact: regular files under the run's artifacts/,
// no symlinks); one refused is named in a note instead.
const (
	logTailLines = 30
	logTailBytes = 4 << 10
	// maxCachedTails bounds the log tails kept while a report is written
	// (a group's cases share its logs).
	maxCachedTails = 256
)

type attachments struct {
	dir, abs string
	tails    map[string]tailOrNote
	// shownIn names, per log, the case whose output carries its tail: a
	// group's cases share its logs, and the tail is written once, under
	// the group's first failing case (a run of thousands of failures
	// must stay under CI systems' size limits — GitLab reads 30 MB).
	shownIn map[string]string
}

type tailOrNote struct {
	tail report.LogTail
	note string
}

func newAttachments(dir string) *attachments {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return &attachments{dir: dir, abs: abs, tails: map[string]tailOrNote{}, shownIn: map[string]string{}}
}

// forCase is what a failing case's <system-out> and <system-err> carry
// of its artifacts.
func (a *attachments) forCase(r *result.CaseRecord) (stdout, stderr string) {
	shots, logs := report.CaseArtifacts(r)
	// The attachment lines first, then the notes, then the logs' tails.
	var att, notes, out, errs strings.Builder
	for _, rel := range shots {
		img, err := report.ReadImage(a.dir, rel, 0)
		if err != nil {
			notes.WriteString("screenshot not attached: " + err.Error() + "\n")
			continue
		}
		a.attach(&att, &notes, img.Rel)
	}
	for _, rel := range logs {
		t := a.tail(rel)
		if t.note != "" {
			notes.WriteString("log not attached: " + t.note + "\n")
			continue
		}
		a.attach(&att, &notes, t.tail.Rel)
		w := &out
		if strings.Contains(filepath.Base(t.tail.Rel), "stderr") {
			w = &errs
		}
		if t.tail.Text == "" {
			continue
		}
		if first, ok := a.shownIn[t.tail.Rel]; ok {
			w.WriteString("--- " + t.tail.Rel + ": its last lines are under " + first + " ---\n")
			continue
		}
		if len(a.shownIn) < maxCachedTails {
			a.shownIn[t.tail.Rel] = report.Printable(report.EpochName(r.ID, r.Epoch), 200)
		}
		w.WriteString("--- " + t.tail.Rel)
		if t.tail.Cut {
			w.WriteString(" (its last lines)")
		}
		w.WriteString(" ---\n" + t.tail.Text + "\n")
	}
	return att.String() + notes.String() + out.String(), errs.String()
}

// attach writes a file's attachment line, when its path can be one.
func (a *attachments) attach(att, notes *strings.Builder, rel string) {
	p := filepath.Join(a.abs, filepath.FromSlash(rel))
	if strings.ContainsAny(p, "|\n\r") || strings.Contains(p, "]]") {
		notes.WriteString("not attached (its path cannot be written as an attachment): " + report.Printable(rel, 200) + "\n")
		return
	}
	att.WriteString("[[ATTACHMENT|" + p + "]]\n")
}

func (a *attachments) tail(rel string) tailOrNote {
	if t, ok := a.tails[rel]; ok {
		return t
	}
	var t tailOrNote
	tail, err := report.ReadLogTail(a.dir, rel, logTailLines, logTailBytes)
	if err != nil {
		t.note = err.Error()
	} else {
		t.tail = tail
	}
	if len(a.tails) < maxCachedTails {
		a.tails[rel] = t
	}
	return t
}
