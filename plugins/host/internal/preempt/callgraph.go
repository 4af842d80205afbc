package preempt

import (
	"fmt"

	"github.com/wasmeval/wasmeval/plugins/host/internal/wasmbin"
)

// Where the points go besides loop headers (RATIONALE.md, "Points where
// calls need them").
//
// A point at every function entry cost a guest that makes many small calls
// (a JSON parser's per-token helpers, an allocator's) about a tenth of its
// time. Entry points are there for code that runs without passing a loop
// header: recursion, and calls that fan out. So:
//
//   - The direct-call graph is walked depth first, and a call to a function
//     on the current path (a back edge: every cycle of calls holds one) gets
//     a point just before it. Recursion passes a point on every cycle,
//     and a cycle taken only on a rare path (an allocator calling its abort
//     handler, which allocates) costs nothing until it is taken.
//   - A function a table or ref.func holds keeps its entry point: an
//     indirect call's callee is unknown, so no cycle through one is seen.
//   - Every other function runs, in one call, at most a known amount of
//     code before it passes a point: WebAssembly branches backwards only
//     to a loop header, so outside its loops a function's code runs at most
//     once a call, along one path (a branch skips what it jumps over; one
//     arm of an if runs, one case of a switch), plus what the functions it
//     calls on that path run: its cost, the longest such path. A call to a
//     function that costs at most callCap bytes is charged to the point its
//     caller passed last, whose weight is the longest path of code it
//     guards, calls included; a call to a dearer one, or one that would
//     make a point guard more than regionCap bytes of calls, gets a point
//     of its own just before it, weighted by the callee's cost. So a rare
//     path into a large function (an error's message being built) gets a
//     point where it leaves the small functions on it, which stay cheap
//     to call.
//
// The fuel therefore still bounds the code run between two ticks (tick.go),
// and a fan-out of calls without loops (a function calling another twice,
// that one the next twice, and so on) cannot run exponentially long between
// points: its cost doubles at each level until it passes callCap, and the
// calls to that level get points.
const (
	callCap   = 2 << 10
	regionCap = 1 << 20
)

// plan is the decision for each of the module's own functions (indexed
// from the first one it defines).
type plan struct {
	entry   []bool    // whether it gets an entry point
	cost    []int64   // the most code one call runs before it passes a point, in bytes (for one without an entry point)
	regions [][]int64 // the weight in bytes of its entry point (0) and of each loop's point (1…, by header)
	calls   [][]bool  // by its direct calls, in order (nil for none): which get a point before them
}

// callPoint reports whether direct call k of function i gets a point of
// its own before it (to a function without an entry point).
func (p *plan) callPoint(m *module, i, k int, fn uint32) bool {
	return p.calls[i] != nil && k < len(p.calls[i]) && p.calls[i][k] && !p.hasEntry(m, fn)
}

// hasEntry reports whether a call to function fn (the module's index)
// passes a point of the callee's own, or runs no guest code (an import).
func (p *plan) hasEntry(m *module, fn uint32) bool {
	if fn < m.importedFuncs {
		return true
	}
	i := fn - m.importedFuncs
	return i >= uint32(len(p.entry)) || p.entry[i]
}

// regionWeight is the weight of point k of function i (0 its entry, then
// its loops in order).
func (p *plan) regionWeight(i, k int) int32 {
	if k < len(p.regions[i]) {
		return weight(p.regions[i][k])
	}
	return weight(1 << 24) // not seen by the plan: the most a point takes
}

// What planning keeps of a function body: its structure, its branches and
// its direct calls, as events in order, each with where its instruction
// ends.
type event struct {
	op     uint8
	back   bool     // evCall: it closes a cycle
	end    int32    // offset just after the instruction, in the expression
	callee uint32   // evCall: the module's index of the function called
	label  uint32   // evBr, evBrIf: the label's depth
	labels []uint32 // evBrTable: its labels' depths, the default last
}

const (
	evBlock = iota
	evIf
	evElse
	evLoop
	evEnd
	evCall
	evBr
	evBrIf
	evBrTable
	evStop // return, unreachable, or a tail call: the path ends
)

// makePlan reads the module's function bodies, element segments and
// globals (their ref.func) and decides where the points go.
func (m *module) makePlan(secs []section) (*plan, error) {
	var bodies [][]event
	var escaped []uint32 // functions a table or ref.func may hold
	for _, s := range secs {
		r := &wasmbin.Reader{B: s.content}
		switch s.id {
		case secCode:
			n := r.U32()
			bodies = make([][]event, 0, min(n, 1<<20))
			for i := uint32(0); i < n && r.Err == nil; i++ {
				b := r.Bytes()
				if r.Err != nil {
					break
				}
				br := &wasmbin.Reader{B: b}
				for k := br.U32(); k > 0 && br.Err == nil; k-- { // locals
					br.U32()
					br.Byte()
				}
				var evs []event
				evs, escaped = scanExpr(br, true, escaped)
				if br.Err != nil {
					return nil, fmt.Errorf("code section: function %d: %w", m.importedFuncs+i, br.Err)
				}
				bodies = append(bodies, evs)
			}
		case secElement:
			escaped = elementFuncs(r, escaped)
		case secGlobal:
			for n := r.U32(); n > 0 && r.Err == nil; n-- {
				r.Byte()
				r.Byte()
				_, escaped = scanExpr(r, false, escaped)
			}
		default:
			continue
		}
		if r.Err != nil {
			return nil, fmt.Errorf("%s section: %w", sectionName(s), r.Err)
		}
	}
	n := len(bodies)
	p := &plan{entry: make([]bool, n), cost: make([]int64, n), regions: make([][]int64, n), calls: make([][]bool, n)}
	for _, fn := range escaped {
		if fn >= m.importedFuncs && fn-m.importedFuncs < uint32(n) {
			p.entry[fn-m.importedFuncs] = true
		}
	}
	g := &graph{m: m, bodies: bodies, p: p, state: make([]uint8, n)}
	for i := range bodies {
		if g.state[i] == 0 {
			g.visit(int32(i))
		}
	}
	return p, nil
}

