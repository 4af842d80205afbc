package host

import (
	"errors"
	"fmt"

	"github.com/wasmeval/wasmeval/plugins/host/internal/wasmbin"
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
	if len(data) < 8 {
		return mi, errors.New("too short")
	}
	r := &wasmbin.Reader{B: data, Pos: 8} // magic and version, checked by checkMagic
	for r.Pos < len(r.B) {
		id := r.Byte()
		size := r.U32()
		if r.Err != nil {
			break
		}
		end := r.Pos + int(size)
		if end > len(r.B) || end < r.Pos {
			return mi, fmt.Errorf("section %d runs past the end of the module", id)
		}
		sec := &wasmbin.Reader{B: r.B[:end], Pos: r.Pos}
		switch id {
		case 2: // imports
			for n := sec.U32(); n > 0 && sec.Err == nil; n-- {
				module, name := sec.Name(), sec.Name()
				mi.imports = append(mi.imports, [2]string{module, name})
				kind := sec.Byte()
				if kind == wasmbin.ImportFunc {
					mi.importModules[module] = true
				}
				sec.SkipImportDesc(kind)
			}
		case 7: // exports
			for n := sec.U32(); n > 0 && sec.Err == nil; n-- {
				name := sec.Name()
				kind := sec.Byte()
				sec.U32()
				if kind == 0 {
					mi.exports[name] = true
				}
			}
		}
		if sec.Err != nil {
			return mi, fmt.Errorf("section %d: %w", id, sec.Err)
		}
		r.Pos = end
	}
	return mi, r.Err
}
