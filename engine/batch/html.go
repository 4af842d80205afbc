package batch

import (
	"fmt"
	"html/template"
	"io"
	"net/url"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/runfile"
	"github.com/wasmeval/wasmeval/engine/result"
)

// LeaderboardName is the batch's HTML page.
const LeaderboardName = "leaderboard.html"

var leaderboardPage = template.Must(template.New("leaderboard").Funcs(template.FuncMap{
	"style": html.Stylesheet,
	"pct":   func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) },
	"letter": func(v result.Verdict) string {
		return verdictLetter(v)
	},
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Leaderboard — wasmeval batch</title>
<style>{{style}}
td.missing,td.pending,td.refused{color:#757575;font-style:italic}td.num{text-align:right}</style></head><body>
<h1>Leaderboard</h1>
<p class="meta">batch · {{.File.Status}} · {{len .File.Plan.Submissions}} submissions × {{len .File.Plan.Problems}} problems · pass policy {{.File.PassPolicy}}{{if .File.Seed}} · seed {{.File.Seed}}{{end}} · <a href="batch.json">batch.json</a> · <a href="results.parquet">results.parquet</a></p>
<p class="meta">A cell is the pair's pass rate (cases passed / cases), its mean score, one letter per checkpoint verdict (P passed, F failed, I inconclusive, ? incomplete) and E&lt;n&gt; for cases that ended in an error (the harness's, not the submission's); it links to the pair's report.</p>
<table id="leaderboard"><thead><tr><th>submission</th>{{range .File.Plan.Problems}}<th>{{.Name}}</th>{{end}}<th>total</th></tr></thead><tbody>
{{range .Rows}}<tr data-submission="{{.Total.Submission}}"><td>{{.Total.Submission}}</td>{{range .Cells}}<td class="{{.Class}}" data-problem="{{.Pair.Problem}}">{{if .Link}}<a href="{{.Link}}">{{end}}{{.Text}}{{if .Link}}</a>{{end}}</td>{{end}}<td class="total">{{pct .Total.PassRate}} {{printf "%.2f" .Total.MeanScore}} · {{.Total.CheckpointsPassed}}/{{.Total.Checkpoints}} checkpoints{{if .Total.Errored}} · <span class="inconclusive">E{{.Total.Errored}}</span>{{end}}{{if .Total.Missing}} · {{.Total.Missing}} missing{{end}}</td></tr>
{{end}}</tbody></table>
<h2>Checkpoints</h2>
<table id="checkpoints"><thead><tr><th>submission</th><th>problem</th><th>checkpoint</th><th>verdict</th><th>cases</th><th>passed</th><th>failed</th><th>errored</th><th>pass rate</th><th>score</th></tr></thead><tbody>
{{range .File.Pairs}}{{$p := .}}{{range .Checkpoints}}<tr><td>{{$p.Submission}}</td><td>{{$p.Problem}}</td><td>{{.Name}}</td><td class="{{if eq (print .Verdict) "passed"}}pass{{else if eq (print .Verdict) "failed"}}fail{{else}}inconclusive{{end}}">{{.Verdict}}</td><td class="num">{{.Cases}}</td><td class="num">{{.Passed}}</td><td class="num">{{.Failed}}</td><td class="num">{{.Errored}}</td><td class="num">{{pct .PassRate}}</td><td class="num">{{printf "%.2f" .MeanScore}}</td></tr>
{{end}}{{end}}</tbody></table>
</body></html>
`))

type lbCell struct {
	Pair  PairResult
	Text  string
	Class string
	Link  string
}

type lbRow struct {
	Total Total
	Cells []lbCell
}

// WriteLeaderboard writes batchDir/leaderboard.html from f: the
// leaderboard table, each cell linking to its pair's report.html, and
// every pair's checkpoints. It is one static page in the reports' style.
func WriteLeaderboard(batchDir string, f *File) error {
	return runfile.Write(filepath.Join(batchDir, LeaderboardName), func(w io.Writer) error {
		return RenderLeaderboard(w, f)
	})
}

// RenderLeaderboard writes the leaderboard page of f to w.
func RenderLeaderboard(w io.Writer, f *File) error {
	byKey := map[[2]string]PairResult{}
	for _, p := range f.Pairs {
		byKey[[2]string{p.Submission, p.Problem}] = p
	}
	data := struct {
		File *File
		Rows []lbRow
	}{File: f}
	for i, s := range f.Plan.Submissions {
		row := lbRow{}
		if i < len(f.Totals) {
			row.Total = f.Totals[i]
		}
		for _, pr := range f.Plan.Problems {
			p := byKey[[2]string{s.Name, pr.Name}]
			c := lbCell{Pair: p, Text: pairCell(p), Class: p.Status}
			switch p.Status {
			case PairMissing, PairPending, PairRefused, "":
			default:
				c.Link = (&url.URL{Path: filepath.ToSlash(filepath.Join(p.Dir, "report.html"))}).String()
				switch p.Verdict {
				case result.VerdictPassed:
					c.Class = "pass"
				case result.VerdictFailed:
					c.Class = "fail"
				default:
					c.Class = "inconclusive"
				}
			}
			row.Cells = append(row.Cells, c)
		}
		data.Rows = append(data.Rows, row)
	}
	return leaderboardPage.Execute(w, data)
}