// scanExpr reads the expression at r to its final end. With events set
// it returns the expression's events; it appends to escaped every
// function a ref.func names.
func scanExpr(r *wasmbin.Reader, events bool, escaped []uint32) ([]event, []uint32) {
	var evs []event
	from := r.Pos
	for depth := 1; depth > 0 && r.Err == nil; {
		op := r.B[r.Pos]
		ev := event{op: 0xFF}
		if events && op >= 0x0C && op <= 0x0E { // br, br_if, br_table: their labels
			r.Pos++
			if op == 0x0E {
				ev.op = evBrTable
				for n := r.U32(); n > 0 && r.Err == nil; n-- {
					ev.labels = append(ev.labels, r.U32())
				}
				ev.labels = append(ev.labels, r.U32())
			} else {
				ev.op, ev.label = evBr, r.U32()
				if op == 0x0D {
					ev.op = evBrIf
				}
			}
			ev.end = int32(r.Pos - from)
			evs = append(evs, ev)
			continue
		}
		kind, fn, _ := decode(r)
		ev.end = int32(r.Pos - from)
		switch kind {
		case kindBlock:
			depth++
			ev.op = evBlock
			if op == 0x04 {
				ev.op = evIf
			}
		case kindLoop:
			depth++
			ev.op = evLoop
		case kindEnd:
			depth--
			ev.op = evEnd
		case kindFuncRef:
			if op == 0xD2 { // ref.func
				escaped = append(escaped, fn)
			} else {
				ev.op, ev.callee = evCall, fn
			}
		default:
			switch op {
			case 0x05:
				ev.op = evElse
			case 0x00, 0x0F, 0x13: // unreachable, return, return_call_indirect
				ev.op = evStop
			}
		}
		if events && ev.op != 0xFF {
			evs = append(evs, ev)
			if op == 0x12 { // return_call: a call, then the path ends
				evs = append(evs, event{op: evStop, end: ev.end})
			}
		}
	}
	return evs, escaped
}

// elementFuncs appends the functions of the element segments at r, in
// each of the binary format's eight forms.
func elementFuncs(r *wasmbin.Reader, escaped []uint32) []uint32 {
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		flags := r.U32()
		if flags > 7 {
			r.Fail(fmt.Errorf("element segment %d: unknown form %d", i, flags))
			break
		}
		if flags&0x02 != 0 && flags&0x01 == 0 { // an explicit table index
			r.U32()
		}
		if flags&0x01 == 0 { // active: an offset expression
			_, escaped = scanExpr(r, false, escaped)
		}
		exprs := flags&0x04 != 0
		if flags&0x03 != 0 { // an element kind or reference type
			r.Byte()
		}
		for count := r.U32(); count > 0 && r.Err == nil; count-- {
			if exprs {
				_, escaped = scanExpr(r, false, escaped)
			} else {
				escaped = append(escaped, r.U32())
			}
		}
	}
	return escaped
}

// graph walks the direct-call graph depth first. Without its back edges
// the graph has no cycle, and a function finishes after everything it
// calls but through a back edge: each is planned as it finishes, its
// callees' costs known.
type graph struct {
	m      *module
	bodies [][]event
	p      *plan
	state  []uint8 // 0 unvisited, 1 on the current path, 2 finished
	frames []costFrame
}

func (g *graph) defined(fn uint32) (int32, bool) {
	if fn < g.m.importedFuncs || fn-g.m.importedFuncs >= uint32(len(g.bodies)) {
		return 0, false
	}
	return int32(fn - g.m.importedFuncs), true
}

// visit walks from function v. The walk keeps its own stack: a module's
// call chains can be as deep as it has functions, too deep for Go's.
func (g *graph) visit(v int32) {
	type at struct {
		fn   int32
		next int // the next event to look at
	}
	stack := []at{{fn: v}}
	g.state[v] = 1
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		evs := g.bodies[top.fn]
		descended := false
		for ; top.next < len(evs); top.next++ {
			ev := &evs[top.next]
			if ev.op != evCall {
				continue
			}
			w, ok := g.defined(ev.callee)
			if !ok {
				continue
			}
			if g.state[w] == 1 {
				ev.back = true
			}
			if g.state[w] == 0 {
				top.next++
				g.state[w] = 1
				stack = append(stack, at{fn: w})
				descended = true
				break
			}
		}
		if descended {
			continue
		}
		fn := top.fn
		stack = stack[:len(stack)-1]
		g.state[fn] = 2
		g.planFunc(fn)
		g.bodies[fn] = nil // planned: what is kept is in the plan
	}
}

