// Package preempt rewrites a WebAssembly module so that a call into it
// can be stopped, and lets the Go runtime run, at a small cost per loop.
//
// Guest code compiled by wazero cannot be preempted by Go: a call that
// loops without calling out holds its thread, never reaches its deadline,
// and stalls every stop-the-world of the garbage collector. wazero's
// answer, termination checks (WithCloseOnContextDone), leaves compiled
// code for Go at every loop iteration, which costs a verifier about three
// times its own time (see plugins/host/RATIONALE.md).
//
// Instrument instead adds a counter, "fuel", in a new global of the
// module. Every loop iteration takes from it, and so does every call that
// could otherwise run long without passing a loop header (a recursive one,
// an indirect one, one into a large function: callgraph.go), in proportion
// to the code it may run until the next point; when the fuel runs out the
// guest calls the host's tick import, which refills it or, when the call's
// context has ended, stops the call. The check itself stays inside
// compiled code (a load, a subtraction, a store and a branch), and the
// guest leaves for Go once every Budget units.
package preempt

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/wasmeval/wasmeval/plugins/host/internal/wasmbin"
	"strings"
)

// The import a rewritten module calls when its fuel runs out: a function
// of no parameters returning the new fuel (an i32). The host answers
// Budget, or stops the call (panics out of the host function) when the
// call's context has ended.
const (
	ImportModule = "wasmeval:preempt"
	ImportName   = "tick"
)

// Budget is the fuel a tick hands back. A point takes 1 and 1 more for
// every 256 bytes of code it guards, so between two ticks a guest runs at
// most some 65,536 loop iterations or about 16 MB of straight code
// (milliseconds), and a tick (a call into Go, about 0.1 µs) costs a tight
// loop well under 1 %.
const Budget = 1 << 16

// Instrument returns the module with a preemption point at every loop
// header and where calls need them (callgraph.go), and the import and
// global they use. The
// result is the same program otherwise: function indices are renumbered
// for the new import (calls, exports, the start function, element
// segments, ref.func, the name section), and DWARF sections are dropped,
// since the code offsets they describe have moved.
//
// It checks only what it reads; the result still has to be validated by
// wazero. An error means the module uses something the rewriter does not
// know, or is malformed.
func Instrument(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, errors.New("not a WebAssembly 1.0 module")
	}
	secs, err := sections(wasm)
	if err != nil {
		return nil, err
	}
	m := &module{}
	if err := m.count(secs); err != nil {
		return nil, err
	}
	if m.plan, err = m.makePlan(secs); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(wasm)+len(wasm)/8+64)
	out = append(out, wasm[:8]...)
	added := map[byte]bool{}
	// addMissing writes the sections the rewrite needs that the module
	// lacks, where the binary format's order puts them: before the first
	// section that must come after them.
	addMissing := func(before byte) {
		for _, id := range []byte{secType, secImport, secGlobal} {
			if !m.has[id] && !added[id] && rank(id) < rank(before) {
				out = appendSection(out, id, m.newSection(id))
				added[id] = true
			}
		}
	}
	for _, s := range secs {
		if s.id != secCustom {
			addMissing(s.id)
		}
		content, keep, err := m.rewriteSection(s)
		if err != nil {
			return nil, fmt.Errorf("%s section: %w", sectionName(s), err)
		}
		if keep {
			out = appendSection(out, s.id, content)
		}
	}
	addMissing(0xFF)
	return out, nil
}

// Section ids of the binary format.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13
)

// rank is a section's place in the order the binary format requires.
func rank(id byte) int {
	switch id {
	case secTag:
		return 6
	case secGlobal:
		return 7
	case secExport, secStart, secElement:
		return int(id) + 1
	case secDataCount:
		return 11
	case secCode:
		return 12
	case secData:
		return 13
	case 0xFF:
		return 100
	}
	return int(id)
}

type section struct {
	id      byte
	content []byte
}

