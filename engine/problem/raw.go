package problem

import (
	"reflect"

	"github.com/wasmeval/wasmeval/engine/strictyaml"

	"gopkg.in/yaml.v3"
)

// The raw* types mirror the YAML files key for key. They are decoded
// strictly (unknown keys are errors) and then resolved into Problem.

type rawProblem struct {
	Name        string   `yaml:"name"`
	Version     *int     `yaml:"version"`
	Description string   `yaml:"description"`
	Tags        []string `yaml:"tags"`
	Author      string   `yaml:"author"`
	Category    string   `yaml:"category"`
	Difficulty  string   `yaml:"difficulty"`
	Inspiration string   `yaml:"inspiration"`
	DesignDoc   string   `yaml:"design_doc"`
	Path        string   `yaml:"path"`

	EntryFile string `yaml:"entry_file"`
	// Loader, first form: a script and its entry point. In wasmeval the
	// script names a built-in loader or a plugin.
	LoaderScript     string `yaml:"loader_script"`
	LoaderEntrypoint string `yaml:"loader_entrypoint"`
	// Loader, second form: a mapping.
	Loader   *rawLoader `yaml:"loader"`
	Verifier *rawLoader `yaml:"verifier"`

	Adapter      rawAdapter                `yaml:"adapter"`
	Env          map[string]string         `yaml:"env"`
	Timeout      *float64                  `yaml:"timeout"`
	StaticAssets map[string]rawStaticAsset `yaml:"static_assets"`
	Checkpoints  rawCheckpoints            `yaml:"checkpoints"`

	// wasmeval additions.
	Command   string    `yaml:"command"`
	Checks    rawChecks `yaml:"checks"`
	OutputCap *int64    `yaml:"output_cap"`
	// Environment names an environment spec file (see engine/envspec),
	// relative to the problem directory.
	Environment string `yaml:"environment"`
	// ArgumentSplitting is how a case's arguments given as one string are
	// split: once (default) or twice (SlopCodeBench's harness).
	ArgumentSplitting string `yaml:"argument_splitting"`
	// TimeoutOutcome is what a timeout of the submission counts as:
	// failed (default) or error.
	TimeoutOutcome string `yaml:"timeout_outcome"`
	// Mocks are upstream services the submission calls (see mocks.go).
	Mocks rawMocks `yaml:"mocks"`
}

// rawLoader is the mapping form of a loader or verifier reference.
//
// Both SlopCodeBench spellings are accepted: `{script, entrypoint}` and the
// legacy `{type: script, path, entrypoint}`, where path names the script.
//
// A plugin is named with type: plugin (or a .wasm path, or name:), its
// sha256 and an optional config object.
type rawLoader struct {
	Type       string         `yaml:"type"`
	Script     string         `yaml:"script"`
	Path       string         `yaml:"path"`
	Entrypoint string         `yaml:"entrypoint"`
	Name       string         `yaml:"name"`
	Ref        string         `yaml:"ref"`
	SHA256     string         `yaml:"sha256"`
	Config     map[string]any `yaml:"config"`
	line       int
	scalar     bool
}

// name is the loader the mapping names, whichever spelling it uses.
func (l *rawLoader) name() string {
	if l.Script != "" {
		return l.Script
	}
	return l.Path
}

// namesPlugin says whether the mapping names a plugin of its own (by
// path, name or reference, or just its pin) rather than only configuring
// the enclosing level's.
func (l *rawLoader) namesPlugin() bool {
	return l.name() != "" || l.Name != "" || l.Ref != "" || l.SHA256 != ""
}

// nameKey is the key that holds name() in the mapping form ("" for the
// scalar form).
func (l *rawLoader) nameKey() string {
	switch {
	case l.scalar:
		return ""
	case l.Script != "":
		return "script"
	}
	return "path"
}

func (l *rawLoader) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	l.line = n.Line
	if n.Kind == yaml.ScalarNode {
		l.Script = n.Value
		l.scalar = true
		return
	}
	type plain rawLoader
	var p plain
	d.StructValue(n, path, reflectOf(&p))
	*l = rawLoader(p)
	l.line = n.Line
}

type rawStaticAsset struct {
	Path     string `yaml:"path"`
	SavePath string `yaml:"save_path"`
	line     int
}

func (s *rawStaticAsset) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		s.Path = n.Value
		s.line = n.Line
		return
	}
	type plain rawStaticAsset
	var p plain
	d.StructValue(n, path, reflectOf(&p))
	*s = rawStaticAsset(p)
	s.line = n.Line
}

type rawAdapter struct {
	node *yaml.Node
	Type string
	// TrackedFiles are read back after every case.
	TrackedFiles []string
	Raw          map[string]any
	// Server, Response and Browser are the api and browser adapters'
	// settings, decoded strictly (see adapter.go).
	Server   *Server
	Response string
	Browser  *Browser
	Agent    *AgentAdapter
}

func (a *rawAdapter) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	a.node = n
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping with at least `type`, got %s", strictyaml.Describe(n))
		return
	}
	var raw map[string]any
	if err := n.Decode(&raw); err != nil {
		d.Errorf(n, path, "%v", err)
		return
	}
	a.Raw = strictyaml.Normalize(raw).(map[string]any)
	for _, kv := range strictyaml.MappingPairs(n) {
		k, v := kv[0], kv[1]
		kp := path + "." + k.Value
		switch k.Value {
		case "type":
			d.Value(v, kp, reflectOf(&a.Type))
		case "tracked_files":
			d.Value(v, kp, reflectOf(&a.TrackedFiles))
		}
	}
	if a.Type == AdapterAPI || a.Type == AdapterBrowser || a.Type == AdapterAgent {
		decodeServerAdapter(d, n, path, a)
	}
}

