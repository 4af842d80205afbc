// Package verify holds the built-in checks a problem can declare in config.
// Each check compares one attribute of a case's actual result with the
// expected value and yields an AttributeResult — the same shape a verifier
// plugin returns, so reports cannot tell which produced it.
package verify

// AttributeResult is the verdict on one attribute of one case.
type AttributeResult struct {
	Attribute string  `json:"attribute"`
	Actual    any     `json:"actual"`
	Expected  any     `json:"expected"`
	Diff      *Diff   `json:"diff,omitempty"`
	IsCorrect bool    `json:"is_correct"`
	Weight    float64 `json:"weight"`
	// Check names what produced the verdict ("json", "text", plugin name…).
	Check string `json:"check,omitempty"`
}

// Diff is a structured, readable difference: a one-line summary plus the
// individual differences, each with a path and the two values.
type Diff struct {
	Summary string      `json:"summary"`
	Entries []DiffEntry `json:"entries,omitempty"`
	// Unified is a unified text diff for text comparisons, empty otherwise.
	Unified string `json:"unified,omitempty"`
	// Truncated is set when more entries existed than were kept.
	Truncated bool `json:"truncated,omitempty"`
}

// DiffEntry is one difference at one location.
type DiffEntry struct {
	// Path locates the difference: a JSON path like "$.items[2].name", a
	// line like "line 3", or "record 4.$.id" for JSONL.
	Path string `json:"path"`
	// Op is "changed", "missing" (expected but absent), "extra" (present but
	// not expected), "type" (different JSON types) or "mismatch".
	Op       string `json:"op"`
	Expected any    `json:"expected,omitempty"`
	Actual   any    `json:"actual,omitempty"`
}

// Actual is the result of running a case, as the checks see it.
type Actual struct {
	StatusCode int `json:"status_code"`
	// Output is stdout (CLI) or the response body (API).
	Output string `json:"output"`
	Stderr string `json:"stderr"`
	// Files maps tracked file path → content: a string when the file is
	// UTF-8, []byte otherwise.
	Files    map[string]any `json:"files,omitempty"`
	TimedOut bool           `json:"timed_out"`
}
