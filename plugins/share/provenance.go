package share

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/wasmeval/wasmeval/plugins/provenance"
)

// provenanceAnnotations are the manifest annotations of a module's
// provenance: from file when given (it must exist), else from the file
// the plugin build writes beside the module, when there is one. An
// --annotation the user gives wins over a provenance annotation. A
// provenance file that records another module's digest (the module was
// rebuilt by other means since) is refused, not published.
func provenanceAnnotations(module, file, moduleDigest string) (map[string]string, error) {
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
	if p.SHA256 != "" && p.SHA256 != moduleDigest {
		return nil, fmt.Errorf("provenance %s: sha256: describes module sha256:%s, but %s is sha256:%s; rebuild the plugin, or name its provenance with --provenance", file, p.SHA256, module, moduleDigest)
	}
	return p.Annotations(), nil
}

// Provenance is the provenance recorded in a plugin's manifest
// annotations (ok false: none).
func (r Resolved) Provenance() (provenance.Provenance, bool) {
	return provenance.FromAnnotations(r.Annotations)
}
