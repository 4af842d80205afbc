// Package cases defines a test case as the engine sees it and the built-in
// loaders that discover cases on disk.
//
// A Case is adapter-neutral data: arguments, stdin, files to write before the
// run, files to read back after it, and the expected values that checks
// compare against. Loaders turn the layouts benchmark authors use into Cases;
// the Loader interface (loader.go) is the seam where a Wasm loader plugin
// slots in later.
package cases

import (
	"time"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// Case is one test case, fully resolved: defaults applied, timeout resolved,
// input files decoded to the bytes that will be written or, for files of
// the problem, checked and named (see InputFile).
type Case struct {
	ID         string            `json:"id"`
	Checkpoint string            `json:"checkpoint"`
	Group      string            `json:"group"`
	GroupType  problem.GroupType `json:"group_type"`
	// For regression groups: where the case originally lives.
	OriginalCheckpoint string `json:"original_checkpoint,omitempty"`
	OriginalGroup      string `json:"original_group,omitempty"`

	Order     int               `json:"order"`
	Arguments []string          `json:"arguments"`
	Stdin     *string           `json:"stdin,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// InputFiles are written into the workspace before the case runs.
	InputFiles []InputFile `json:"input_files,omitempty"`
	// TrackedFiles are globs or directories read back after the case runs.
	TrackedFiles []string `json:"tracked_files,omitempty"`
	// Reset asks for a fresh workspace before this case even in a
	// non-isolated group.
	Reset   bool          `json:"reset,omitempty"`
	Timeout time.Duration `json:"timeout_ns"`

	// Expected holds the expected value per attribute: "status_code",
	// "output", "stderr", "files" (map path → content) and any other key
	// a check may name.
	Expected map[string]any `json:"expected,omitempty"`
	// Checks are the verification steps for this case (case > group >
	// checkpoint > problem, the most specific list wins).
	Checks []problem.CheckSpec `json:"checks,omitempty"`

	// Request is the HTTP request of an api case; Steps the actions of a
	// browser case; Task the instruction of an agent case.
	Request *Request `json:"request,omitempty"`
	Steps   []Step   `json:"steps,omitempty"`
	// Task is what an agent case gives the agent.
	Task *Task `json:"task,omitempty"`

	// Extra keeps keys the CLI adapter does not use (request details for
	// other adapters, metadata) so nothing an author wrote is lost.
	Extra map[string]any `json:"extra,omitempty"`
	// Source is the file or directory the case was loaded from;
	// SourceKey is the case's key path in it ("" for a file per case)
	// and SourceLine its line (0 when unknown), so that what is found
	// wrong with the case later is reported where it is written.
	Source     string `json:"source,omitempty"`
	SourceKey  string `json:"source_key,omitempty"`
	SourceLine int    `json:"source_line,omitempty"`
}

// Key identifies a case within a run; it equals the Key of the case's
// record (problem.CaseKey).
func (c *Case) Key() string { return problem.CaseKey(c.Checkpoint, c.Group, c.ID) }
