package preempt

import (
	"errors"
	"fmt"
)

// reader reads the binary format's primitives from b. The first error
// sticks: later reads return zero values, so a caller checks err once.
type reader struct {
	b   []byte
	pos int
	err error
}

var errEnd = errors.New("unexpected end")

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) byte() byte {
	if r.pos < len(r.b) && r.err == nil {
		c := r.b[r.pos]
		r.pos++
		return c
	}
	if r.err != nil || r.pos >= len(r.b) {
		r.fail(errEnd)
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

// uleb reads an unsigned LEB128 number of at most bits bits.
func (r *reader) uleb(bits int) uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
		if shift+7 >= bits {
			r.fail(fmt.Errorf("LEB128 number at byte %d longer than %d bits", r.pos, bits))
			return 0
		}
	}
}

func (r *reader) u32() uint32 {
	if r.pos < len(r.b) && r.b[r.pos] < 0x80 { // most are one byte
		r.pos++
		return uint32(r.b[r.pos-1])
	}
	return uint32(r.uleb(32))
}

// skipSLEB skips a signed LEB128 number of at most bits bits (the
// rewriter copies constants and block types as they are: only their length
// matters).
func (r *reader) skipSLEB(bits int) {
	for shift := 0; ; shift += 7 {
		c := r.byte()
		if r.err != nil || c&0x80 == 0 {
			return
		}
		if shift+7 >= bits {
			r.fail(fmt.Errorf("signed LEB128 number at byte %d longer than %d bits", r.pos, bits))
			return
		}
	}
}

func (r *reader) skip(n int) {
	if r.err != nil || n < 0 || n > len(r.b)-r.pos {
		r.fail(errEnd)
		return
	}
	r.pos += n
}

// bytes reads a length-prefixed byte string (a name).
func (r *reader) bytes() []byte {
	n := int(r.u32())
	start := r.pos
	r.skip(n)
	if r.err != nil {
		return nil
	}
	return r.b[start:r.pos]
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}
