package problem

// PluginRefs calls yield with every plugin binding of the problem: each
// group's verifier, loader, check and evaluator-call plugins and mock
// plugins, then the plugins its cases bind. A binding inherited by many
// groups is one *PluginRef, given once for each; callers that list
// plugins de-duplicate as they need. It is the one walk over the
// problem's bindings, so a new place a plugin can be bound is added here
// and reaches every caller (manifests, distributed runs).
func (p *Problem) PluginRefs(yield func(*PluginRef)) {
	give := func(ref *PluginRef) {
		if ref != nil {
			yield(ref)
		}
	}
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			give(g.Verifier)
			give(g.LoaderRef)
			for _, c := range g.Checks {
				give(c.Plugin)
				for _, call := range c.Calls {
					give(call.Plugin)
				}
			}
			for _, m := range g.Mocks {
				give(m.Plugin)
			}
		}
	}
	for _, ref := range p.CasePlugins {
		give(ref)
	}
}