func sectionName(s section) string {
	names := map[byte]string{secCustom: "custom", secType: "type", secImport: "import", secFunction: "function",
		secTable: "table", secMemory: "memory", secGlobal: "global", secExport: "export", secStart: "start",
		secElement: "element", secCode: "code", secData: "data", secDataCount: "data count", secTag: "tag"}
	if n, ok := names[s.id]; ok {
		return n
	}
	return fmt.Sprintf("id %d", s.id)
}

func sections(wasm []byte) ([]section, error) {
	var secs []section
	r := &wasmbin.Reader{B: wasm, Pos: 8}
	for r.Pos < len(wasm) && r.Err == nil {
		id := r.Byte()
		n := int(r.U32())
		start := r.Pos
		r.Skip(n)
		if r.Err != nil {
			return nil, fmt.Errorf("section %d at byte %d runs past the end of the module", id, start)
		}
		if id > secTag {
			return nil, fmt.Errorf("unknown section id %d", id)
		}
		secs = append(secs, section{id, wasm[start:r.Pos]})
	}
	return secs, r.Err
}

func appendSection(out []byte, id byte, content []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(content)))
	return append(out, content...)
}

// module is what the rewrite knows of the module: the counts that fix the
// new import's and global's indices.
type module struct {
	has           map[byte]bool
	types         uint32 // types declared: the tick's type is the next
	importedFuncs uint32 // the tick import's index; defined functions move up by one
	globals       uint32 // imported and defined: the fuel's index
	tick, fuel    uint32
	points        int   // preemption points written
	plan          *plan // where the points go
	// rewriteExpr's: the body being rewritten, its direct calls and loops
	// so far.
	body, site, loop int
}

func (m *module) count(secs []section) error {
	m.has = map[byte]bool{}
	for _, s := range secs {
		if s.id == secCustom {
			continue
		}
		if m.has[s.id] {
			return fmt.Errorf("two %s sections", sectionName(s))
		}
		m.has[s.id] = true
		r := &wasmbin.Reader{B: s.content}
		switch s.id {
		case secType:
			m.types = r.U32()
		case secImport:
			for n := r.U32(); n > 0 && r.Err == nil; n-- {
				mod, name := r.Bytes(), r.Bytes()
				if string(mod) == ImportModule {
					return fmt.Errorf("the module already imports %s.%s", mod, name)
				}
				kind := r.Byte()
				switch kind {
				case wasmbin.ImportFunc:
					m.importedFuncs++
				case wasmbin.ImportGlobal:
					m.globals++
				}
				r.SkipImportDesc(kind)
			}
		case secGlobal:
			m.globals += r.U32()
		}
		if r.Err != nil {
			return fmt.Errorf("%s section: %w", sectionName(s), r.Err)
		}
	}
	m.tick, m.fuel = m.importedFuncs, m.globals
	return nil
}

// funcIndex renumbers a function index for the new import: imported
// functions keep theirs, the tick import takes the next, and the module's
// own functions move up by one.
func (m *module) funcIndex(i uint32) uint32 {
	if i >= m.importedFuncs {
		return i + 1
	}
	return i
}

// The tick's type, import and the fuel global, as the binary format
// writes them.
var (
	tickType = []byte{0x60, 0x00, 0x01, 0x7F} // func [] -> [i32]
)

func (m *module) tickImport() []byte {
	b := appendName(nil, ImportModule)
	b = appendName(b, ImportName)
	b = append(b, 0x00)
	return appendU32(b, m.types)
}

func fuelGlobal() []byte {
	b := []byte{0x7F, 0x01, 0x41} // i32, mutable, i32.const
	b = appendS32(b, Budget)
	return append(b, 0x0B)
}

// newSection is the content of a section the module lacks: a vector of
// the one entry the rewrite adds.
func (m *module) newSection(id byte) []byte {
	switch id {
	case secType:
		return append([]byte{1}, tickType...)
	case secImport:
		return append([]byte{1}, m.tickImport()...)
	default:
		return append([]byte{1}, fuelGlobal()...)
	}
}

