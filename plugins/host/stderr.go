package host

import (
	"bytes"
	"fmt"
	"strings"
)

// stderrBuffer keeps the start and the end of what a guest writes to
// stderr, for fault messages. A Go guest prints its panic last, after
// whatever it logged: keeping only the start would lose the panic of a
// plugin that logged megabytes first, and keeping everything would let a
// plugin fill the host's memory.
type stderrBuffer struct {
	head    bytes.Buffer
	tail    []byte // a ring of the last tailMax bytes written past head
	next    int    // where the ring writes next, once full
	dropped int64  // bytes written past head that are no longer kept
	headMax int
	tailMax int
}

func newStderrBuffer(headMax, tailMax int) *stderrBuffer {
	return &stderrBuffer{headMax: headMax, tailMax: tailMax}
}

func (s *stderrBuffer) Write(b []byte) (int, error) {
	n := len(b)
	if room := s.headMax - s.head.Len(); room > 0 {
		if len(b) <= room {
			s.head.Write(b)
			return n, nil
		}
		s.head.Write(b[:room])
		b = b[room:]
	}
	if len(b) >= s.tailMax {
		s.dropped += int64(len(s.tail) + len(b) - s.tailMax)
		s.tail = append(s.tail[:0], b[len(b)-s.tailMax:]...)
		s.next = 0
		return n, nil
	}
	for len(b) > 0 {
		if len(s.tail) < s.tailMax {
			k := min(len(b), s.tailMax-len(s.tail))
			s.tail = append(s.tail, b[:k]...)
			b = b[k:]
			continue
		}
		k := copy(s.tail[s.next:], b)
		s.dropped += int64(k)
		s.next = (s.next + k) % s.tailMax
		b = b[k:]
	}
	return n, nil
}

// Reset forgets what was written, for the instance's next call.
func (s *stderrBuffer) Reset() {
	s.head.Reset()
	s.tail, s.next, s.dropped = s.tail[:0], 0, 0
}

// String is the start, and after a marker of what was left out, the end.
func (s *stderrBuffer) String() string {
	if len(s.tail) == 0 {
		return s.head.String()
	}
	tail := string(s.tail[s.next:]) + string(s.tail[:s.next])
	if s.dropped == 0 {
		return s.head.String() + tail
	}
	return s.head.String() + fmt.Sprintf("\n[… %d bytes of stderr left out …]\n", s.dropped) + tail
}

// Message is what a reader needs from a guest's stderr: the last Go panic
// or fatal error with the lines of its message (not the goroutine dump
// after it); else, the first lines, and the last ones when much was
// written.
func (s *stderrBuffer) Message() string {
	return stderrMessage(s.String(), s.dropped > 0 || len(s.tail) > 0)
}

func stderrMessage(text string, long bool) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "panic: ") || strings.HasPrefix(lines[i], "fatal error: ") {
			return strings.Join(messageLines(lines[i:]), " / ")
		}
	}
	first := messageLines(lines)
	if !long {
		return strings.Join(first, " / ")
	}
	var last []string
	for i := len(lines) - 1; i >= 0 && len(last) < 3; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			last = append([]string{l}, last...)
		}
	}
	return strings.Join(first, " / ") + " / … / " + strings.Join(last, " / ")
}

// messageLines are up to three lines from the start of lines, stopping
// at a blank line or a goroutine dump.
func messageLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l == "" || strings.HasPrefix(l, "goroutine ") || strings.HasPrefix(l, "[signal") {
			break
		}
		out = append(out, l)
		if len(out) == 3 {
			break
		}
	}
	return out
}
