// Package wasmbin reads the primitives of the WebAssembly binary format,
// for the host's reads of a module before wazero compiles it: which
// transport it speaks (plugins/host) and the rewrite that gives it
// preemption points (internal/preempt).
package wasmbin

import (
	"errors"
	"fmt"
)

// Reader reads the binary format's primitives from B at Pos. The first
// error sticks in Err: later reads return zero values, so a caller checks
// Err once, after a loop of reads that also stops on it.
type Reader struct {
	B   []byte
	Pos int
	Err error
}

var errEnd = errors.New("unexpected end")

// Fail records err, unless an error is already recorded.
func (r *Reader) Fail(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.Pos < len(r.B) && r.Err == nil {
		c := r.B[r.Pos]
		r.Pos++
		return c
	}
	r.Fail(errEnd)
	return 0
}

// ULEB reads an unsigned LEB128 number of at most bits bits.
func (r *Reader) ULEB(bits int) uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		c := r.Byte()
		if r.Err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
		if shift+7 >= bits {
			r.Fail(fmt.Errorf("LEB128 number at byte %d longer than %d bits", r.Pos, bits))
			return 0
		}
	}
}

// U32 reads an unsigned LEB128 number of at most 32 bits.
func (r *Reader) U32() uint32 {
	if r.Pos < len(r.B) && r.B[r.Pos] < 0x80 { // most are one byte
		r.Pos++
		return uint32(r.B[r.Pos-1])
	}
	return uint32(r.ULEB(32))
}

// SkipSLEB skips a signed LEB128 number of at most bits bits (the host
// copies constants and block types as they are: only their length
// matters).
func (r *Reader) SkipSLEB(bits int) {
	for shift := 0; ; shift += 7 {
		c := r.Byte()
		if r.Err != nil || c&0x80 == 0 {
			return
		}
		if shift+7 >= bits {
			r.Fail(fmt.Errorf("signed LEB128 number at byte %d longer than %d bits", r.Pos, bits))
			return
		}
	}
}

// Skip skips n bytes.
func (r *Reader) Skip(n int) {
	if r.Err != nil || n < 0 || n > len(r.B)-r.Pos {
		r.Fail(errEnd)
		return
	}
	r.Pos += n
}

// Bytes reads a length-prefixed byte string, as a part of B.
func (r *Reader) Bytes() []byte {
	n := int(r.U32())
	start := r.Pos
	r.Skip(n)
	if r.Err != nil {
		return nil
	}
	return r.B[start:r.Pos]
}

// Name reads a length-prefixed UTF-8 name as a string.
func (r *Reader) Name() string { return string(r.Bytes()) }

// Limits skips a table's or memory's limits (32- or 64-bit).
func (r *Reader) Limits() {
	flags := r.Byte()
	bits := 32
	if flags&0x04 != 0 { // 64-bit memory
		bits = 64
	}
	r.ULEB(bits)
	if flags&0x01 != 0 {
		r.ULEB(bits)
	}
}

// Import kinds.
const (
	ImportFunc   = 0x00
	ImportTable  = 0x01
	ImportMemory = 0x02
	ImportGlobal = 0x03
	ImportTag    = 0x04
)

// SkipImportDesc skips what an import of that kind describes.
func (r *Reader) SkipImportDesc(kind byte) {
	switch kind {
	case ImportFunc: // type index
		r.U32()
	case ImportTable: // reference type, limits
		r.Byte()
		r.Limits()
	case ImportMemory:
		r.Limits()
	case ImportGlobal: // value type, mutability
		r.Byte()
		r.Byte()
	case ImportTag: // attribute, type index
		r.Byte()
		r.U32()
	default:
		r.Fail(fmt.Errorf("unknown import kind %d", kind))
	}
}
