package html

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"net/url"
	"path"
	"strings"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
)

// The page is one self-contained file (it is kept as a CI artifact,
// mailed, opened from an archive), so a failing case's screenshot is
// embedded as a data URI — up to a size per image and a budget per
// page, past which it is linked instead — and each group's server logs
// are linked, with their last lines inline. Links are relative to the
// run directory (or Options.ArtifactBase): they work where the page sits
// beside its run, as report.html does. Every file is read through
// report's artifact functions, which keep to the run directory (see
// engine/report/artifacts.go).
const (
	// maxEmbedImage is the largest screenshot embedded; a browser's
	// screenshot of a page is typically 20–300 KB.
	maxEmbedImage = 2 << 20
	// maxEmbedTotal is the page's budget for embedded screenshots: past
	// it, screenshots are linked (base64 makes the page a third more).
	maxEmbedTotal = 16 << 20
	// maxShotsPerCase caps the screenshots shown for one case.
	maxShotsPerCase = 4
	// Log tails: lines and bytes per log, logs per group, groups shown.
	logTailLines    = 40
	logTailBytes    = 8 << 10
	maxLogsPerGroup = 4
	maxLogGroups    = 200
)

// shotData is a screenshot in a failure's details.
type shotData struct {
	// Src is what the thumbnail shows: the embedded image, or the link.
	Src template.URL
	// Link opens the file full size; "" when it was not found.
	Link string
	Name string
	// Embedded says Src is the image itself; Size its size.
	Embedded bool
	Size     string
	// Note says why the screenshot is not shown.
	Note string
}

// logData is a server log under its group.
type logData struct {
	Name, Rel, Link string
	Size            string
	Text            string
	Lines           int
	Cut             bool
	Note            string
}

// groupLogs are one group's logs, collected from its cases' records.
type groupLogs struct {
	Key, Anchor string
	rels        []string
	Logs        []logData
	More        int
	// Startup is how long the group's server took to answer its health
	// check, in seconds (0: not recorded).
	Startup float64
}

// artifacts collects what the page shows of a run's artifacts while its
// journal is streamed.
type artifacts struct {
	dir, base string
	embedded  int64
	groups    map[string]*groupLogs
	order     []*groupLogs
	// moreGroups counts groups with logs past maxLogGroups.
	moreGroups int
}

func newArtifacts(dir, base string) *artifacts {
	return &artifacts{dir: dir, base: base, groups: map[string]*groupLogs{}}
}

// link is an artifact's href from the page: each path segment escaped.
func (a *artifacts) link(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	if a.base == "" {
		return strings.Join(segs, "/")
	}
	return strings.TrimSuffix(a.base, "/") + "/" + strings.Join(segs, "/")
}

// addLogs notes the logs a record names under its group, and returns the
// group's anchor ("" when it has none).
func (a *artifacts) addLogs(r *result.CaseRecord) string {
	_, logs := report.CaseArtifacts(r)
	key := r.Checkpoint + "/" + r.Group
	g := a.groups[key]
	if g == nil {
		if len(logs) == 0 {
			return ""
		}
		if len(a.order) >= maxLogGroups {
			a.moreGroups++
			a.groups[key] = &groupLogs{} // counted once
			return ""
		}
		g = &groupLogs{Key: key, Anchor: "logs-" + strings.TrimPrefix(anchor(key), "case-")}
		a.groups[key] = g
		a.order = append(a.order, g)
	}
	if g.Startup == 0 && r.Result.ServerStartup > 0 {
		g.Startup = r.Result.ServerStartup
	}
	for _, l := range logs {
		if !contains(g.rels, l) {
			if len(g.rels) >= maxLogsPerGroup {
				g.More++
				continue
			}
			g.rels = append(g.rels, l)
		}
	}
	return g.Anchor
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// shots are a failing case's screenshots as its details show them.
func (a *artifacts) shots(r *result.CaseRecord) []shotData {
	rels, _ := report.CaseArtifacts(r)
	var out []shotData
	for i, rel := range rels {
		if i == maxShotsPerCase {
			out = append(out, shotData{Note: fmt.Sprintf("%d more screenshots not shown", len(rels)-i)})
			break
		}
		embedCap := int64(0)
		if a.embedded < maxEmbedTotal {
			embedCap = min(maxEmbedImage, maxEmbedTotal-a.embedded)
		}
		img, err := report.ReadImage(a.dir, rel, embedCap)
		if err != nil {
			out = append(out, shotData{Name: path.Base(report.Printable(rel, 200)), Note: err.Error()})
			continue
		}
		s := shotData{Name: path.Base(img.Rel), Link: a.link(img.Rel), Size: size(img.Size)}
		if img.Data != nil {
			a.embedded += img.Size
			s.Embedded = true
			// Built here from an image whose type was checked, never from
			// the record's text: safe as a URL.
			s.Src = template.URL("data:" + img.Type + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
		} else {
			s.Src = template.URL(s.Link)
			s.Note = fmt.Sprintf("%s: too large to embed in the page (or past its budget), linked", s.Size)
		}
		out = append(out, s)
	}
	return out
}

// readLogs reads the tails of every group's logs, once the journal has
// been read.
func (a *artifacts) readLogs() {
	for _, g := range a.order {
		for _, rel := range g.rels {
			ld := logData{Name: path.Base(report.Printable(rel, 200)), Rel: report.Printable(rel, 200)}
			t, err := report.ReadLogTail(a.dir, rel, logTailLines, logTailBytes)
			if err != nil {
				ld.Note = err.Error()
			} else {
				ld.Link, ld.Size, ld.Text, ld.Lines, ld.Cut = a.link(t.Rel), size(t.Size), t.Text, t.Lines, t.Cut
			}
			g.Logs = append(g.Logs, ld)
		}
	}
}

// size is a byte count for people.
func size(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
