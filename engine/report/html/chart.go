package html

import (
	"fmt"
	"html/template"
	"strings"
)

// bar is one bar of a pass-rate chart.
type bar struct {
	Label         string
	Passed, Total int
}

func (b bar) rate() float64 {
	if b.Total == 0 {
		return 0
	}
	return 100 * float64(b.Passed) / float64(b.Total)
}

// barChart renders horizontal pass-rate bars as inline SVG: no script, no
// network, so the chart shows wherever the file is opened.
func barChart(title string, bars []bar) template.HTML {
	const rowH, labelW, barW, pad = 24, 220, 360, 6
	height := pad*2 + rowH*len(bars)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" role="img" aria-label="%s" width="%d" height="%d" viewBox="0 0 %d %d" xmlns="http://www.w3.org/2000/svg">`,
		template.HTMLEscapeString(title), labelW+barW+140, height, labelW+barW+140, height)
	for i, br := range bars {
		y := pad + i*rowH
		w := barW * br.rate() / 100
		color := "#2e7d32"
		switch {
		case br.Total == 0:
			color = "#9e9e9e"
		case br.Passed < br.Total && br.rate() >= 50:
			color = "#f9a825"
		case br.rate() < 50:
			color = "#c62828"
		}
		fmt.Fprintf(&b, `<g class="bar" data-label="%s" data-passed="%d" data-total="%d" data-rate="%.1f">`,
			template.HTMLEscapeString(br.Label), br.Passed, br.Total, br.rate())
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="label">%s</text>`, labelW-8, y+16, template.HTMLEscapeString(br.Label))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#eee"/>`, labelW, y+3, barW, rowH-6)
		fmt.Fprintf(&b, `<rect class="fill" x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`, labelW, y+3, w, rowH-6, color)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="value">%d/%d (%.1f%%)</text></g>`, labelW+barW+8, y+16, br.Passed, br.Total, br.rate())
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
