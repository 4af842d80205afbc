package report

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wasmeval/wasmeval/engine/result"
)

// A summary lists every case of each group (results: its score; failed:
// the ids of the cases that failed), which for a long run is most of what
// a builder holds: tens of bytes a case. A builder told to spool keeps
// those entries in a temporary file instead, a chunk of a group's cases
// at a time, and Write streams them into evaluation.json: what the
// builder holds then does not grow with the cases. Its summaries hold the
// counts and a mean per group, with no Results and Failed.

// spoolChunkCases is how many of a group's entries are held before they
// are written to the spool.
const spoolChunkCases = 256

// caseSpool is the temporary file of a spooling builder.
type caseSpool struct {
	mu   sync.Mutex
	f    *os.File
	size int64
	err  error // the first failed write: Write reports it
}

// groupCases are a spooled group's per-case entries: chunks in the
// spool, then those not written yet.
type groupCases struct {
	spool   *caseSpool
	chunks  []spoolChunk
	pending []caseEntry
	sum     float64 // of the judged (passed or failed) cases' scores
	judged  int
}

type spoolChunk struct {
	off  int64
	size int
}

type caseEntry struct {
	id      string
	score   float64
	outcome result.Outcome
}

// An outcome's code in the spool is its index in result.Outcomes.
func outcomeCode(o result.Outcome) byte { return byte(slices.Index(result.Outcomes, o)) }

func outcomeOfCode(c byte) result.Outcome {
	if int(c) < len(result.Outcomes) {
		return result.Outcomes[c]
	}
	return result.OutcomeFailed
}

// Spool makes the builder keep its summaries' per-case entries in a
// temporary file rather than in the summaries (see above): Write writes
// them, and MeanScore knows each group's mean; Results and Failed stay
// nil. Each case must come once: Add does not look for a case counted
// already. Close removes the file, after which Write cannot write the
// summaries.
func (b *Builder) Spool() error {
	if b.spool != nil {
		return nil
	}
	f, err := os.CreateTemp("", "wasmeval-summary-*")
	if err != nil {
		return fmt.Errorf("summary spool: %w", err)
	}
	b.spool = &caseSpool{f: f}
	for _, s := range b.cps {
		for _, g := range s.GroupOutcomes {
			b.spoolGroup(g)
		}
	}
	return nil
}

// spoolGroup moves a group's entries to the spool.
func (b *Builder) spoolGroup(g *GroupOutcome) {
	gc := &groupCases{spool: b.spool, sum: g.sum, judged: g.judged}
	// The entries of cases added before spooling, in no particular
	// order (their run order is gone): results are written sorted and
	// failed and errored cases keep their order.
	notPassed := map[string]bool{}
	for _, id := range append(slices.Clone(g.Failed), g.Errored...) {
		notPassed[id] = true
	}
	for _, id := range sortedKeys(g.Results) {
		if !notPassed[id] {
			gc.add(caseEntry{id: id, score: g.Results[id], outcome: result.OutcomePassed})
		}
	}
	for _, id := range g.Failed {
		gc.add(caseEntry{id: id, score: g.Results[id], outcome: result.OutcomeFailed})
	}
	for _, id := range g.Errored {
		gc.add(caseEntry{id: id, score: g.Results[id], outcome: result.OutcomeError})
	}
	g.cases, g.Results, g.Failed, g.Errored = gc, nil, nil, nil
}

// GroupDone says a group has all its cases: a spooling builder writes
// what it holds of the group.
func (b *Builder) GroupDone(checkpoint, group string) {
	if s := b.cps[checkpoint]; s != nil {
		if g := s.GroupOutcomes[group]; g != nil && g.cases != nil {
			g.cases.flush()
			g.cases.pending = nil
		}
	}
}

