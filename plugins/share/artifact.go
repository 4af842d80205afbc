package share

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Media types of the CNCF Wasm OCI artifact layout.
const (
	// ConfigMediaType is the artifact's config.
	ConfigMediaType = "application/vnd.wasm.config.v0+json"
	// LayerMediaType is the module layer.
	LayerMediaType = "application/wasm"
	// LegacyLayerMediaType is the module layer of artifacts pushed by
	// older tools (wasm-to-oci); accepted on pull, never written.
	LegacyLayerMediaType = "application/vnd.wasm.content.layer.v1+wasm"
)

// Annotation keys of a plugin's manifest.
const (
	AnnotationTitle   = "org.opencontainers.image.title"
	AnnotationVersion = "org.opencontainers.image.version"
	AnnotationCreated = "org.opencontainers.image.created"
	// AnnotationDescribe holds the plugin's whole describe output (JSON).
	AnnotationDescribe   = "dev.wasmeval.describe"
	AnnotationKinds      = "dev.wasmeval.kinds"       // comma-separated
	AnnotationABIVersion = "dev.wasmeval.abi_version" // decimal
	AnnotationTransport  = "dev.wasmeval.transport"
)

// Size limits of what is read from a registry, a cache or an export: a
// hostile artifact cannot make wasmeval read without bound.
const (
	MaxManifestBytes = 4 << 20
	MaxConfigBytes   = 1 << 20
	// MaxModuleBytes is the default cap of a module (a plugin is a few MiB;
	// the standard library, the largest here, is well under 16).
	MaxModuleBytes = 256 << 20
)

// wasmConfig is the config blob of the CNCF Wasm layout.
type wasmConfig struct {
	Created      string   `json:"created,omitempty"`
	Architecture string   `json:"architecture"`
	OS           string   `json:"os"`
	LayerDigests []string `json:"layerDigests"`
}

// describeAnnotations are the annotations that carry d.
func describeAnnotations(d abi.Describe) (map[string]string, error) {
	desc, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("describe output: %w", err)
	}
	a := map[string]string{
		AnnotationDescribe:   string(desc),
		AnnotationABIVersion: strconv.Itoa(d.ABIVersion),
		AnnotationKinds:      strings.Join(d.Kinds, ","),
	}
	if d.Name != "" {
		a[AnnotationTitle] = d.Name
	}
	if d.Version != "" {
		a[AnnotationVersion] = d.Version
	}
	t := d.Transport
	if t == "" {
		t = abi.TransportExtism
	}
	a[AnnotationTransport] = t
	return a, nil
}

// describeFrom reads the describe output back from a manifest's
// annotations. An artifact pushed by another tool has none: the zero
// Describe, not an error. Present but malformed is an error.
func describeFrom(a map[string]string) (abi.Describe, error) {
	var d abi.Describe
	if s, ok := a[AnnotationDescribe]; ok {
		if err := json.Unmarshal([]byte(s), &d); err != nil {
			return abi.Describe{}, fmt.Errorf("annotation %s: expected the plugin's describe JSON: %v", AnnotationDescribe, err)
		}
		return d, nil
	}
	if s, ok := a[AnnotationABIVersion]; ok {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return abi.Describe{}, fmt.Errorf("annotation %s: expected a non-negative integer, got %q", AnnotationABIVersion, s)
		}
		d.ABIVersion = v
	}
	if s := a[AnnotationKinds]; s != "" {
		d.Kinds = strings.Split(s, ",")
	}
	d.Name, d.Version = a[AnnotationTitle], a[AnnotationVersion]
	return d, nil
}
