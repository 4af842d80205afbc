package cases

import (
	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// rawStdin is `stdin`: text as written, or a mapping or list meaning that
// value serialised as JSON — compact, keys in the order written, followed
// by a newline, exactly as a `json` input file is written.
type rawStdin struct {
	text string
}

func newStdin(s string) *rawStdin { return &rawStdin{text: s} }

func (s *rawStdin) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.ScalarNode:
		s.text = n.Value
	case yaml.MappingNode, yaml.SequenceNode:
		data, err := serialise(n, "json")
		if err != nil {
			d.Errorf(n, path, "cannot serialise stdin as JSON: %v", err)
			return
		}
		s.text = string(data)
	default:
		d.Errorf(n, path, "expected text, or a mapping or list to pass as JSON, got %s", strictyaml.Describe(n))
	}
}

// value is the standard input the case gets (nil when none was given).
func (s *rawStdin) value() *string {
	if s == nil {
		return nil
	}
	v := s.text
	return &v
}
