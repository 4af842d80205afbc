package problem

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/placeholder"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
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

// envSite is an env mapping written in a config file — the problem's,
// a checkpoint's, a group's — checked once every group is known
// (checkEnvPlaceholders).
type envSite struct {
	file, path string     // path: the key path of the mapping that holds env ("" at the top)
	node       *yaml.Node // the mapping that holds env
	env        map[string]string
	groups     func() []*Group // the groups whose processes get these variables
}

// checkEnvPlaceholders reports the placeholders of env values that the
// processes given them would get as written: {{mock.NAME}} is filled in
// for every process of a group with that mock, {{host}} and {{port}} only
// for a server, {{static:NAME}} for every case (whether the asset exists
// is checked with the cases). Any other word in double braces, or a near
// miss of one of these, is refused as in a command (placeholder.Check).
func (l *loader) checkEnvPlaceholders(p *Problem) {
	server := p.Adapter.Server != nil
	declared := placeholder.Mocks(p.MockNames())
	for _, s := range l.envSites {
		var envNode *yaml.Node
		for _, kv := range strictyaml.MappingPairs(s.node) {
			if kv[0].Value == "env" {
				envNode = kv[1]
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.env)) {
			v := s.env[k]
			key, line := diag.JoinPath(diag.JoinPath(s.path, "env"), k), keyLine(envNode, k)
			if err := CheckEnvVar(k, v); err != nil {
				l.errs.Add(s.file, key, line, "%v", err)
				continue
			}
			known := slices.Clone(declared)
			if server {
				known = append(known, placeholder.Server...)
			}
			rest := v // what is left to check once {{host}} and {{port}} are said
			for _, f := range placeholder.Find(v) {
				if strings.HasPrefix(f, "{{static:") {
					known = append(known, f)
				}
				if !server && (f == placeholder.Host || f == placeholder.Port) {
					l.errs.Add(s.file, key, line, "%s is filled in only where the submission is a server (the api and browser adapters, an agent with an endpoint); "+
						"this problem's submission listens on no port, and would get %s as written", f, f)
					rest = strings.ReplaceAll(rest, f, "")
				}
			}
			if err := placeholder.CheckEnv(rest, known); err != nil {
				l.errs.Add(s.file, key, line, "%v", err)
				continue
			}
			for _, name := range placeholder.MocksIn(v) {
				for _, g := range s.groups() {
					if !slices.Contains(MockNames(g.Mocks), name) {
						l.errs.Add(s.file, key, line, "%s: group %s declares no mock %q (declared there: %s); declare it in the group, its checkpoint or the problem",
							placeholder.Mock(name), g.Name, name, orNone(MockNames(g.Mocks)))
						break
					}
				}
			}
		}
	}
}

// groups are every group of every checkpoint.
func (p *Problem) groups() []*Group {
	var out []*Group
	for _, cp := range p.Checkpoints {
		out = append(out, cp.Groups...)
	}
	return out
}

// CheckEnvVar refuses an environment variable no process can be given:
// a name that is empty or holds = or a NUL byte (the process would not
// see it, or see another), a value with a NUL byte (starting the process
// fails, on every case).
func CheckEnvVar(name, value string) error {
	switch {
	case name == "":
		return fmt.Errorf("an environment variable needs a name")
	case strings.ContainsAny(name, "=\x00"):
		return fmt.Errorf("an environment variable's name cannot hold = or a NUL byte, got %q", name)
	case strings.ContainsRune(value, 0):
		return fmt.Errorf("an environment variable's value cannot hold a NUL byte, got %q", value)
	}
	return nil
}
