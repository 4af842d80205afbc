package preempt

import "github.com/wasmeval/wasmeval/plugins/host/internal/wasmbin"

// rewriteNames renumbers the functions of a "name" custom section (whose
// name ends at pos): the function, local and label names are keyed by
// function index. A name section it cannot read is dropped rather than
// failing the module: names only label stack traces.
func (m *module) rewriteNames(content []byte, pos int) ([]byte, bool, error) {
	out := append([]byte(nil), content[:pos]...)
	r := &wasmbin.Reader{B: content, Pos: pos}
	for r.Pos < len(content) && r.Err == nil {
		id := r.Byte()
		sub := r.Bytes()
		if r.Err != nil {
			break
		}
		switch id {
		case 1, 2, 3: // function names; local names; label names
			renamed, ok := m.renumberNameMap(sub, id != 1)
			if !ok {
				return nil, false, nil
			}
			sub = renamed
		}
		out = append(out, id)
		out = appendU32(out, uint32(len(sub)))
		out = append(out, sub...)
	}
	if r.Err != nil {
		return nil, false, nil
	}
	return out, true, nil
}

// renumberNameMap renumbers the function indices of a name map (index,
// name)* or, when indirect, of an indirect name map (index, name map)*.
func (m *module) renumberNameMap(sub []byte, indirect bool) ([]byte, bool) {
	r := &wasmbin.Reader{B: sub}
	n := r.U32()
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.Err == nil; i++ {
		out = appendU32(out, m.funcIndex(r.U32()))
		start := r.Pos
		if indirect {
			for k := r.U32(); k > 0 && r.Err == nil; k-- {
				r.U32()
				r.Bytes()
			}
		} else {
			r.Bytes()
		}
		out = append(out, sub[start:r.Pos]...)
	}
	return out, r.Err == nil && r.Pos == len(sub)
}
