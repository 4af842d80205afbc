package preempt

// rewriteNames renumbers the functions of a "name" custom section (whose
// name ends at pos): the function, local and label names are keyed by
// function index. A name section it cannot read is dropped rather than
// failing the module: names only label stack traces.
func (m *module) rewriteNames(content []byte, pos int) ([]byte, bool, error) {
	out := append([]byte(nil), content[:pos]...)
	r := &reader{b: content, pos: pos}
	for r.pos < len(content) && r.err == nil {
		id := r.byte()
		sub := r.bytes()
		if r.err != nil {
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
	if r.err != nil {
		return nil, false, nil
	}
	return out, true, nil
}

// renumberNameMap renumbers the function indices of a name map (index,
// name)* or, when indirect, of an indirect name map (index, name map)*.
func (m *module) renumberNameMap(sub []byte, indirect bool) ([]byte, bool) {
	r := &reader{b: sub}
	n := r.u32()
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		out = appendU32(out, m.funcIndex(r.u32()))
		start := r.pos
		if indirect {
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				r.u32()
				r.bytes()
			}
		} else {
			r.bytes()
		}
		out = append(out, sub[start:r.pos]...)
	}
	return out, r.err == nil && r.pos == len(sub)
}
