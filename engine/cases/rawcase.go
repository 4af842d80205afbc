package cases

import (
	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// rawCase mirrors a case as authors write it: a case.yaml, an entry of a
// group file (whose `input` block holds the same keys), a META.yaml, or a
// group's case_defaults. Decoding is strict: unknown keys are errors.
type rawCase struct {
	Order        *int                `yaml:"order"`
	Arguments    *rawArgs            `yaml:"arguments"`
	Stdin        *string             `yaml:"stdin"`
	Env          map[string]string   `yaml:"env"`
	InputFiles   *rawInputFiles      `yaml:"input_files"`
	TrackedFiles []string            `yaml:"tracked_files"`
	Expected     map[string]any      `yaml:"expected"`
	Timeout      *float64            `yaml:"timeout"`
	Reset        *bool               `yaml:"reset"`
	Checks       []problem.CheckSpec `yaml:"checks"`
	// InputFilesFromDir says whether the other files of a case directory
	// are its input files (default true).
	InputFilesFromDir *bool `yaml:"input_files_from_dir"`
	// Input is the group-file spelling: {order, input: {...}, expected}.
	Input *rawCase `yaml:"input"`

	Description string         `yaml:"description"`
	Tags        []string       `yaml:"tags"`
	Extra       map[string]any `yaml:"extra"`

	// Where each list lives, for diagnostics after decoding.
	inputPath string
}

// rawArgs is `arguments`: a list of words or one string split shell-style.
type rawArgs struct {
	words []string
	text  string
	isStr bool
	node  *yaml.Node
}

func (a *rawArgs) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	a.node = n
	switch n.Kind {
	case yaml.ScalarNode:
		a.text, a.isStr = n.Value, true
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				d.Errorf(item, indexPath(path, i), "expected a string, got %s", strictyaml.Describe(item))
				continue
			}
			a.words = append(a.words, item.Value)
		}
	default:
		d.Errorf(n, path, "expected a string or a list of strings, got %s", strictyaml.Describe(n))
	}
}

// absorb moves the keys of an `input` block up; a key given in both places
// is an error because it is ambiguous which one the author meant.
func (c *rawCase) absorb(d *strictyaml.Decoder, node *yaml.Node, path string) {
	in := c.Input
	if in == nil {
		return
	}
	c.Input = nil
	conflict := func(key string) {
		d.Errorf(node, path+".input."+key, "%s is given both at the top level and under input; keep one", key)
	}
	if in.Order != nil {
		if c.Order != nil {
			conflict("order")
		}
		c.Order = in.Order
	}
	if in.Arguments != nil {
		if c.Arguments != nil {
			conflict("arguments")
		}
		c.Arguments = in.Arguments
	}
	if in.Stdin != nil {
		if c.Stdin != nil {
			conflict("stdin")
		}
		c.Stdin = in.Stdin
	}
	if in.Env != nil {
		if c.Env != nil {
			conflict("env")
		}
		c.Env = in.Env
	}
	if in.InputFiles != nil {
		if c.InputFiles != nil {
			conflict("input_files")
		}
		c.InputFiles = in.InputFiles
		c.inputPath = ".input"
	}
	if in.TrackedFiles != nil {
		if c.TrackedFiles != nil {
			conflict("tracked_files")
		}
		c.TrackedFiles = in.TrackedFiles
	}
	if in.Expected != nil {
		if c.Expected != nil {
			conflict("expected")
		}
		c.Expected = in.Expected
	}
	if in.Timeout != nil {
		if c.Timeout != nil {
			conflict("timeout")
		}
		c.Timeout = in.Timeout
	}
	if in.Reset != nil {
		if c.Reset != nil {
			conflict("reset")
		}
		c.Reset = in.Reset
	}
	if in.Checks != nil {
		if c.Checks != nil {
			conflict("checks")
		}
		c.Checks = in.Checks
	}
	if in.InputFilesFromDir != nil {
		c.InputFilesFromDir = in.InputFilesFromDir
	}
}

// withDefaults fills what the case leaves unset from the group's
// case_defaults; env and expected merge key by key (nested maps too), the
// case winning.
func (c *rawCase) withDefaults(def *rawCase) {
	if def == nil {
		return
	}
	if c.Order == nil {
		c.Order = def.Order
	}
	if c.Arguments == nil {
		c.Arguments = def.Arguments
	}
	if c.Stdin == nil {
		c.Stdin = def.Stdin
	}
	c.Env = mergeStrings(def.Env, c.Env)
	if c.InputFiles == nil {
		c.InputFiles = def.InputFiles
	}
	if c.TrackedFiles == nil {
		c.TrackedFiles = def.TrackedFiles
	}
	c.Expected = mergeMaps(def.Expected, c.Expected)
	if c.Timeout == nil {
		c.Timeout = def.Timeout
	}
	if c.Reset == nil {
		c.Reset = def.Reset
	}
	if c.Checks == nil {
		c.Checks = def.Checks
	}
	if c.InputFilesFromDir == nil {
		c.InputFilesFromDir = def.InputFilesFromDir
	}
	c.Extra = mergeMaps(def.Extra, c.Extra)
}

func mergeStrings(base, over map[string]string) map[string]string {
	if len(base) == 0 {
		return over
	}
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// mergeMaps merges over onto base recursively; a copy is returned so
// defaults shared by many cases are never modified.
func mergeMaps(base, over map[string]any) map[string]any {
	if len(base) == 0 {
		return over
	}
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeMaps(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}