// rawCheckpoints is either a mapping name → checkpoint, or a list of
// directory names each holding its own config.yaml.
type rawCheckpoints struct {
	node    *yaml.Node
	entries []rawCheckpointEntry
	isList  bool
}

type rawCheckpointEntry struct {
	name string
	node *yaml.Node // nil when the config lives in the checkpoint's own file
	path string     // key path for diagnostics
	line int        // where the name is written
}

func (c *rawCheckpoints) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	c.node = n
	switch n.Kind {
	case yaml.MappingNode:
		for _, kv := range strictyaml.MappingPairs(n) {
			c.entries = append(c.entries, rawCheckpointEntry{name: kv[0].Value, node: kv[1], path: path + "." + kv[0].Value, line: kv[0].Line})
		}
	case yaml.SequenceNode:
		c.isList = true
		for i, item := range strictyaml.Items(n) {
			if item.Kind != yaml.ScalarNode || item.Value == "" {
				d.Errorf(item, pathIndex(path, i), "expected a checkpoint directory name, got %s", strictyaml.Describe(item))
				continue
			}
			c.entries = append(c.entries, rawCheckpointEntry{name: item.Value, path: pathIndex(path, i), line: item.Line})
		}
	default:
		d.Errorf(n, path, "expected a mapping of checkpoints or a list of checkpoint directories, got %s", strictyaml.Describe(n))
	}
}

type rawCheckpoint struct {
	Version       *int              `yaml:"version"`
	Order         *int              `yaml:"order"`
	Path          string            `yaml:"path"`
	Groups        rawGroups         `yaml:"groups"`
	ConstantFiles []string          `yaml:"constant_files"`
	Specification string            `yaml:"specification"`
	SpecOverride  string            `yaml:"spec_override"`
	State         string            `yaml:"state"`
	Regressions   []rawRegression   `yaml:"regressions"`
	Env           map[string]string `yaml:"env"`
	Timeout       *float64          `yaml:"timeout"`
	// Accepted for compatibility; static assets belong to the problem.
	StaticAssets           map[string]any `yaml:"static_assets"`
	SubmissionStaticAssets map[string]any `yaml:"submission_static_assets"`
	// Checkpoint-level loader forms and wasmeval additions.
	LoaderScript     string     `yaml:"loader_script"`
	LoaderEntrypoint string     `yaml:"loader_entrypoint"`
	Loader           *rawLoader `yaml:"loader"`
	Verifier         *rawLoader `yaml:"verifier"`
	Checks           rawChecks  `yaml:"checks"`
	Mocks            rawMocks   `yaml:"mocks"`
}

// rawGroups keeps file order.
type rawGroups struct {
	names []string
	nodes []*yaml.Node
	items []rawGroup
}

func (g *rawGroups) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping of group name to group config, got %s", strictyaml.Describe(n))
		return
	}
	seen := map[string]bool{}
	for _, kv := range strictyaml.MappingPairs(n) {
		if seen[kv[0].Value] {
			d.Errorf(kv[0], path+"."+kv[0].Value, "group %q is given twice", kv[0].Value)
			continue
		}
		seen[kv[0].Value] = true
		var rg rawGroup
		rg.line = kv[0].Line
		if !(kv[1].Kind == yaml.ScalarNode && kv[1].Tag == "!!null") {
			d.StructValue(kv[1], path+"."+kv[0].Value, reflectOf(&rg))
		}
		rg.line = kv[0].Line
		g.names = append(g.names, kv[0].Value)
		g.nodes = append(g.nodes, kv[1])
		g.items = append(g.items, rg)
	}
}

// rawDefaults are a group's case_defaults, and the node they were read
// from.
type rawDefaults struct {
	values map[string]any
	node   *yaml.Node
}

func (r *rawDefaults) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	r.node = n
	d.Value(n, path, reflect.ValueOf(&r.values).Elem())
}

type rawGroup struct {
	Name               string      `yaml:"name"`
	Type               string      `yaml:"type"`
	GroupFiles         []string    `yaml:"group_files"`
	OriginalCheckpoint string      `yaml:"original_checkpoint"`
	OriginalGroup      string      `yaml:"original_group"`
	CaseOrder          []string    `yaml:"case_order"`
	Timeout            *float64    `yaml:"timeout"`
	CaseDefaults       rawDefaults `yaml:"case_defaults"`
	Isolated           *bool       `yaml:"isolated"`
	// wasmeval additions.
	Env      map[string]string `yaml:"env"`
	Checks   rawChecks         `yaml:"checks"`
	Loader   *rawLoader        `yaml:"loader"`
	Verifier *rawLoader        `yaml:"verifier"`
	Mocks    rawMocks          `yaml:"mocks"`
	line     int
}

type rawRegression struct {
	Checkpoint   string           `yaml:"checkpoint"`
	Checkpoints  rawCheckpointSel `yaml:"checkpoints"`
	Groups       []string         `yaml:"groups"`
	TypeFilter   string           `yaml:"type_filter"`
	Exclude      []string         `yaml:"exclude"`
	NameTemplate string           `yaml:"name_template"`
	line         int
}

func (r *rawRegression) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	type plain rawRegression
	var p plain
	d.StructValue(n, path, reflectOf(&p))
	*r = rawRegression(p)
	r.line = n.Line
}

// rawCheckpointSel is a list of checkpoint names or "*".
type rawCheckpointSel struct {
	set   bool
	all   bool
	names []string
	line  int
}

func (s *rawCheckpointSel) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	s.set = true
	s.line = n.Line
	if n.Kind == yaml.ScalarNode {
		if n.Value == "*" {
			s.all = true
			return
		}
		d.Errorf(n, path, `expected a list of checkpoint names or "*", got %q`, n.Value)
		return
	}
	d.Value(n, path, reflectOf(&s.names))
}
