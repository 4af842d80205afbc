package wasmbin

import (
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	// 624485 as LEB128 (the spec's example), a name, a memory's limits
	// (min 1, max 2), an import of an unknown kind.
	r := &Reader{B: []byte{0xE5, 0x8E, 0x26, 0x03, 'a', 'b', 'c', 0x01, 0x01, 0x02, 0x07}}
	if v := r.U32(); v != 624485 {
		t.Fatalf("U32 = %d", v)
	}
	if n := r.Name(); n != "abc" {
		t.Fatalf("Name = %q", n)
	}
	r.Limits()
	if r.Err != nil || r.Pos != 10 {
		t.Fatalf("after Limits: pos %d, err %v", r.Pos, r.Err)
	}
	r.SkipImportDesc(r.Byte())
	if r.Err == nil || !strings.Contains(r.Err.Error(), "unknown import kind 7") {
		t.Fatalf("an unknown import kind: %v", r.Err)
	}
	if r.Byte() != 0 || r.U32() != 0 {
		t.Fatal("reads after an error must give zero values")
	}

	for _, tc := range []struct {
		name string
		b    []byte
		read func(*Reader)
		want string
	}{
		{"truncated number", []byte{0x80, 0x80}, func(r *Reader) { r.U32() }, "unexpected end"},
		{"number too long", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, func(r *Reader) { r.U32() }, "longer than 32 bits"},
		{"signed too long", []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, func(r *Reader) { r.SkipSLEB(33) }, "longer than 33 bits"},
		{"name past the end", []byte{0x05, 'a'}, func(r *Reader) { r.Name() }, "unexpected end"},
		{"negative skip", []byte{0x00}, func(r *Reader) { r.Skip(-1) }, "unexpected end"},
	} {
		r := &Reader{B: tc.b}
		tc.read(r)
		if r.Err == nil || !strings.Contains(r.Err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, r.Err, tc.want)
		}
	}
}
