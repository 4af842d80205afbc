package run

import (
	"crypto/sha256"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
)

// A rescore finds each case's recorded result by reading the rescored
// journal in order, group by group, rather than through an index of every
// record: a run writes each group's cases in order, so a group's records
// come in the order its loader gives its cases, among the records of the
// groups that ran at the same time. The index says, per group, which
// stretches of the journal hold its records (spans); a group's rescorer
// reads them, passing over other groups' lines by their heads (the
// first few keys of a line), and meets its cases' records as its cases
// come. Only when a record is not the next case's (a case not run, a
// duplicate, a record no case claims, a journal written in another order)
// does it start remembering, for that group, which cases it has met and
// which records it has passed: memory then grows with that group, never
// with the journal.

// spanGap is how far apart two records of a group can be and still share
// a span: the lines between them are read and passed over rather than
// jumped.
const spanGap = 1 << 20

// journalIndex is where each group's records are in a journal.
type journalIndex struct {
	groups map[groupName]*groupSpans
	order  []*groupSpans // in the order of their first record
	// quick: every line's head can be read from its start
	// (journal.QuickHead agrees with the record decoded whole).
	quick bool
	// retried: per group and epoch, the cases tried more than once
	// (--retry-errors), with where their last attempt is: that one is
	// rescored, and the attempts before it are passed over.
	retried map[groupName]map[int]map[caseDigest]lastAttempt
}

type lastAttempt struct {
	attempt int
	off     int64
}

type groupName struct{ checkpoint, group string }

// groupSpans are the stretches of the journal that hold a group's
// records, in file order.
type groupSpans struct {
	name  groupName
	spans []span
	// read: a group of the problem reads them (set as the rescore starts).
	read bool
}

type span struct{ start, end int64 }

// indexJournal reads the journal at path once, checking every line (on
// every core), so that a corrupt line is found before anything is
// written: it is an error listing every corrupt line of the journal.
func indexJournal(path string) (*journalIndex, error) {
	idx := &journalIndex{groups: map[groupName]*groupSpans{}, quick: true, retried: map[groupName]map[int]map[caseDigest]lastAttempt{}}
	var last *groupSpans
	// On the workers: the record's group, and whether its head is quick.
	type kept struct {
		name  groupName
		quick bool
		id    caseDigest
		epoch int
		tries int
	}
	keep := func(h journal.Head, line []byte) kept {
		q, ok := journal.QuickHead(line)
		return kept{groupName{h.Checkpoint, h.Group}, ok && q == h, digestOf(h.ID), h.Epoch, h.Attempt}
	}
	err := journal.ReadHeads(path, runtime.GOMAXPROCS(0), keep, func(k kept, off int64, size int) error {
		g := last
		if g == nil || g.name != k.name {
			if g = idx.groups[k.name]; g == nil {
				g = &groupSpans{name: k.name}
				idx.groups[k.name] = g
				idx.order = append(idx.order, g)
			}
			last = g
		}
		end := off + int64(size)
		if n := len(g.spans); n > 0 && off-g.spans[n-1].end <= spanGap {
			g.spans[n-1].end = end
		} else {
			g.spans = append(g.spans, span{off, end})
		}
		idx.quick = idx.quick && k.quick
		idx.noteAttempt(k.name, k.epoch, k.id, k.tries, off)
		return nil
	})
	var ce *journal.CorruptError
	if errors.As(err, &ce) {
		if c, cerr := journal.Check(path); cerr == nil && c != nil {
			return nil, c
		}
	}
	if err != nil {
		return nil, err
	}
	return idx, nil
}

// noteAttempt keeps, for the cases tried more than once, where their last
// attempt is (a journal without retries keeps nothing).
func (idx *journalIndex) noteAttempt(name groupName, epoch int, id caseDigest, attempt int, off int64) {
	if attempt <= 1 {
		return
	}
	byEpoch := idx.retried[name]
	if byEpoch == nil {
		byEpoch = map[int]map[caseDigest]lastAttempt{}
		idx.retried[name] = byEpoch
	}
	last := byEpoch[epoch]
	if last == nil {
		last = map[caseDigest]lastAttempt{}
		byEpoch[epoch] = last
	}
	if prev, ok := last[id]; !ok || attempt > prev.attempt {
		last[id] = lastAttempt{attempt, off}
	}
}

