package preempt

import (
	"fmt"

	"github.com/wasmeval/wasmeval/plugins/host/internal/wasmbin"
)

// instrKind is what the rewriter needs to know of an instruction.
type instrKind uint8

const (
	kindPlain   instrKind = iota
	kindBlock             // block or if: opens a frame
	kindLoop              // loop: opens a frame whose start is a back-edge target
	kindEnd               // end: closes a frame
	kindFuncRef           // call, return_call, ref.func: names a function
)

// Immediates of the one-byte opcodes, by opcode (immUnknown for those
// the rewriter does not know).
const (
	immUnknown = iota
	immNone
	immBlock    // block, if: a block type; opens a frame
	immLoop     // loop: a block type; opens a frame that is a back-edge target
	immEnd      // end: closes a frame
	immU32      // one index
	immU32x2    // two indices
	immFunc     // call, return_call, ref.func: a function index
	immBrTable  // a vector of labels and a default
	immSelectT  // a vector of value types
	immMemarg   // alignment, (memory,) offset
	immI32      // a signed LEB128 of 32 bits
	immI64      // a signed LEB128 of 64 bits
	immF32      // four bytes
	immF64      // eight bytes
	immByte     // one byte (ref.null's type)
	immPrefixFC // the 0xFC prefix
	immPrefixFD // SIMD
	immPrefixFE // atomics
)

var immediates = func() (t [256]uint8) {
	set := func(kind uint8, from, to int) {
		for op := from; op <= to; op++ {
			t[op] = kind
		}
	}
	set(immNone, 0x45, 0xC4) // the numeric instructions
	for _, op := range []int{0x00, 0x01, 0x05, 0x0F, 0x1A, 0x1B, 0xD1} {
		t[op] = immNone // unreachable, nop, else, return, drop, select, ref.is_null
	}
	t[0x02], t[0x04], t[0x03], t[0x0B] = immBlock, immBlock, immLoop, immEnd
	t[0x0C], t[0x0D], t[0x0E] = immU32, immU32, immBrTable // br, br_if, br_table
	t[0x10], t[0x12], t[0xD2] = immFunc, immFunc, immFunc
	t[0x11], t[0x13] = immU32x2, immU32x2 // call_indirect, return_call_indirect
	t[0x1C] = immSelectT
	set(immU32, 0x20, 0x26) // locals, globals, table.get and table.set
	set(immMemarg, 0x28, 0x3E)
	t[0x3F], t[0x40] = immU32, immU32 // memory.size, memory.grow
	t[0x41], t[0x42], t[0x43], t[0x44] = immI32, immI64, immF32, immF64
	t[0xD0] = immByte
	t[0xFC], t[0xFD], t[0xFE] = immPrefixFC, immPrefixFD, immPrefixFE
	return t
}()

// decode reads the instruction at r.Pos and leaves r.Pos after it; for a
// kindFuncRef, fn is the function it names, whose index starts at
// r.Pos-fnLen. It knows every instruction of the features wazero compiles
// (WebAssembly 2.0 with SIMD, plus threads' atomics and tail calls);
// anything else is an error, and the host then keeps wazero's own
// termination checks.
func decode(r *wasmbin.Reader) (kind instrKind, fn uint32, fnLen int) {
	op := r.Byte()
	switch immediates[op] {
	case immNone:
	case immBlock:
		kind = kindBlock
		r.SkipSLEB(33)
	case immLoop:
		kind = kindLoop
		r.SkipSLEB(33)
	case immEnd:
		kind = kindEnd
	case immU32:
		r.U32()
	case immU32x2:
		r.U32()
		r.U32()
	case immFunc:
		kind = kindFuncRef
		start := r.Pos
		fn = r.U32()
		fnLen = r.Pos - start
	case immBrTable:
		for n := r.U32(); n > 0 && r.Err == nil; n-- {
			r.U32()
		}
		r.U32()
	case immSelectT:
		r.Skip(int(r.U32()))
	case immMemarg:
		memarg(r)
	case immI32:
		r.SkipSLEB(32)
	case immI64:
		r.SkipSLEB(64)
	case immF32:
		r.Skip(4)
	case immF64:
		r.Skip(8)
	case immByte:
		r.Byte()
	case immPrefixFC:
		decodeFC(r)
	case immPrefixFD:
		decodeSIMD(r)
	case immPrefixFE:
		decodeAtomic(r)
	default:
		r.Fail(fmt.Errorf("opcode %#x at byte %d is not one this rewriter knows", op, r.Pos-1))
	}
	return kind, fn, fnLen
}

func memarg(r *wasmbin.Reader) {
	align := r.U32()
	if align&0x40 != 0 { // multiple memories: a memory index follows
		r.U32()
	}
	r.ULEB(64)
}

