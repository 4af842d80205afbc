package preempt

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host/internal/wasmbin"
)

// The plan puts points where calls need them and nowhere else (see
// testdata/plan.wat): a small function called in a loop is charged to the
// loop's point; a recursive call, and a call to a function dearer than
// callCap, get points before them; a function a table holds keeps its
// entry point; and a point weighs the longest path it guards: one arm of
// an if, not both, and one case of a switch whose cases return.
func TestPlanPutsPointsWhereCallsNeedThem(t *testing.T) {
	wasm := wat(t, "plan")
	secs, err := sections(wasm)
	if err != nil {
		t.Fatal(err)
	}
	m := &module{}
	if err := m.count(secs); err != nil {
		t.Fatal(err)
	}
	p, err := m.makePlan(secs)
	if err != nil {
		t.Fatal(err)
	}
	// The module's own functions, in order (one import before them).
	const (
		leaf = iota
		loop
		rec
		held
		arms
		callsbig
		switch_
		big
	)
	sizes := bodySizes(t, secs)
	for i, e := range p.entry {
		if e != (i == held) {
			t.Errorf("function %d: entry point %v", i, e)
		}
	}
	if c := p.cost[leaf]; c <= 0 || c > int64(sizes[leaf]) {
		t.Errorf("leaf costs %d, its body is %d bytes", c, sizes[leaf])
	}
	if p.calls[loop] != nil || p.calls[arms] != nil {
		t.Errorf("calls to a small leaf have points: %v %v", p.calls[loop], p.calls[arms])
	}
	if got := p.regions[loop][1]; got < p.cost[leaf] {
		t.Errorf("the loop's point weighs %d bytes, less than the leaf it calls (%d)", got, p.cost[leaf])
	}
	if p.calls[rec] == nil || !p.calls[rec][0] {
		t.Errorf("the recursive call has no point: %v", p.calls[rec])
	}
	if p.cost[big] <= callCap {
		t.Fatalf("big costs %d, not more than callCap", p.cost[big])
	}
	if p.calls[callsbig] == nil || !p.calls[callsbig][0] || p.cost[callsbig] > int64(sizes[callsbig]) {
		t.Errorf("the call to big: point %v, caller's cost %d", p.calls[callsbig], p.cost[callsbig])
	}
	// Three calls on the then arm, one on the else arm: at least the then
	// arm's three, and less than those three with the whole body (all four
	// calls would be more).
	if c, l := p.cost[arms], p.cost[leaf]; c < 3*l || c >= 3*l+int64(sizes[arms]) {
		t.Errorf("arms costs %d: not the longest arm (leaf %d, body %d bytes)", c, l, sizes[arms])
	}
	if c, l := p.cost[switch_], p.cost[leaf]; c < 8*l || c >= 9*l+int64(sizes[switch_]) {
		t.Errorf("switch costs %d: not its dearest case (leaf %d, body %d bytes)", c, l, sizes[switch_])
	}
}

// bodySizes are the sizes of the module's function bodies.
func bodySizes(t *testing.T, secs []section) []int {
	t.Helper()
	var sizes []int
	for _, s := range secs {
		if s.id != secCode {
			continue
		}
		r := &wasmbin.Reader{B: s.content}
		for n := r.U32(); n > 0 && r.Err == nil; n-- {
			sizes = append(sizes, len(r.Bytes()))
		}
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	return sizes
}

// A module's call chain as deep as it has functions is planned without
// running out of stack: the walk keeps its own (here with Go's stack cut
// to 1 MiB, which a walk by recursion overflows, killing the process).
func TestPlanOfADeepCallChain(t *testing.T) {
	const n = 50000
	wasm := []byte("\x00asm\x01\x00\x00\x00")
	wasm = appendSection(wasm, secType, []byte{1, 0x60, 0, 0})
	funcs := appendU32(nil, n)
	for i := 0; i < n; i++ {
		funcs = append(funcs, 0)
	}
	wasm = appendSection(wasm, secFunction, funcs)
	code := appendU32(nil, n)
	for i := 0; i < n; i++ {
		body := []byte{0} // no locals
		if i+1 < n {
			body = appendU32(append(body, 0x10), uint32(i+1)) // call the next
		}
		body = append(body, 0x0B)
		code = append(appendU32(code, uint32(len(body))), body...)
	}
	wasm = appendSection(wasm, secCode, code)

	was := debug.SetMaxStack(1 << 20)
	out, err := Instrument(wasm)
	debug.SetMaxStack(was)
	if err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, true)
	if _, err := rt.CompileModule(context.Background(), out); err != nil {
		t.Fatalf("the instrumented chain does not compile: %v", err)
	}
}
