// Package problem loads a checkpointed problem — config.yaml at the problem
// root, checkpoints inline or in their own directories, groups, regression
// specs — and resolves inheritance so the rest of the engine sees one
// consistent, validated tree.
//
// The format is compatible with SlopCodeBench's evaluation module: every key
// it defines is accepted, and wasmeval adds a few of its own (command,
// checks, loader, output_cap). Load reports every problem found at once as a
// diag.List.
package problem

import (
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// Problem is a fully resolved problem.
type Problem struct {
	// Seed is the run's --seed (nil without one): loader plugins get it
	// in their input, and the CLI puts it in every group's environment.
	Seed *int64

	Name        string
	Version     int
	Description string
	Tags        []string
	Author      string
	Category    string
	Difficulty  string

	// Dir is the problem directory; File its config.yaml.
	Dir  string
	File string
	// Files is how the problem's files are opened: paths must stay inside
	// Dir, or under a directory the user allowed with --mount-root, also
	// after resolving symlinks. Case loaders read through it too.
	Files *confine.Tree

	// EntryFile is the submission file that starts it (e.g. "main.py" or
	// "solution", resolved against the submission at run time).
	EntryFile string
	// Command is the template that starts the submission, e.g.
	// "python3 {entry_file}". Empty means: infer from the entry file.
	Command string

	Adapter      Adapter
	StaticAssets map[string]StaticAsset
	// OutputCap bounds bytes kept per output stream of a case.
	OutputCap int64
	// Environment is the path of the problem's environment spec ("" for
	// none); --env overrides it.
	Environment string
	// ArgumentSplitting is how a case's arguments given as one string are
	// split into words: SplitOnce or SplitTwice.
	ArgumentSplitting string
	// TimeoutOutcome is what a timeout of the submission counts as:
	// TimeoutFails or TimeoutErrors.
	TimeoutOutcome string

	Checkpoints []*Checkpoint
	// Digest is the sha256 of every config file read, for manifests.
	Digest string

	// Path is what was named to load the problem, when it is not Dir (an
	// eval-case dataset is a file): a run's manifest records it, and a
	// resumed run loads it again.
	Path string
	// CasePlugins are plugins bound by the cases themselves rather than by
	// groups (an agent task's own test function), so the manifest pins
	// them too.
	CasePlugins []*PluginRef
	// ShippedPlugins are the plugin files a distributed run's coordinator
	// sent, by sha256 (see Options.ShippedPlugins); nil outside a worker.
	ShippedPlugins map[string]string

	// GivenPlugins are plugin files the person running wasmeval named
	// (rescore's --verifier), by absolute path: theirs, not the problem's,
	// so not confined to its directory. Nil for none.
	GivenPlugins map[string]bool

	// cases binds the plugins cases name by name or by reference (set by
	// Load; see BindCasePlugin).
	cases *casePlugins
}

// Checkpoint is one milestone of a problem.
type Checkpoint struct {
	Name    string
	Order   int
	Version int
	// Dir is where the checkpoint's cases live.
	Dir           string
	Specification string
	State         string
	Env           map[string]string
	Timeout       time.Duration
	Groups        []*Group
}

// Group is a set of cases that share a workspace and a submission process
// lifetime.
type Group struct {
	Name         string
	Type         GroupType
	CaseOrder    []string
	CaseDefaults map[string]any
	// CaseDefaultsNode is the YAML CaseDefaults were read from, so
	// messages about them name their lines; nil when they were not read
	// from a file.
	CaseDefaultsNode *yaml.Node
	Isolated         bool
	Timeout          time.Duration
	Env              map[string]string
	GroupFiles       []string
	Checks           []CheckSpec
	Loader           string
	// LoaderRef is the loader plugin when Loader is LoaderPlugin.
	LoaderRef *PluginRef
	// Verifier is a verifier plugin run on every case in addition to
	// Checks (the most specific level that names one wins).
	Verifier *PluginRef
	// Mocks are the upstream services the group's submission calls,
	// started for the group (see Mock).
	Mocks []Mock

	// For regression groups, where the cases come from.
	OriginalCheckpoint string
	OriginalGroup      string
	// CasesDir is the checkpoint directory holding the cases; CaseGroup the
	// group name they are stored under (the original ones for regressions).
	CasesDir  string
	CaseGroup string

	// File and Path say where the group is declared (config file and key
	// path), so problems found later (bad case_defaults, a dangling
	// case_order entry) are reported where the author can fix them.
	File string
	Path string
}

// Adapter says how a case talks to the submission.
type Adapter struct {
	Type string // cli, api, browser or agent
	// TrackedFiles are read back after every case.
	TrackedFiles []string
	// Server is how the api and browser adapters start the submission's
	// server; nil for cli.
	Server *Server
	// Response is the api adapter's default response format.
	Response string
	// Browser holds the browser adapter's settings; nil otherwise.
	Browser *Browser
	// Agent holds the agent adapter's settings; nil otherwise. Server is
	// set too when the agent is served over HTTP.
	Agent *AgentAdapter
	// Raw keeps the adapter's whole mapping for adapters added later.
	Raw map[string]any
}

// StaticAsset is a named file or directory a case can reference with
// {{static:NAME}}; it is never copied into the workspace.
type StaticAsset struct {
	Name string
	// Path is the absolute host path.
	Path string
	// SavePath is where the asset appears inside a container runtime.
	SavePath string
}

// Checkpoint returns the named checkpoint or nil.
func (p *Problem) Checkpoint(name string) *Checkpoint {
	for _, c := range p.Checkpoints {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// IsRegression reports whether the group re-runs an earlier checkpoint's cases.
func (g *Group) IsRegression() bool { return g.OriginalCheckpoint != "" }