// reader returns a reader of a group's records of one epoch (0: of every
// epoch); every group has one, the groups the journal has no record of an
// empty one.
func (idx *journalIndex) reader(rd *journal.Reader, checkpoint, group string, epoch int) *groupRecords {
	name := groupName{checkpoint, group}
	g := idx.groups[name]
	var spans []span
	if g != nil {
		spans = g.spans
	}
	r := &groupRecords{rd: rd, name: name, spans: spans, slowHeads: !idx.quick, epoch: epoch}
	if last := idx.retried[name][max(epoch, 1)]; len(last) > 0 && epoch > 0 {
		r.retried = map[caseDigest]int64{}
		for id, a := range last {
			r.retried[id] = a.off
		}
	}
	return r
}

// markRead notes that a group of the problem reads the group's records
// (called before the readers run: a group's epochs read at once).
func (idx *journalIndex) markRead(checkpoint, group string) {
	if g := idx.groups[groupName{checkpoint, group}]; g != nil {
		g.read = true
	}
}

// unread are the groups of the journal that no group of the problem
// reads.
func (idx *journalIndex) unread() []*groupSpans {
	var out []*groupSpans
	for _, g := range idx.order {
		if !g.read {
			out = append(out, g)
		}
	}
	return out
}

// caseDigest stands for a case of a group in the sets a groupRecords
// keeps: a fixed size whatever the id.
type caseDigest [16]byte

func digestOf(id string) caseDigest {
	sum := sha256.Sum256([]byte(id))
	return caseDigest(sum[:16])
}

// groupRecords reads one group's records, in journal order, and hands
// each case its record: its first one (a later one is a duplicate).
type groupRecords struct {
	rd        *journal.Reader
	name      groupName
	spans     []span
	slowHeads bool // decode lines whole to read their heads
	// epoch: only records of this epoch are read (0: of every epoch).
	epoch int
	// retried: the cases with more than one attempt, and where their last
	// attempt starts.
	retried map[caseDigest]int64

	si  int   // the span read
	pos int64 // the next line read, in spans[si]

	// Once a record is not the next case's: the cases met and the
	// records passed over (by where they start), which a later case may
	// claim. Until then every record read was met, and nothing is kept.
	tracking bool
	met      map[caseDigest]struct{}
	passed   map[caseDigest]int64

	duplicates int
}

// next reads the group's next record line: io.EOF after its last.
func (g *groupRecords) next() (int64, []byte, journal.Head, error) {
	for g.si < len(g.spans) {
		sp := g.spans[g.si]
		g.pos = max(g.pos, sp.start)
		if g.pos >= sp.end {
			g.si++
			continue
		}
		off := g.pos
		line, err := g.rd.ReadLine(off)
		if err != nil {
			return 0, nil, journal.Head{}, err
		}
		g.pos += int64(len(line))
		var h journal.Head
		if g.slowHeads {
			rec, err := g.rd.Decode(line, off, false)
			if err != nil {
				return 0, nil, journal.Head{}, err
			}
			h = journal.Head{Checkpoint: rec.Checkpoint, Group: rec.Group, ID: rec.ID, Epoch: max(rec.Epoch, 1), Attempt: max(rec.Attempt, 1)}
		} else if h, err = g.rd.Head(line, off); err != nil {
			return 0, nil, journal.Head{}, err
		}
		if h.Checkpoint == g.name.checkpoint && h.Group == g.name.group && (g.epoch == 0 || h.Epoch == g.epoch) {
			return off, line, h, nil
		}
	}
	return 0, nil, journal.Head{}, io.EOF
}