// rewriteSection returns a section's new content, and false for a
// section to drop.
func (m *module) rewriteSection(s section) ([]byte, bool, error) {
	r := &wasmbin.Reader{B: s.content}
	var out []byte
	switch s.id {
	case secCustom:
		name := string(r.Bytes())
		switch {
		case r.Err != nil:
			return nil, false, r.Err
		case strings.HasPrefix(name, ".debug_"), name == "sourceMappingURL", name == "external_debug_info":
			return nil, false, nil // they describe the old code's offsets
		case name == "name":
			return m.rewriteNames(s.content, r.Pos)
		}
		return s.content, true, nil
	case secType:
		n := r.U32()
		out = appendU32(out, n+1)
		out = append(out, s.content[r.Pos:]...)
		out = append(out, tickType...)
		r.Pos = len(s.content)
	case secImport:
		n := r.U32()
		out = appendU32(out, n+1)
		out = append(out, s.content[r.Pos:]...)
		out = append(out, m.tickImport()...)
		r.Pos = len(s.content)
	case secGlobal:
		n := r.U32()
		out = appendU32(out, n+1)
		for i := uint32(0); i < n && r.Err == nil; i++ {
			start := r.Pos
			r.Byte() // type
			r.Byte() // mutability
			out = append(out, s.content[start:r.Pos]...)
			out = m.rewriteExpr(r, out, false)
		}
		out = append(out, fuelGlobal()...)
	case secExport:
		n := r.U32()
		out = appendU32(out, n)
		for i := uint32(0); i < n && r.Err == nil; i++ {
			start := r.Pos
			r.Bytes()
			kind := r.Byte()
			out = append(out, s.content[start:r.Pos]...)
			idx := r.U32()
			if kind == 0x00 {
				idx = m.funcIndex(idx)
			}
			out = appendU32(out, idx)
		}
	case secStart:
		out = appendU32(out, m.funcIndex(r.U32()))
	case secElement:
		out = m.rewriteElements(r)
	case secCode:
		n := r.U32()
		out = appendU32(out, n)
		var body []byte
		for i := uint32(0); i < n && r.Err == nil; i++ {
			b := r.Bytes()
			if r.Err != nil {
				break
			}
			var err error
			if int(i) >= len(m.plan.entry) {
				return nil, false, fmt.Errorf("function %d: more bodies than were read", m.importedFuncs+i)
			}
			if body, err = m.rewriteBody(int(i), b, body[:0]); err != nil {
				return nil, false, fmt.Errorf("function %d: %w", m.importedFuncs+i, err)
			}
			out = appendU32(out, uint32(len(body)))
			out = append(out, body...)
		}
	default:
		return s.content, true, nil
	}
	if r.Err == nil && r.Pos != len(s.content) {
		r.Fail(fmt.Errorf("%d bytes after its last entry", len(s.content)-r.Pos))
	}
	return out, true, r.Err
}

// rewriteElements renumbers the functions of the element segments, in
// each of the binary format's eight forms.
func (m *module) rewriteElements(r *wasmbin.Reader) []byte {
	n := r.U32()
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.Err == nil; i++ {
		flags := r.U32()
		out = appendU32(out, flags)
		if flags > 7 {
			r.Fail(fmt.Errorf("element segment %d: unknown form %d", i, flags))
			break
		}
		if flags&0x02 != 0 && flags&0x01 == 0 { // an explicit table index
			out = appendU32(out, r.U32())
		}
		if flags&0x01 == 0 { // active: an offset expression
			out = m.rewriteExpr(r, out, false)
		}
		exprs := flags&0x04 != 0
		if flags&0x03 != 0 { // an element kind or reference type
			out = append(out, r.Byte())
		}
		count := r.U32()
		out = appendU32(out, count)
		for j := uint32(0); j < count && r.Err == nil; j++ {
			if exprs {
				out = m.rewriteExpr(r, out, false)
			} else {
				out = appendU32(out, m.funcIndex(r.U32()))
			}
		}
	}
	return out
}
