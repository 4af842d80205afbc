package host

import (
	"errors"
	"fmt"
)

// moduleInterface is what a module imports and exports, read from its
// binary before anything is compiled: it decides which transport drives
// the module (see native.go).
type moduleInterface struct {
	importModules map[string]bool // modules functions are imported from
	imports       [][2]string     // every import: module, name
	exports       map[string]bool // exported function names
}

// readInterface reads the import and export sections of a Wasm binary.
// It checks only what it reads; wazero validates the whole module later.
func readInterface(data []byte) (moduleInterface, error) {
	mi := moduleInterface{importModules: map[string]bool{}, exports: map[string]bool{}}
	r := wasmReader{b: data}
	if len(data) < 8 {
		return mi, errors.New("too short")
	}
	r.pos = 8 // magic and version, checked by checkMagic
	for r.pos < len(r.b) {
		id := r.byte()
		size := r.u32()
		if r.err != nil {
			break
		}
		end := r.pos + int(size)
		if end > len(r.b) || end < r.pos {
			return mi, fmt.Errorf("section %d runs past the end of the module", id)
		}
		sec := wasmReader{b: r.b[:end], pos: r.pos}
		switch id {
		case 2: // imports
			for n := sec.u32(); n > 0 && sec.err == nil; n-- {
				module, name := sec.name(), sec.name()
				mi.imports = append(mi.imports, [2]string{module, name})
				kind := sec.byte()
				if kind == 0 {
					mi.importModules[module] = true
				}
				sec.skipImportDesc(kind)
			}
		case 7: // exports
			for n := sec.u32(); n > 0 && sec.err == nil; n-- {
				name := sec.name()
				kind := sec.byte()
				sec.u32()
				if kind == 0 {
					mi.exports[name] = true
				}
			}
		}
		if sec.err != nil {
			return mi, fmt.Errorf("section %d: %w", id, sec.err)
		}
		r.pos = end
	}
	return mi, r.err
}

type wasmReader struct {
	b   []byte
	pos int
	err error
}

func (r *wasmReader) byte() byte {
	if r.err != nil || r.pos >= len(r.b) {
		r.fail()
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *wasmReader) fail() {
	if r.err == nil {
		r.err = errors.New("unexpected end of section")
	}
}

// u32 reads an unsigned LEB128 number of at most 32 bits.
func (r *wasmReader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("LEB128 number too long")
	return 0
}

func (r *wasmReader) name() string {
	n := int(r.u32())
	if r.err != nil || n > len(r.b)-r.pos {
		r.fail()
		return ""
	}
	s := string(r.b[r.pos : r.pos+n])
	r.pos += n
	return s
}

func (r *wasmReader) limits() {
	flags := r.byte()
	r.u32()
	if flags&1 != 0 {
		r.u32()
	}
}

func (r *wasmReader) skipImportDesc(kind byte) {
	switch kind {
	case 0: // function: type index
		r.u32()
	case 1: // table: reftype, limits
		r.byte()
		r.limits()
	case 2: // memory: limits
		r.limits()
	case 3: // global: valtype, mutability
		r.byte()
		r.byte()
	case 4: // tag: attribute, type index
		r.byte()
		r.u32()
	default:
		r.err = fmt.Errorf("unknown import kind %d", kind)
	}
}
