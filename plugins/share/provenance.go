package share

import (
	"errors"
	"io/fs"

	"github.com/wasmeval/wasmeval/plugins/provenance"
)

// provenanceAnnotations are the manifest annotations of a module's
// provenance: from file when given (it must exist), else from the file
// the plugin build writes beside the module, when there is one. An
// --annotation the user gives wins over a provenance annotation.
func provenanceAnnotations(module, file string) (map[string]string, error) {
	explicit := file != ""
	if !explicit {
		file = provenance.FileFor(module)
	}
	p, err := provenance.Read(file)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return p.Annotations(), nil
}

// Provenance is the provenance recorded in a plugin's manifest
// annotations (ok false: none).
func (r Resolved) Provenance() (provenance.Provenance, bool) {
	return provenance.FromAnnotations(r.Annotations)
}
