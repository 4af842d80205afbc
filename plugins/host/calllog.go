package host

import (
	"fmt"
	"strings"
	"unicode/utf8"

	extism "github.com/extism/go-sdk"
)

// Limits on what one call may log. A plugin that logs in a loop must fill
// neither the run log nor a worker's memory (a worker keeps a call's lines
// until it answers); what is over the limit is counted and reported in one
// line at the end of the call.
const (
	MaxLogLines    = 1000
	MaxLogBytes    = 256 << 10
	MaxLogLineSize = 4 << 10
)

// callLog routes one instance's log lines to the host's Log, within the
// per-call limits.
type callLog struct {
	p            *Plugin
	lines, bytes int
	dropped      int
	droppedBytes int
}

func newCallLog(p *Plugin) *callLog { return &callLog{p: p} }

// reset starts a new call's count.
func (l *callLog) reset() { l.lines, l.bytes, l.dropped, l.droppedBytes = 0, 0, 0, 0 }

func (l *callLog) label() string {
	if name := l.p.describe.Name; name != "" {
		return name
	}
	return fileLabel(l.p.file, l.p.digest) // before describe has answered
}

// write is the instance's Extism logger.
func (l *callLog) write(level extism.LogLevel, msg string) {
	log := l.p.host.opts.Log
	if log == nil {
		return
	}
	if len(msg) > MaxLogLineSize {
		kept := cutAtRune(msg, MaxLogLineSize)
		msg = kept + fmt.Sprintf("… (%d bytes cut)", len(msg)-len(kept))
	}
	if l.lines >= MaxLogLines || l.bytes+len(msg) > MaxLogBytes {
		l.dropped++
		l.droppedBytes += len(msg)
		return
	}
	l.lines++
	l.bytes += len(msg)
	log(l.label(), strings.ToLower(level.String()), msg)
}

// finish reports, once, what the call logged past the limits.
func (l *callLog) finish(export string) {
	if l.dropped == 0 || l.p.host.opts.Log == nil {
		return
	}
	l.p.host.opts.Log(l.label(), "warn", fmt.Sprintf("%s: %d more log lines (%d bytes) dropped: a call logs at most %d lines, %d KiB",
		export, l.dropped, l.droppedBytes, MaxLogLines, MaxLogBytes>>10))
}

// cutAtRune returns the longest prefix of s of at most n bytes that does
// not split a UTF-8 sequence.
func cutAtRune(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