// Close removes a spooling builder's temporary file.
func (b *Builder) Close() {
	if b.spool == nil {
		return
	}
	b.spool.mu.Lock()
	defer b.spool.mu.Unlock()
	if b.spool.f != nil {
		b.spool.f.Close()
		os.Remove(b.spool.f.Name())
		b.spool.f = nil
	}
}

func (gc *groupCases) add(e caseEntry) {
	gc.pending = append(gc.pending, e)
	if len(gc.pending) >= spoolChunkCases {
		gc.flush()
	}
}

// flush writes the pending entries as a chunk: per entry, the id's length
// (uvarint) and bytes, the score's bits and the outcome's code.
func (gc *groupCases) flush() {
	if len(gc.pending) == 0 {
		return
	}
	var buf []byte
	for _, e := range gc.pending {
		buf = binary.AppendUvarint(buf, uint64(len(e.id)))
		buf = append(buf, e.id...)
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(e.score))
		buf = append(buf, outcomeCode(e.outcome))
	}
	clear(gc.pending)
	gc.pending = gc.pending[:0]
	sp := gc.spool
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.err != nil {
		return
	}
	if sp.f == nil {
		sp.err = errors.New("the summary spool is closed")
		return
	}
	if _, err := sp.f.WriteAt(buf, sp.size); err != nil {
		sp.err = fmt.Errorf("summary spool: %w", err)
		return
	}
	gc.chunks = append(gc.chunks, spoolChunk{off: sp.size, size: len(buf)})
	sp.size += int64(len(buf))
}

// entries reads the group's entries back, in the order they came.
func (gc *groupCases) entries() ([]caseEntry, error) {
	sp := gc.spool
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.err != nil {
		return nil, sp.err
	}
	if sp.f == nil && len(gc.chunks) > 0 {
		return nil, errors.New("the summary spool is closed")
	}
	var out []caseEntry
	var buf []byte
	for _, c := range gc.chunks {
		buf = slices.Grow(buf[:0], c.size)[:c.size]
		if _, err := sp.f.ReadAt(buf, c.off); err != nil {
			return nil, fmt.Errorf("summary spool: %w", err)
		}
		for len(buf) > 0 {
			n, k := binary.Uvarint(buf)
			if k <= 0 || uint64(len(buf)-k) < n+9 {
				return nil, errors.New("summary spool: a damaged chunk")
			}
			buf = buf[k:]
			e := caseEntry{id: string(buf[:n])}
			e.score = math.Float64frombits(binary.LittleEndian.Uint64(buf[n:]))
			e.outcome = outcomeOfCode(buf[n+8])
			out = append(out, e)
			buf = buf[n+9:]
		}
	}
	return append(out, gc.pending...), nil
}

// spooled says whether any group of the summary keeps its entries in a
// spool.
func (s *CheckpointSummary) spooled() bool {
	for _, g := range s.GroupOutcomes {
		if g.cases != nil {
			return true
		}
	}
	return false
}

// writeStreamed writes the summary as json.MarshalIndent(s, "", "  ")
// does, byte for byte, with each group's per-case entries read from its
// spool (or its Results and Failed) one group at a time.
func writeStreamed(w io.Writer, s *CheckpointSummary) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	rest := *s
	rest.GroupOutcomes, rest.Groups = map[string]*GroupOutcome{}, nil
	head, err := json.MarshalIndent(&rest, "", "  ")
	if err != nil {
		return err
	}
	// group_outcomes and groups are the summary's last fields.
	const tail = ",\n  \"group_outcomes\": {},\n  \"groups\": null\n}"
	if !bytes.HasSuffix(head, []byte(tail)) {
		return fmt.Errorf("summary of %s: unexpected layout", s.Name)
	}
	bw.Write(head[:len(head)-len(tail)])
	bw.WriteString(",\n  \"group_outcomes\": {")
	for i, name := range sortedKeys(s.GroupOutcomes) {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		writeJSONString(bw, name)
		bw.WriteString(": ")
		if err := writeGroup(bw, s.GroupOutcomes[name]); err != nil {
			return fmt.Errorf("summary of %s, group %s: %w", s.Name, name, err)
		}
	}
	if len(s.GroupOutcomes) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("},\n  \"groups\": ")
	groups, err := json.MarshalIndent(s.Groups, "  ", "  ")
	if err != nil {
		return err
	}
	bw.Write(groups)
	bw.WriteString("\n}")
	return bw.Flush()
}

