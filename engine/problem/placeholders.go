package problem

import (
	"maps"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/placeholder"
)

// checkPlaceholders reports every placeholder of the problem's command
// templates that the field does not know — {port} for {{port}}, a
// {{host}} in a command that starts no server, a typo — so that a mistake
// is refused at validation instead of reaching the submission as written.
func (l *loader) checkPlaceholders(file string, root, adapter *yaml.Node, p *Problem) {
	CheckPlaceholders(file, "", p.Command, p.Adapter.Server, &l.errs, func(key string) int {
		if key == "command" {
			return keyLine(root, key)
		}
		return keyLine(adapter, key)
	})
}

// CheckPlaceholders checks a command template and, when the submission is
// a server, its arguments and environment, recording each unknown
// placeholder in errs under file and the key path prefix+command,
// prefix+arguments[i] or prefix+env.NAME (line gives a key's line, 0 when
// unknown). The agent front-ends share it for their `agent:` block.
func CheckPlaceholders(file, prefix, command string, server *Server, errs *diag.List, line func(key string) int) {
	adapterPrefix := prefix
	if prefix == "" {
		adapterPrefix = "adapter."
	}
	if err := placeholder.Check(command, placeholder.Command(server != nil)); err != nil {
		errs.Add(file, prefix+"command", line("command"), "%v", err)
	}
	if server == nil {
		return
	}
	for i, a := range server.Arguments {
		if err := placeholder.Check(a, placeholder.Server); err != nil {
			errs.Add(file, diag.IndexPath(adapterPrefix+"arguments", i), line("arguments"), "%v", err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(server.Env)) {
		if err := placeholder.CheckEnv(server.Env[k], placeholder.Server); err != nil {
			errs.Add(file, adapterPrefix+"env."+k, line("env"), "%v", err)
		}
	}
}
