// Package checkspec declares what a problem says about verification: the
// kind and options of each built-in check, and references to plugins. It
// depends on nothing else in wasmeval, so the checks themselves
// (engine/verify) can be compiled into a Wasm plugin without the problem
// loader and its YAML and shell parsers.
package checkspec

// CheckSpec declares one built-in check in config. Problems list checks per
// problem, checkpoint, group or case under `checks:`; the most specific list
// wins. See docs/checks.md for every kind and option.
type CheckSpec struct {
	// Kind selects the check: status, text, json, jsonl, regex, schema,
	// file, evaluator, test, mock-calls, one of the assertions (equals,
	// contains, icontains, contains-all, contains-any, starts-with,
	// is-json), an assertion's negation (not-contains, …), latency, or one
	// of the checks of an agent's result (tools, tool-output, flags, cost,
	// tokens).
	Kind string `yaml:"kind" json:"kind"`
	// Attribute is the result attribute compared: status_code, output,
	// stderr, files-<path>, headers-<name>, mock_calls, or for an agent
	// case answer or final_reply. Each kind has a sensible default.
	Attribute string `yaml:"attribute,omitempty" json:"attribute,omitempty"`
	// Weight of the attribute in the case score (default 1).
	Weight *float64 `yaml:"weight,omitempty" json:"weight,omitempty"`

	// status: accept any non-zero exit status instead of equality.
	NonZero bool `yaml:"nonzero,omitempty" json:"nonzero,omitempty"`

	// text: normalise before comparing.
	IgnoreWhitespace bool `yaml:"ignore_whitespace,omitempty" json:"ignore_whitespace,omitempty"`
	IgnoreCase       bool `yaml:"ignore_case,omitempty" json:"ignore_case,omitempty"`

	// json, jsonl: numeric tolerance (absolute and relative; a number
	// matches when either holds), keys ignored at any depth, and whether
	// list order matters.
	Tolerance      float64  `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	RelTolerance   float64  `yaml:"rel_tolerance,omitempty" json:"rel_tolerance,omitempty"`
	IgnoreKeys     []string `yaml:"ignore_keys,omitempty" json:"ignore_keys,omitempty"`
	UnorderedLists bool     `yaml:"unordered_lists,omitempty" json:"unordered_lists,omitempty"`

	// regex: the pattern (Go RE2 syntax); when empty the expected value of
	// the attribute is used as the pattern.
	Pattern string `yaml:"pattern,omitempty" json:"pattern,omitempty"`

	// text, json, regex: parse the attribute as JSON and check the value
	// at this path ($.result.items, $['a key'][0], $.items[*].price)
	// instead of the whole attribute. Named json_path because path is the
	// file check's tracked file.
	JSONPath string `yaml:"json_path,omitempty" json:"json_path,omitempty"`
	// text, json, regex: take the expected value (a regex's pattern) from
	// this place in the case's expected values, written as expected
	// followed by a path (expected.stderr_pattern,
	// expected.output.error), instead of the expected attribute.
	ExpectedFrom string `yaml:"expected_from,omitempty" json:"expected_from,omitempty"`

	// equals, contains, icontains, starts-with: the one text compared
	// with (text, a number or a boolean). Without value or values the
	// expected value comes from expected_from or the expected attribute.
	// flags: the expected flags ({can_diagnose: false}); tool-output: per
	// tool name, what one of its calls must have returned.
	Value any `yaml:"value,omitempty" json:"value,omitempty"`
	// contains-all, contains-any (and contains, icontains): the phrases.
	// tools: the names of the tools the agent must have called; an empty
	// list (values: []) is a declared list, not an absent one.
	Values []any `yaml:"values,omitempty" json:"values,omitempty"`
	// contains-all: the share of phrases that must be found (0..1,
	// default 1); the attribute is correct when the share reaches it.
	// tools (match all or in-order) and tool-output: the share of the
	// named tools that must be satisfied.
	Threshold *float64 `yaml:"threshold,omitempty" json:"threshold,omitempty"`
	// latency: the ceiling on the case's elapsed seconds.
	MaxSeconds *float64 `yaml:"max_seconds,omitempty" json:"max_seconds,omitempty"`

	// tools: how the called tools are compared with values (all, exact,
	// in-order, any; default all), and what an empty list means (no-check,
	// the default, or no-calls).
	Match string `yaml:"match,omitempty" json:"match,omitempty"`
	Empty string `yaml:"empty,omitempty" json:"empty,omitempty"`
	// flags: the phrases of which the reply must carry one when
	// can_diagnose is false, replacing the default list.
	Phrases []string `yaml:"phrases,omitempty" json:"phrases,omitempty"`
	// cost: the ceiling on the agent's reported cost in US dollars.
	MaxUSD *float64 `yaml:"max_usd,omitempty" json:"max_usd,omitempty"`
	// tokens: ceilings on the agent's reported total, input and output
	// tokens; at least one is required.
	MaxTokens       *int64 `yaml:"max_tokens,omitempty" json:"max_tokens,omitempty"`
	MaxInputTokens  *int64 `yaml:"max_input_tokens,omitempty" json:"max_input_tokens,omitempty"`
	MaxOutputTokens *int64 `yaml:"max_output_tokens,omitempty" json:"max_output_tokens,omitempty"`

	// mock-calls: the calls it selects — to the mock service Mock
	// (required), with Method (any when empty) and a path matching Path
	// (the mock routes' pattern: exact, "{x}" one segment, a trailing
	// "/*" any path below) — then how many there must be (Count; at least
	// one when absent) and the JSON subset every selected call's body must
	// contain (Body, a mapping or a list).
	Mock   string `yaml:"mock,omitempty" json:"mock,omitempty"`
	Method string `yaml:"method,omitempty" json:"method,omitempty"`
	Count  *int   `yaml:"count,omitempty" json:"count,omitempty"`
	Body   any    `yaml:"body,omitempty" json:"body,omitempty"`

	// schema: an inline JSON Schema or a file relative to the problem.
	Schema     any    `yaml:"schema,omitempty" json:"schema,omitempty"`
	SchemaFile string `yaml:"schema_file,omitempty" json:"schema_file,omitempty"`

	// file: the tracked file to compare; the expected content comes from the
	// case's expected files or from ExpectedFile (relative to the problem).
	// mock-calls: the pattern the selected calls' paths match.
	Path         string `yaml:"path,omitempty" json:"path,omitempty"`
	ExpectedFile string `yaml:"expected_file,omitempty" json:"expected_file,omitempty"`

	// evaluator: a named function of an evaluator plugin, called with the
	// arguments (plus the case, its actual result and expected values);
	// the attribute is correct when the score reaches pass_score (default 1).
	// test: Plugin is a test-function plugin, called with the agent result
	// JSON read from the attribute; the attribute is correct when it passes.
	Plugin    *PluginRef     `yaml:"plugin,omitempty" json:"plugin,omitempty"`
	Function  string         `yaml:"function,omitempty" json:"function,omitempty"`
	Arguments map[string]any `yaml:"arguments,omitempty" json:"arguments,omitempty"`
	PassScore *float64       `yaml:"pass_score,omitempty" json:"pass_score,omitempty"`
	// evaluators: several evaluator calls whose scores make one
	// attribute (a task spec's list of funcs): Conj "and" scores 0 when
	// any call scores 0 and the mean otherwise, "or" the highest; the
	// attribute is correct when the score reaches pass_score (default 1).
	Conj  string          `yaml:"conj,omitempty" json:"conj,omitempty"`
	Calls []EvaluatorCall `yaml:"calls,omitempty" json:"calls,omitempty"`
}

// EvaluatorCall is one call of an evaluators check: a function of an
// evaluator plugin and its arguments.
type EvaluatorCall struct {
	Plugin    *PluginRef     `yaml:"plugin" json:"plugin"`
	Function  string         `yaml:"function" json:"function"`
	Arguments map[string]any `yaml:"arguments,omitempty" json:"arguments,omitempty"`
}

// WeightOr returns the declared weight or def.
func (c CheckSpec) WeightOr(def float64) float64 {
	if c.Weight == nil {
		return def
	}
	return *c.Weight
}

// Kinds lists the built-in check kinds (negations, NegationPrefix and a
// kind of Negatable, are not listed).
var Kinds = []string{"status", "text", "json", "jsonl", "regex", "schema", "file", "evaluator", "evaluators", "test",
	"equals", "contains", "icontains", "contains-all", "contains-any", "starts-with", "is-json", "latency",
	"mock-calls", "tools", "tool-output", "flags", "cost", "tokens"}

// AgentKinds lists the kinds that judge an agent's result (its tool
// calls, reply and usage) rather than an attribute of the case's output.
var AgentKinds = []string{"tools", "tool-output", "flags", "cost", "tokens"}

// Negatable lists the kinds that NegationPrefix turns into their negation:
// not-contains passes where contains fails, and so on.
var Negatable = []string{"equals", "contains", "icontains", "contains-all", "contains-any", "starts-with", "is-json"}

// NegationPrefix is the prefix of a negated assertion's kind.
const NegationPrefix = "not-"

// PluginRef binds a Wasm plugin: a file (by path relative to the problem, or
// by name from a plugin directory), the sha256 it must have, and the config
// object passed to it with every call.
type PluginRef struct {
	// Path is the plugin file; relative paths are resolved against the
	// problem directory when the problem is loaded.
	Path string `yaml:"path,omitempty" json:"path,omitempty"`
	// Name finds <name>.wasm in the plugin directories instead of a path.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Ref names the plugin in an OCI registry (`oci://host/repo:tag`)
	// instead of a path or a name; runs find it through the problem's
	// lock file and the local plugin cache, and SHA256 still pins it.
	// Once resolved, Path is the cached module.
	Ref string `yaml:"ref,omitempty" json:"ref,omitempty"`
	// SHA256 pins the file's digest; a file with another digest is refused.
	SHA256 string         `yaml:"sha256" json:"sha256"`
	Config map[string]any `yaml:"config,omitempty" json:"config,omitempty"`
	// At is where the binding is written, so what is found wrong with it
	// once the plugin is loaded (a config its schema refuses, a function it
	// lacks) is reported there. Not part of the binding itself.
	At Location `yaml:"-" json:"-"`
	// ModuleAt is where the plugin itself (path, name or ref) is written:
	// At, or for a level that only configures the plugin of an enclosing
	// level, that level's binding. A module that cannot be loaded is
	// reported there, once.
	ModuleAt Location `yaml:"-" json:"-"`
}

// Location is a place in a config file: the file, the key path of the
// mapping and its line.
type Location struct {
	File string
	Key  string
	Line int
}