// decodeFC reads the immediates of the 0xFC prefix: saturating
// truncations, bulk memory and table instructions.
func decodeFC(r *wasmbin.Reader) {
	switch sub := r.U32(); {
	case sub <= 7:
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		r.U32()
		r.U32()
	case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
		r.U32()
	default:
		r.Fail(fmt.Errorf("instruction 0xfc %d is not one this rewriter knows", sub))
	}
}

func decodeSIMD(r *wasmbin.Reader) {
	switch sub := r.U32(); {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		memarg(r)
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		r.Skip(16)
	case sub >= 21 && sub <= 34: // extract and replace lane
		r.Byte()
	case sub >= 84 && sub <= 91: // load and store lane
		memarg(r)
		r.Byte()
	case sub <= 0x113:
		// Every other SIMD instruction (relaxed SIMD included) has no
		// immediates; wazero refuses what it does not support.
	default:
		r.Fail(fmt.Errorf("instruction 0xfd %d is not one this rewriter knows", sub))
	}
}

func decodeAtomic(r *wasmbin.Reader) {
	switch sub := r.U32(); {
	case sub == 0x03: // atomic.fence
		r.Byte()
	case sub <= 0x02, sub >= 0x10 && sub <= 0x4E:
		memarg(r)
	default:
		r.Fail(fmt.Errorf("instruction 0xfe %d is not one this rewriter knows", sub))
	}
}

// rewriteExpr copies the expression at r to out up to and including its
// final end, with function indices renumbered and, when points is set
// (a function body), the preemption points the plan gives it: one after
// every loop's block type, and one before each call the plan gives one
// (a call that closes a cycle, or into a function costing over callCap).
func (m *module) rewriteExpr(r *wasmbin.Reader, out []byte, points bool) []byte {
	from := r.Pos
	for depth := 1; depth > 0 && r.Err == nil; {
		start := r.Pos
		op := r.B[start]
		kind, fn, fnLen := decode(r)
		switch kind {
		case kindBlock:
			depth++
		case kindLoop:
			depth++
			if points {
				m.loop++
				out = append(out, r.B[from:r.Pos]...)
				out = m.appendPoint(out, m.plan.regionWeight(m.body, m.loop))
				from = r.Pos
			}
		case kindEnd:
			depth--
		case kindFuncRef:
			if points && op != 0xD2 { // a call, not ref.func
				k := m.site
				m.site++
				if m.plan.callPoint(m, m.body, k, fn) {
					// Weighted by what the callee runs until its next point.
					out = append(out, r.B[from:start]...)
					out = m.appendPoint(out, weight(m.plan.cost[fn-m.importedFuncs]))
					from = start
				}
			}
			if idx := m.funcIndex(fn); idx != fn {
				out = append(out, r.B[from:r.Pos-fnLen]...)
				out = appendU32(out, idx)
				from = r.Pos
			}
		}
	}
	if r.Err != nil {
		return out
	}
	return append(out, r.B[from:r.Pos]...)
}

// rewriteBody rewrites function body i (its locals and expression,
// without the size in front) with the points the plan gives it.
func (m *module) rewriteBody(i int, body []byte, out []byte) ([]byte, error) {
	r := &wasmbin.Reader{B: body}
	for n := r.U32(); n > 0 && r.Err == nil; n-- { // locals: count, type
		r.U32()
		r.Byte()
	}
	if r.Err != nil {
		return out, r.Err
	}
	out = append(out, body[:r.Pos]...)
	m.body, m.site, m.loop = i, 0, 0
	if m.plan.entry[i] {
		out = m.appendPoint(out, m.plan.regionWeight(i, 0))
	}
	out = m.rewriteExpr(r, out, true)
	if r.Err == nil && r.Pos != len(body) {
		r.Fail(fmt.Errorf("%d bytes after the function's end", len(body)-r.Pos))
	}
	return out, r.Err
}

// weight is what a preemption point takes from the fuel for code of n
// bytes: one, plus one for every 256 bytes, so the fuel bounds the code
// run between two ticks, not only the points passed.
func weight(n int64) int32 { return 1 + int32(min(n, 1<<24)/256) }

// appendPoint writes a preemption point of weight w: the fuel goes down
// by w, and when it goes below zero the tick import refills it (or stops
// the call).
//
//	global.get $fuel  i32.const W  i32.sub  global.set $fuel
//	global.get $fuel  i32.const 0  i32.lt_s
//	if  call $tick  global.set $fuel  end
func (m *module) appendPoint(out []byte, w int32) []byte {
	m.points++
	out = append(out, 0x23)
	out = appendU32(out, m.fuel)
	out = append(out, 0x41)
	out = appendS32(out, w)
	out = append(out, 0x6B, 0x24)
	out = appendU32(out, m.fuel)
	out = append(out, 0x23)
	out = appendU32(out, m.fuel)
	out = append(out, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10)
	out = appendU32(out, m.tick)
	out = append(out, 0x24)
	out = appendU32(out, m.fuel)
	return append(out, 0x0B)
}
