package cases

import (
	"reflect"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// rawCase mirrors a case as authors write it: a case.yaml, an entry of a
// group file (whose `input` block holds the same keys), a META.yaml, or a
// group's case_defaults. Decoding is strict: unknown keys are errors.
type rawCase struct {
	Order        *int                `yaml:"order"`
	Arguments    *rawArgs            `yaml:"arguments"`
	Stdin        *rawStdin           `yaml:"stdin"`
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
	// Input is the group-file spelling: {order, input: {...}, expected};
	// Case is the same block under the name `case`
	// ({case: {...}, expected: {...}}).
	Input *rawCase `yaml:"input"`
	Case  *rawCase `yaml:"case"`
	// Compare names the check kind for an expected attribute's default
	// check (stderr: regex), see compare.go.
	Compare map[string]string `yaml:"compare"`
	// Request (api adapter) and Steps (browser adapter).
	Request *rawRequest `yaml:"request"`
	Steps   *rawSteps   `yaml:"steps"`
	// Instruction and Metadata (agent adapter): what the agent is asked,
	// and the task's metadata sent with it.
	Instruction *string        `yaml:"instruction"`
	Metadata    map[string]any `yaml:"metadata"`
	Category    string         `yaml:"category"`

	Description string         `yaml:"description"`
	Tags        []string       `yaml:"tags"`
	Extra       map[string]any `yaml:"extra"`
}

// rawArgs is `arguments`: a list of words or one string split shell-style.
type rawArgs struct {
	words []string
	text  string
	isStr bool
	node  *yaml.Node
	file  string // the file the words were read from when it is not the case's (ARGS)
}

func (a *rawArgs) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	a.node = n
	switch n.Kind {
	case yaml.ScalarNode:
		a.text, a.isStr = n.Value, true
	case yaml.SequenceNode:
		for i, item := range strictyaml.Items(n) {
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

// absorb moves the keys of an `input` (or `case`) block up; a key given in
// both places is an error because it is ambiguous which one the author
// meant.
func (c *rawCase) absorb(d *strictyaml.Decoder, node *yaml.Node, path string) {
	in, block := c.Input, "input"
	if c.Case != nil {
		if in != nil {
			d.Errorf(lookup(node, "case"), diag.JoinPath(path, "case"), "both an input block and a case block are given; keep one (they hold the same keys)")
		}
		in, block = c.Case, "case"
	}
	c.Input, c.Case = nil, nil
	if in == nil {
		return
	}
	if in.Input != nil || in.Case != nil {
		d.Errorf(lookup(node, block), diag.JoinPath(path, block), "the `%s` block cannot hold another input or case block", block)
	}
	conflict := func(key string) {
		d.Errorf(lookup(node, block, key), diag.JoinPath(path, block+"."+key), "%s is given both at the top level and under %s; keep one", key, block)
	}
	take(&c.Order, in.Order, "order", conflict)
	take(&c.Arguments, in.Arguments, "arguments", conflict)
	take(&c.Stdin, in.Stdin, "stdin", conflict)
	take(&c.Env, in.Env, "env", conflict)
	take(&c.InputFiles, in.InputFiles, "input_files", conflict)
	take(&c.TrackedFiles, in.TrackedFiles, "tracked_files", conflict)
	take(&c.Expected, in.Expected, "expected", conflict)
	take(&c.Timeout, in.Timeout, "timeout", conflict)
	take(&c.Reset, in.Reset, "reset", conflict)
	take(&c.Checks, in.Checks, "checks", conflict)
	take(&c.InputFilesFromDir, in.InputFilesFromDir, "input_files_from_dir", conflict)
	take(&c.Request, in.Request, "request", conflict)
	take(&c.Steps, in.Steps, "steps", conflict)
	take(&c.Compare, in.Compare, "compare", conflict)
	take(&c.Instruction, in.Instruction, "instruction", conflict)
	take(&c.Metadata, in.Metadata, "metadata", conflict)
}

// withDefaults fills what the case leaves unset from the group's
// case_defaults; env, expected and extra merge key by key (nested maps
// too), the case winning.
func (c *rawCase) withDefaults(def *rawCase) {
	if def == nil {
		return
	}
	fill(&c.Order, def.Order)
	fill(&c.Arguments, def.Arguments)
	fill(&c.Stdin, def.Stdin)
	fill(&c.InputFiles, def.InputFiles)
	fill(&c.TrackedFiles, def.TrackedFiles)
	fill(&c.Timeout, def.Timeout)
	fill(&c.Reset, def.Reset)
	fill(&c.Checks, def.Checks)
	fill(&c.InputFilesFromDir, def.InputFilesFromDir)
	fill(&c.Steps, def.Steps)
	fill(&c.Instruction, def.Instruction)
	c.Compare = mergeCompare(def.Compare, c.Compare)
	if c.Request == nil && def.Request != nil {
		c.Request = &rawRequest{}
	}
	if c.Request != nil {
		c.Request.withDefaults(def.Request)
	}
	c.Env = problem.MergeEnv(def.Env, c.Env)
	c.Expected = mergeMaps(def.Expected, c.Expected)
	c.Extra = mergeMaps(def.Extra, c.Extra)
	c.Metadata = mergeMaps(def.Metadata, c.Metadata)
	if c.Category == "" {
		c.Category = def.Category
	}
}

// take sets *dst from src when src was given, reporting key when *dst was
// given too. "Given" is non-nil: every rawCase field is a pointer, a map or
// a slice, nil when the key is absent.
func take[T any](dst *T, src T, key string, conflict func(string)) {
	if absent(src) {
		return
	}
	if !absent(*dst) {
		conflict(key)
	}
	*dst = src
}

// fill sets *dst to def when *dst was not given.
func fill[T any](dst *T, def T) {
	if absent(*dst) {
		*dst = def
	}
}

func absent[T any](v T) bool { return reflect.ValueOf(&v).Elem().IsZero() }

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
