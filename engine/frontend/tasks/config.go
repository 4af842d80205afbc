package tasks

import (
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/frontend/agentconfig"
)

// ConfigFile is the optional file at the root of a task directory that
// says how to run the agent and binds the default test function.
const ConfigFile = "wasmeval.yaml"

// TaskFile is the file that makes a directory a task.
const TaskFile = "task.yaml"

// rawConfig is ConfigFile as written; unknown keys are errors.
type rawConfig struct {
	Name string `yaml:"name"`
	// Agent says how the agent (the submission) is started.
	Agent *agentconfig.Agent `yaml:"agent"`
	// Timeout is each task's limit in seconds (DefaultTimeout).
	Timeout *float64 `yaml:"timeout"`
	// Test is the test function of every task that binds none.
	Test *checkspec.PluginRef `yaml:"test"`
	// OutputCap is not a key: an agent's result may be up to the agent
	// adapter's cap.
}

// rawTask is task.yaml as written; unknown keys are errors.
type rawTask struct {
	Name        string         `yaml:"name"`
	Instruction *string        `yaml:"instruction"`
	Description string         `yaml:"description"`
	Category    string         `yaml:"category"`
	Difficulty  string         `yaml:"difficulty"`
	Tags        []string       `yaml:"tags"`
	Metadata    map[string]any `yaml:"metadata"`
	// Timeout (seconds) overrides the suite's for this task.
	Timeout *float64 `yaml:"timeout"`
	// MaxIterations is passed to the agent in the request's metadata.
	MaxIterations *int `yaml:"max_iterations"`
	// Test binds this task's own test function; TestConfig is merged over
	// the config of the binding used (this task's or the suite's).
	Test       *checkspec.PluginRef `yaml:"test"`
	TestConfig map[string]any       `yaml:"test_config"`
}