// writeGroup writes a group outcome as writeStreamed's "    " indented
// value.
func writeGroup(w *bufio.Writer, g *GroupOutcome) error {
	if g == nil {
		w.WriteString("null")
		return nil
	}
	if g.cases == nil && g.Results == nil {
		data, err := json.MarshalIndent(g, "    ", "  ")
		if err != nil {
			return err
		}
		w.Write(data)
		return nil
	}
	rest := *g
	rest.Results, rest.Failed, rest.Errored, rest.cases = map[string]float64{}, []string{}, nil, nil
	data, err := json.MarshalIndent(&rest, "    ", "  ")
	if err != nil {
		return err
	}
	const results, failed = `"results": {}`, `"failed": []`
	r, f := bytes.Index(data, []byte(results)), bytes.Index(data, []byte(failed))
	if r < 0 || f < r {
		return errors.New("unexpected layout")
	}
	var entries []caseEntry
	var failedIDs, erroredIDs []string
	if g.cases != nil {
		if entries, err = g.cases.entries(); err != nil {
			return err
		}
		for _, e := range entries {
			switch e.outcome {
			case result.OutcomeFailed:
				failedIDs = append(failedIDs, e.id)
			case result.OutcomeError:
				erroredIDs = append(erroredIDs, e.id)
			}
		}
		// A map's keys, as encoding/json writes them.
		slices.SortStableFunc(entries, func(a, b caseEntry) int { return strings.Compare(a.id, b.id) })
	} else {
		for _, id := range sortedKeys(g.Results) {
			entries = append(entries, caseEntry{id: id, score: g.Results[id]})
		}
		failedIDs, erroredIDs = g.Failed, g.Errored
	}
	const inner, outer = "\n        ", "\n      "
	w.Write(data[:r])
	w.WriteString(`"results": {`)
	var num []byte
	for i, e := range entries {
		if i > 0 && e.id == entries[i-1].id {
			continue // a map has each key once
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(inner)
		writeJSONString(w, e.id)
		w.WriteString(": ")
		if num, err = appendJSONFloat(num[:0], e.score); err != nil {
			return fmt.Errorf("case %s: %w", e.id, err)
		}
		w.Write(num)
	}
	if len(entries) > 0 {
		w.WriteString(outer)
	}
	w.WriteByte('}')
	w.Write(data[r+len(results) : f])
	if failedIDs == nil && g.cases == nil {
		w.WriteString(`"failed": null`)
	} else {
		w.WriteString(`"failed": `)
		writeIDs(w, failedIDs)
	}
	// errored follows failed, and is left out when empty.
	if len(erroredIDs) > 0 {
		w.WriteString(",\n      \"errored\": ")
		writeIDs(w, erroredIDs)
	}
	w.Write(data[f+len(failed):])
	return nil
}

// writeIDs writes a list of case ids as writeGroup's indented value.
func writeIDs(w *bufio.Writer, ids []string) {
	const inner, outer = "\n        ", "\n      "
	w.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(inner)
		writeJSONString(w, id)
	}
	if len(ids) > 0 {
		w.WriteString(outer)
	}
	w.WriteByte(']')
}

// writeJSONString writes s as encoding/json does.
func writeJSONString(w *bufio.Writer, s string) {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if plain {
		w.WriteByte('"')
		w.WriteString(s)
		w.WriteByte('"')
		return
	}
	data, _ := json.Marshal(s) // a string always encodes
	w.Write(data)
}

// appendJSONFloat appends f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
