package run

import (
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
)

// validateCaseForAdapter reports a case whose shape does not fit the
// problem's adapter: an API case without a request, a browser case without
// steps, or a request or steps the adapter would silently ignore.
func validateCaseForAdapter(p *problem.Problem, c *cases.Case, errs *diag.List) {
	typ := p.Adapter.Type
	if typ == problem.AdapterAPI && c.Request == nil {
		errs.Add(c.Source, "request", 0, "case %s has no request; the api adapter sends each case's `request` (method, path, …)", c.ID)
	}
	if typ == problem.AdapterBrowser && c.Steps == nil {
		errs.Add(c.Source, "steps", 0, "case %s has no steps; the browser adapter runs each case's `steps` (goto, click, …)", c.ID)
	}
	if typ == problem.AdapterAgent && c.Task == nil {
		errs.Add(c.Source, "instruction", 0, "case %s has no instruction; the agent adapter gives each case's `instruction` to the agent", c.ID)
	}
	if typ != problem.AdapterAgent && c.Task != nil {
		errs.Add(c.Source, "instruction", 0, "case %s has an instruction, but the problem's adapter is %s (an instruction needs adapter type agent)", c.ID, typ)
	}
	if typ != problem.AdapterAPI && c.Request != nil {
		errs.Add(c.Source, "request", 0, "case %s has a request, but the problem's adapter is %s (a request needs adapter type api)", c.ID, typ)
	}
	if typ != problem.AdapterBrowser && c.Steps != nil {
		errs.Add(c.Source, "steps", 0, "case %s has steps, but the problem's adapter is %s (steps need adapter type browser)", c.ID, typ)
	}
}
