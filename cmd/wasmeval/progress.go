package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
)

// progress is run.Progress plus a Stop that flushes the display.
type progress interface {
	GroupStarted(checkpoint, group string, total int)
	CaseFinished(rec *result.CaseRecord)
	GroupFinished(checkpoint, group string)
	GroupError(checkpoint, group, msg string)
	Stop()
}

func newProgress(mode string, w io.Writer) progress {
	if mode == "auto" {
		mode = "lines"
		if f, ok := w.(*os.File); ok && isTerminal(f) {
			mode = "bars"
		}
	}
	switch mode {
	case "bars":
		return newBarProgress(w)
	case "none":
		return noProgress{}
	default:
		return &lineProgress{w: w}
	}
}

type noProgress struct{}

func (noProgress) GroupStarted(string, string, int)  {}
func (noProgress) CaseFinished(*result.CaseRecord)   {}
func (noProgress) GroupFinished(string, string)      {}
func (noProgress) GroupError(string, string, string) {}
func (noProgress) Stop()                             {}

// lineProgress prints one line per event: readable in CI logs and pipes.
type lineProgress struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *lineProgress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}

func (p *lineProgress) GroupStarted(cp, g string, total int) {
	if total >= 0 {
		p.printf("==> %s/%s (%d cases)\n", cp, g, total)
	} else {
		p.printf("==> %s/%s\n", cp, g)
	}
}

func (p *lineProgress) CaseFinished(r *result.CaseRecord) {
	status := "PASS"
	switch o := result.OutcomeOf(r); {
	case o == result.OutcomeError:
		status = "ERROR"
	case o == result.OutcomeUnscored:
		status = "UNSCORED"
	case r.Result.TimedOut:
		status = "TIMEOUT"
	case o == result.OutcomeFailed:
		status = "FAIL"
	}
	attempt := ""
	if r.Attempt > 1 {
		attempt = fmt.Sprintf("  attempt %d", r.Attempt)
	}
	if r.Epoch > 0 {
		attempt += fmt.Sprintf("  epoch %d", r.Epoch)
	}
	p.printf("%-7s %s/%s/%s  score=%.2f  %.2fs%s\n", status, r.Checkpoint, r.Group, r.ID, r.Score, r.Duration, attempt)
}

// CaseRetried implements run.RetryProgress.
func (p *lineProgress) CaseRetried(r *result.CaseRecord) {
	why := r.Result.Error
	switch {
	case r.Result.PluginError != "":
		why = r.Result.PluginError
	case why == "" && r.Result.TimedOut:
		why = fmt.Sprintf("timed out after %.1fs (the problem counts timeouts as errors)", r.Result.Elapsed)
	}
	if i := strings.IndexByte(why, '\n'); i >= 0 {
		why = why[:i]
	}
	p.printf("RETRY   %s/%s/%s  attempt %d was an error (%s): %s\n", r.Checkpoint, r.Group, r.ID, max(r.Attempt, 1), result.ErrorKindOf(r), why)
}

func (p *lineProgress) GroupFinished(string, string) {}

func (p *lineProgress) GroupError(cp, g, msg string) {
	p.printf("ERROR   %s/%s: %s\n", cp, g, msg)
}

func (p *lineProgress) Stop() {}

// barProgress shows a live bar per running group on a terminal.
type barProgress struct {
	mu     sync.Mutex
	p      *mpb.Progress
	bars   map[string]*mpb.Bar
	failed map[string]int
	// errored counts cases that ended in an error.
	errored map[string]int
}

func newBarProgress(w io.Writer) *barProgress {
	return &barProgress{
		p:       mpb.New(mpb.WithOutput(w), mpb.WithWidth(40)),
		bars:    map[string]*mpb.Bar{},
		failed:  map[string]int{},
		errored: map[string]int{},
	}
}

func (b *barProgress) GroupStarted(cp, g string, total int) {
	key := cp + "/" + g
	if total < 0 {
		total = 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	bar := b.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name(key, decor.WC{C: decor.DindentRight | decor.DextraSpace}), decor.CountersNoUnit("%d/%d")),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			b.mu.Lock()
			defer b.mu.Unlock()
			var parts []string
			if n := b.failed[key]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d failed", n))
			}
			if n := b.errored[key]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d errors", n))
			}
			return strings.Join(parts, ", ")
		})),
	)
	b.bars[key] = bar
}

func (b *barProgress) CaseFinished(r *result.CaseRecord) {
	key := r.Checkpoint + "/" + run.GroupLabel(r.Group, r.Epoch)
	b.mu.Lock()
	bar := b.bars[key]
	if result.OutcomeOf(r) == result.OutcomeFailed {
		b.failed[key]++
	}
	if result.OutcomeOf(r) == result.OutcomeError {
		b.errored[key]++
	}
	b.mu.Unlock()
	if bar != nil {
		bar.Increment()
	}
}

func (b *barProgress) GroupFinished(cp, g string) {
	b.mu.Lock()
	bar := b.bars[cp+"/"+g]
	b.mu.Unlock()
	if bar != nil {
		bar.SetTotal(-1, true)
	}
}

func (b *barProgress) GroupError(cp, g, msg string) {
	b.mu.Lock()
	bar := b.bars[cp+"/"+g]
	b.mu.Unlock()
	if bar != nil {
		bar.Abort(false)
	}
	fmt.Fprintf(os.Stderr, "ERROR %s/%s: %s\n", cp, g, msg)
}

func (b *barProgress) Stop() {
	b.mu.Lock()
	for _, bar := range b.bars {
		if !bar.Completed() {
			bar.Abort(false)
		}
	}
	b.mu.Unlock()
	b.p.Wait()
}
