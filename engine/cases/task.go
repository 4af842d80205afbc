package cases

// Task is what an agent case gives the agent (adapter type agent): the
// instruction (a task's, or an eval-case dataset's query) and the task's
// metadata, sent as the request of docs/agents.md.
type Task struct {
	// Name is the task's name; the case's id when the case names none.
	Name        string `json:"name"`
	Instruction string `json:"instruction"`
	// Metadata is the task's free-form metadata, passed on as written.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Category and Tags classify the case in reports.
	Category string   `json:"category,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// Apps are the applications the task involves (related_apps).
	Apps []string `json:"apps,omitempty"`
	// Setup runs in the sandbox before the agent starts; PostSetup after
	// it answered, before its work is checked (a task spec's config and
	// postconfig). A step that fails is the case's error: the agent was
	// not given the task it was meant to have.
	Setup     []SetupStep `json:"setup,omitempty"`
	PostSetup []SetupStep `json:"post_setup,omitempty"`
}

// SetupStep is one step of a task's setup: files written into the
// sandbox, then a command run there (either may be empty).
type SetupStep struct {
	// Name says where the step is declared, for messages
	// ("config[1] upload_script_and_execute").
	Name  string      `json:"name"`
	Files []InputFile `json:"files,omitempty"`
	// Command runs in the sandbox, in its working directory, once the
	// files are written; it must exit 0.
	Command []string `json:"command,omitempty"`
}