// find returns the recorded result of the group's case id (without its
// attributes: the rescore gives it new ones); nil when the journal has
// none. Cases are asked for in the order the group's loader gives them.
func (g *groupRecords) find(checkpoint, group, id string) (*result.CaseRecord, error) {
	if checkpoint != g.name.checkpoint || group != g.name.group {
		return nil, nil
	}
	if g.tracking {
		k := digestOf(id)
		if off, ok := g.passed[k]; ok {
			delete(g.passed, k)
			g.met[k] = struct{}{}
			line, err := g.rd.ReadLine(off)
			if err != nil {
				return nil, err
			}
			return g.decode(line, off)
		}
	}
	for {
		off, line, h, err := g.next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if h.ID == id {
			if g.tracking {
				g.met[digestOf(id)] = struct{}{}
			}
			if last, ok := g.retried[digestOf(id)]; ok && last != off {
				// Retried: the last attempt is the one that counts.
				if line, err = g.rd.ReadLine(last); err != nil {
					return nil, err
				}
				off = last
			}
			return g.decode(line, off)
		}
		if err := g.passOver(off, h.ID); err != nil {
			return nil, err
		}
	}
}

// decode decodes a case's record without its attributes, which the
// rescore replaces; but a record the rescore keeps as it is (a case its
// run could not load, see groupRescorer.add) is decoded whole.
func (g *groupRecords) decode(line []byte, off int64) (*result.CaseRecord, error) {
	rec, err := g.rd.Decode(line, off, false)
	if err != nil || rec.Case != nil || !rec.Result.AdapterError {
		return rec, err
	}
	return g.rd.Decode(line, off, true)
}

// passOver notes a record that is not the case asked for: a duplicate of
// a case met or passed over, or a record a later case may claim.
func (g *groupRecords) passOver(off int64, id string) error {
	if !g.tracking {
		if err := g.track(off); err != nil {
			return err
		}
	}
	k := digestOf(id)
	last, retried := g.retried[k]
	if retried && off != last {
		return nil // an attempt a retry replaced: neither a duplicate nor left out
	}
	if _, ok := g.met[k]; ok {
		if !retried {
			g.duplicates++
		}
		return nil
	}
	if _, ok := g.passed[k]; ok {
		g.duplicates++
		return nil
	}
	g.passed[k] = off
	return nil
}

// track starts remembering: every record of the group before upTo was
// met, in order, and is read again to note its case.
func (g *groupRecords) track(upTo int64) error {
	g.tracking = true
	g.met, g.passed = map[caseDigest]struct{}{}, map[caseDigest]int64{}
	si, pos := g.si, g.pos
	g.si, g.pos = 0, 0
	defer func() { g.si, g.pos = si, pos }()
	for {
		off, _, h, err := g.next()
		if errors.Is(err, io.EOF) || (err == nil && off >= upTo) {
			return nil
		}
		if err != nil {
			return err
		}
		g.met[digestOf(h.ID)] = struct{}{}
	}
}

// rest reads the group's records no case asked for: the records left
// out, by where they start (each case's first one; later ones are
// duplicates).
func (g *groupRecords) rest() ([]int64, error) {
	for {
		off, _, h, err := g.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := g.passOver(off, h.ID); err != nil {
			return nil, err
		}
	}
	offs := make([]int64, 0, len(g.passed))
	for _, off := range g.passed {
		offs = append(offs, off)
	}
	g.passed = nil
	return offs, nil
}

// leftOut gathers the records no case claimed: how many, and the first
// few in journal order.
type leftOut struct {
	mu    sync.Mutex
	n     int
	first []int64 // where the first leftOutShown start, in order
}

func (l *leftOut) add(offs []int64) {
	if len(offs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n += len(offs)
	l.first = append(l.first, offs...)
	slices.Sort(l.first)
	l.first = slices.Clip(l.first[:min(len(l.first), leftOutShown)])
}

// keys names the first records left out.
func (l *leftOut) keys(rd *journal.Reader) ([]string, error) {
	var keys []string
	for _, off := range l.first {
		line, err := rd.ReadLine(off)
		if err != nil {
			return nil, err
		}
		h, err := rd.Head(line, off)
		if err != nil {
			return nil, err
		}
		keys = append(keys, problem.CaseKey(h.Checkpoint, h.Group, h.ID))
	}
	return keys, nil
}
