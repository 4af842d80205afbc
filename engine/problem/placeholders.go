package problem

import (
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/placeholder"
)

// checkPlaceholders reports every placeholder of the problem's command
// templates that the field does not know — {port} for {{port}}, a
// {{host}} in a command that starts no server, a typo — so that a mistake
// is refused at validation instead of reaching the submission as written.
func (l *loader) checkPlaceholders(file string, root, adapter *yaml.Node, p *Problem) {
	line := func(key string) int {
		if key == "command" {
			return keyLine(root, key)
		}
		return keyLine(adapter, key)
	}
	CheckPlaceholders(file, "", p.Command, p.Adapter.Server, p.MockNames(), &l.errs, line)
	l.checkMockPlaceholders(file, p, line)
}

// checkMockPlaceholders reports a group that lacks a mock service the
// command template (or the server's arguments or environment) names: its
// processes would get {{mock.NAME}} as written.
func (l *loader) checkMockPlaceholders(file string, p *Problem, line func(key string) int) {
	type field struct{ key, lineKey, text string }
	fields := []field{{"command", "command", p.Command}}
	if s := p.Adapter.Server; s != nil {
		for i, a := range s.Arguments {
			fields = append(fields, field{diag.IndexPath("adapter.arguments", i), "arguments", a})
		}
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			fields = append(fields, field{"adapter.env." + k, "env", s.Env[k]})
		}
	}
	declared := p.MockNames()
	for _, f := range fields {
		for _, name := range placeholder.MocksIn(f.text) {
			if !slices.Contains(declared, name) {
				continue // unknown everywhere: refused as an unknown placeholder
			}
			if cp, g := groupWithoutMock(p, name); g != nil {
				l.errs.Add(file, f.key, line(f.lineKey),
					"%s: group %s of checkpoint %s declares no mock %q (declared there: %s); declare it in the group, its checkpoint or the problem",
					placeholder.Mock(name), g.Name, cp.Name, name, orNone(MockNames(g.Mocks)))
			}
		}
	}
}

// groupWithoutMock is the first group that lacks mock service name.
func groupWithoutMock(p *Problem, name string) (*Checkpoint, *Group) {
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			if !slices.Contains(MockNames(g.Mocks), name) {
				return cp, g
			}
		}
	}
	return nil, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// CheckPlaceholders checks a command template and, when the submission is
// a server, its arguments and environment, recording each unknown
// placeholder in errs under file and the key path prefix+command,
// prefix+arguments[i] or prefix+env.NAME (line gives a key's line, 0 when
// unknown). The agent front-ends share it for their `agent:` block.
//
// mocks names the mock services declared anywhere in the problem: their
// {{mock.NAME}} placeholders are known in every field.
func CheckPlaceholders(file, prefix, command string, server *Server, mocks []string, errs *diag.List, line func(key string) int) {
	adapterPrefix := prefix
	if prefix == "" {
		adapterPrefix = "adapter."
	}
	mockKnown := placeholder.Mocks(mocks)
	if err := placeholder.Check(command, append(placeholder.Command(server != nil), mockKnown...)); err != nil {
		errs.Add(file, prefix+"command", line("command"), "%v", err)
	}
	if server == nil {
		return
	}
	for i, a := range server.Arguments {
		if err := placeholder.Check(a, append(slices.Clone(placeholder.Server), mockKnown...)); err != nil {
			errs.Add(file, diag.IndexPath(adapterPrefix+"arguments", i), line("arguments"), "%v", err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(server.Env)) {
		if err := placeholder.CheckEnv(server.Env[k], append(slices.Clone(placeholder.Server), mockKnown...)); err != nil {
			errs.Add(file, adapterPrefix+"env."+k, line("env"), "%v", err)
		}
	}
}
