// Package adapter says how a case talks to the submission. An Adapter takes
// a resolved case and a runtime session and returns what the submission
// did; it never decides whether that was right (package verify does).
//
// The CLI adapter runs the submission's command once per case. The API and
// browser adapters start the submission's server once per group (they are
// GroupAdapters) and send each case to it: one HTTP request, or a list of
// browser steps in headless Chromium. They use only the runtime's
// interfaces, so they run unchanged on every runtime.
package adapter

import (
	"context"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
)

// Adapter runs one case in a session.
type Adapter interface {
	// Run executes c and reports the outcome. Failures of the adapter itself
	// (an input file that cannot be written, a command that cannot start)
	// are reported in the Execution with AdapterError set, not as an error;
	// the error return is only for cancellation of ctx.
	Run(ctx context.Context, sess runtime.Session, c *cases.Case) (result.Execution, error)
}
