package result

// CaseInfo says what a case gave the submission, compactly: enough to know
// what ran without carrying input file contents into every record.
type CaseInfo struct {
	Arguments  []string          `json:"arguments"`
	Stdin      *string           `json:"stdin,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	InputFiles []string          `json:"input_files,omitempty"`
	TimeoutS   float64           `json:"timeout_s,omitempty"`
	Reset      bool              `json:"reset,omitempty"`
	// Source is the file or directory the case was loaded from.
	Source string `json:"source,omitempty"`
	// Instruction is what an agent case asked the agent (the task's
	// instruction or the dataset's query).
	Instruction string `json:"instruction,omitempty"`
	// Category and Tags classify a case for reports (an eval-case
	// dataset's category, a task's tags).
	Category string   `json:"category,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// Apps are the applications a task involves (a task spec's
	// related_apps).
	Apps []string `json:"apps,omitempty"`
}
