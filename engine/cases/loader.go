package cases

import (
	"context"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// GroupInput is everything a loader needs to know about one group. The engine
// fills it from the resolved problem configuration.
type GroupInput struct {
	Checkpoint string
	Group      string
	GroupType  problem.GroupType
	// For regression groups: the checkpoint and group whose cases are re-run.
	OriginalCheckpoint string
	OriginalGroup      string

	// ProblemDir is the problem's root directory.
	ProblemDir string
	// CheckpointDir is the directory of the checkpoint that owns the cases
	// (the original checkpoint for regression groups).
	CheckpointDir string
	// CaseGroup is the group name the cases are stored under (the original
	// group for regression groups).
	CaseGroup string

	CaseOrder []string
	// CaseDefaults are merged under every case (nested merge, case wins).
	CaseDefaults map[string]any
	// CaseDefaultsNode, when set, is the YAML CaseDefaults were read
	// from: they are decoded from it, so messages name its lines.
	CaseDefaultsNode *yaml.Node
	// Timeout is the group's resolved timeout (group > checkpoint > problem);
	// a case's own timeout wins over it.
	Timeout time.Duration
	// Env is the resolved environment from problem/checkpoint (case env is
	// merged over it).
	Env map[string]string
	// Seed is the run's --seed, for loaders that generate cases (nil
	// without one).
	Seed *int64
	// Checks are the resolved checks for the group (case checks win).
	Checks []problem.CheckSpec
	// TrackedFiles are adapter-level tracked files every case gets in
	// addition to its own.
	TrackedFiles []string
	// ArgumentSplitting is how arguments given as one string are split
	// into words: problem.SplitOnce (the default, also for "") or
	// problem.SplitTwice (see SplitArgsTwice).
	ArgumentSplitting string

	// ConfigFile and ConfigPath locate the group's declaration, for
	// diagnostics about case_order and case_defaults.
	ConfigFile string
	ConfigPath string

	// Files is how the built-in loaders open the problem's files
	// (problem.Problem.Files): nothing they read may lie outside the
	// problem directory or a --mount-root, symlinks resolved. Nil means a
	// tree on ProblemDir (CheckpointDir when ProblemDir is empty).
	Files *confine.Tree
}

// Outcome is a finished case as later cases of a stateful group see it.
type Outcome struct {
	Case   *Case
	Actual verify.Actual
}

// Loader discovers a group's cases. Built-in loaders read files; a Wasm
// loader plugin implements the same interface.
type Loader interface {
	// Open starts loading one group.
	Open(ctx context.Context, g GroupInput) (Stream, error)
}

// Describer is a Loader that says what it reads, for `wasmeval validate`
// (front-ends' loaders: "agent task directories (task.yaml)").
type Describer interface {
	Describe() string
}

// Stream yields a group's cases in run order, one at a time, so memory stays
// flat however many cases a group has.
type Stream interface {
	// Next returns the next case or io.EOF. history holds every earlier
	// case of the group with its actual result, so a stateful loader can
	// compute expected values from earlier answers.
	Next(ctx context.Context, history []Outcome) (*Case, error)
	// Len is the number of cases, or -1 when the loader cannot know ahead.
	Len() int
	Close() error
}
