package manifest

// RescoredFrom links a rescored run (`wasmeval rescore`) to the run whose
// recorded results it verified again: its results are that run's outputs
// with new verdicts, so its submission and runtime are that run's.
type RescoredFrom struct {
	// Path is the rescored run's directory (absolute) and RunID its id
	// ("" when it has no manifest).
	Path  string `json:"path"`
	RunID string `json:"run_id,omitempty"`
	// Status is the rescored run's status when it was rescored.
	Status string `json:"status,omitempty"`
	// Verifier is the verifier plugin given in place of each group's
	// own; nil when the problem's own plugins verified.
	Verifier *PluginFile `json:"verifier,omitempty"`
}

// PluginFile is a plugin file and its sha256.
type PluginFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}
