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
}