// costFrame is an open block, if or loop of the function being planned.
type costFrame struct {
	op     uint8
	region int   // the region its code is charged to: its own, for a loop
	arrive int64 // the longest path that branches to its end (-1: none)
	start  int64 // an if's: the path at its start; a loop's: its parent region's path at its entry
	else_  bool  // an if's else has begun
}

// planFunc works out, for function v, the longest path of code each of its
// points guards (its entry's, region 0, and each loop's), which of its
// calls get points and its cost. Its callees are planned, but those of
// back edges, whose calls get points.
//
// A path is followed as the code runs: a branch ends it at the branch's
// target (a block's end, or a loop's header, where the loop's point
// starts a new one), return, unreachable and a tail call end it, and at a
// block's end the longest of the paths that arrive there goes on. A loop's
// code is its own point's, so the path around a loop goes on after it as
// it was when the loop began.
func (g *graph) planFunc(v int32) {
	evs := g.bodies[v]
	var points []bool
	regions := []int64{0}
	calls := []int64{0} // what the calls charged to each region cost, for regionCap
	frames := append(g.frames[:0], costFrame{op: evBlock, arrive: -1})
	cur := int64(0) // the path so far, in the innermost region; -1 where no path reaches
	last := int32(0)
	calln := 0
	// ends notes a path of cost c ending in region r.
	ends := func(r int, c int64) {
		if c > regions[r] {
			regions[r] = c
		}
	}
	// branch takes the path to the frame at depth label.
	branch := func(label uint32) {
		if cur < 0 || int(label) >= len(frames) {
			return
		}
		top := frames[len(frames)-1].region
		t := len(frames) - 1 - int(label)
		if frames[t].op == evLoop {
			ends(top, cur) // back to a loop's header: a new turn
			if frames[t].region != top {
				// Out of inner loops: the paths around them end where
				// they began.
				for i := len(frames) - 1; i > t; i-- {
					if frames[i].op == evLoop {
						ends(frames[i-1].region, frames[i].start)
					}
				}
			}
			return
		}
		arrive := cur
		if frames[t].region != top {
			// Out of a loop: this path ends in the loop's region, and the
			// target's region arrives as it was when the outermost loop
			// left began.
			ends(top, cur)
			for i := t + 1; i < len(frames); i++ {
				if frames[i].op == evLoop {
					arrive = frames[i].start
					break
				}
			}
		}
		frames[t].arrive = max(frames[t].arrive, arrive)
	}
	for _, ev := range evs {
		top := &frames[len(frames)-1]
		if cur >= 0 {
			cur += int64(ev.end - last) // the code up to and including this instruction
		}
		last = ev.end
		switch ev.op {
		case evBlock:
			frames = append(frames, costFrame{op: evBlock, region: top.region, arrive: -1})
		case evIf:
			frames = append(frames, costFrame{op: evIf, region: top.region, arrive: -1, start: cur})
		case evElse:
			top.arrive = max(top.arrive, cur)
			top.else_ = true
			cur = top.start
		case evLoop:
			regions = append(regions, 0)
			calls = append(calls, 0)
			frames = append(frames, costFrame{op: evLoop, region: len(regions) - 1, arrive: -1, start: cur})
			if cur >= 0 {
				cur = 0
			}
		case evBr:
			branch(ev.label)
			cur = -1
		case evBrIf:
			branch(ev.label)
		case evBrTable:
			for _, l := range ev.labels {
				branch(l)
			}
			cur = -1
		case evStop:
			if cur >= 0 {
				ends(top.region, cur)
			}
			cur = -1
		case evCall:
			k := calln
			calln++
			w, ok := g.defined(ev.callee)
			if !ok || g.p.entry[w] || cur < 0 {
				break
			}
			if c := g.p.cost[w]; !ev.back && c <= callCap && calls[top.region]+c <= regionCap {
				calls[top.region] += c
				cur += c
				break
			}
			if points == nil {
				points = make([]bool, countCalls(evs))
			}
			points[k] = true
		case evEnd:
			f := *top
			frames = frames[:len(frames)-1]
			switch {
			case f.op == evLoop:
				ends(f.region, cur)
				cur = f.start // the path around the loop goes on
			case f.op == evIf && !f.else_:
				cur = max(cur, f.arrive, f.start) // the condition was false
			default:
				cur = max(cur, f.arrive)
			}
			if len(frames) == 0 {
				ends(0, cur)
			}
		}
		if len(frames) == 0 {
			break
		}
	}
	g.frames = frames
	g.p.regions[v], g.p.calls[v], g.p.cost[v] = regions, points, regions[0]
}

func countCalls(evs []event) int {
	n := 0
	for _, ev := range evs {
		if ev.op == evCall {
			n++
		}
	}
	return n
}
