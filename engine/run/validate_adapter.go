package run

import (
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// validateCaseForAdapter reports a case whose shape does not fit the
// problem's adapter: an API case without a request, a browser case without
// steps, or a request or steps the adapter would silently ignore.
func validateCaseForAdapter(p *problem.Problem, c *cases.Case, errs *diag.List) {
	typ := p.Adapter.Type
	if typ == problem.AdapterAPI && c.Request == nil {
		addAt(errs, c, "request", "case %s has no request; the api adapter sends each case's `request` (method, path, …)", c.ID)
	}
	if typ == problem.AdapterBrowser && c.Steps == nil {
		addAt(errs, c, "steps", "case %s has no steps; the browser adapter runs each case's `steps` (goto, click, …)", c.ID)
	}
	if typ == problem.AdapterAgent && c.Task == nil {
		addAt(errs, c, "instruction", "case %s has no instruction; the agent adapter gives each case's `instruction` to the agent", c.ID)
	}
	if typ != problem.AdapterAgent && c.Task != nil {
		addAt(errs, c, "instruction", "case %s has an instruction, but the problem's adapter is %s (an instruction needs adapter type agent)", c.ID, typ)
	}
	if typ != problem.AdapterAPI && c.Request != nil {
		addAt(errs, c, "request", "case %s has a request, but the problem's adapter is %s (a request needs adapter type api)", c.ID, typ)
	}
	if typ != problem.AdapterBrowser && c.Steps != nil {
		addAt(errs, c, "steps", "case %s has steps, but the problem's adapter is %s (steps need adapter type browser)", c.ID, typ)
	}
	// The loaders hold status_code to 0..599, whatever the adapter; the
	// cli and api adapters report less than that.
	if n, ok := verify.IntegerValue(c.Expected["status_code"]); ok {
		switch {
		case typ == problem.AdapterCLI && n > 255:
			addAt(errs, c, "expected.status_code", "case %s expects exit status %d, which no process exits with: an exit status is 0 to 255 (128+N for a process killed by signal N)", c.ID, n)
		case typ == problem.AdapterAPI && n < 100:
			addAt(errs, c, "expected.status_code", "case %s expects HTTP status %d, which no response has: an HTTP status is 100 to 599", c.ID, n)
		}
	}
}
