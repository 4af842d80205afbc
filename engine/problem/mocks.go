package problem

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/mock"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// Mock is a mock upstream service a group's submission calls: declarative
// routes, or a plugin of the mock kind (engine/run starts it; see
// engine/mock). A group's mocks are its problem's, then its checkpoint's,
// then its own; a service named again at a lower level replaces the one
// above it.
type Mock struct {
	Name string
	// Routes answer requests when Plugin is nil.
	Routes []mock.Route
	// Plugin answers every request instead.
	Plugin *PluginRef
	// File and Key say where the service is declared.
	File string
	Key  string
}

// MaxMockBodyFile bounds a response's body_file, as engine/mock bounds
// what a plugin may answer.
const MaxMockBodyFile = 16 << 20

// rawMocks is the `mocks:` mapping, kept in file order.
type rawMocks struct {
	set   bool
	names []string
	items []rawMock
}

type rawMock struct {
	Routes []rawRoute `yaml:"routes"`
	Plugin *rawLoader `yaml:"plugin"`
	line   int
}

type rawRoute struct {
	Method    string            `yaml:"method"`
	Path      string            `yaml:"path"`
	Query     map[string]string `yaml:"query"`
	Headers   map[string]string `yaml:"headers"`
	Body      any               `yaml:"body"`
	Responses []rawResponse     `yaml:"responses"`
}

type rawResponse struct {
	Status   int               `yaml:"status"`
	Headers  map[string]string `yaml:"headers"`
	Body     any               `yaml:"body"`
	BodyFile string            `yaml:"body_file"`
	DelayMS  int               `yaml:"delay_ms"`
}

func (m *rawMocks) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	m.set = true
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping of mock service name to its routes or plugin, got %s", strictyaml.Describe(n))
		return
	}
	for _, kv := range strictyaml.MappingPairs(n) {
		var rm rawMock
		kp := path + "." + kv[0].Value
		if kv[1].Kind != yaml.MappingNode {
			d.Errorf(kv[1], kp, "expected a mapping with routes or plugin, got %s", strictyaml.Describe(kv[1]))
			continue
		}
		d.StructValue(kv[1], kp, reflectOf(&rm))
		rm.line = kv[0].Line
		m.names = append(m.names, kv[0].Value)
		m.items = append(m.items, rm)
	}
}

// mocks resolves a level's `mocks:` over the services inherited from the
// levels above (path is the level's key path, "" for the problem). A
// service with errors is reported and still declared, so nothing else
// reports it missing.
func (l *loader) mocks(file, path string, raw *rawMocks, inherited []Mock) []Mock {
	if raw == nil || !raw.set {
		return inherited
	}
	byName := map[string]Mock{}
	for _, m := range inherited {
		byName[m.Name] = m
	}
	for i, name := range raw.names {
		key := diag.JoinPath(diag.JoinPath(path, "mocks"), name)
		byName[name] = l.mock(file, key, name, &raw.items[i])
	}
	out := make([]Mock, 0, len(byName))
	for _, m := range byName {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	// Two names that differ only in case become one environment variable.
	for i := 1; i < len(out); i++ {
		for j := 0; j < i; j++ {
			if strings.EqualFold(out[i].Name, out[j].Name) {
				l.errs.Add(file, diag.JoinPath(path, "mocks"), 0, "mocks %q and %q differ only in case, and would get the same environment variable %s",
					out[j].Name, out[i].Name, mock.EnvName(out[i].Name))
			}
		}
	}
	return out
}

func (l *loader) mock(file, key, name string, rm *rawMock) Mock {
	m := Mock{Name: name, File: file, Key: key}
	switch {
	case rm.Plugin != nil && len(rm.Routes) > 0:
		l.errs.Add(file, key, rm.line, "a mock has routes or a plugin, not both")
		return m
	case rm.Plugin != nil:
		if !rm.Plugin.namesPlugin() {
			l.errs.Add(file, diag.JoinPath(key, "plugin"), rm.line, "expected a plugin: {path: ..., sha256: ...}, {name: ...} or {ref: ...}")
			return m
		}
		m.Plugin = l.pluginRef(file, diag.JoinPath(key, "plugin"), rm.Plugin)
	default:
		bad := false
		for j := range rm.Routes {
			r, ok := l.route(file, diag.IndexPath(diag.JoinPath(key, "routes"), j), rm.line, &rm.Routes[j])
			bad = bad || !ok
			m.Routes = append(m.Routes, r)
		}
		if bad {
			return m
		}
	}
	// The service's own rules (its name, methods, paths, statuses…),
	// checked as engine/mock will run it.
	if err := mock.Check(services([]Mock{m})); err != nil {
		l.errs.Add(file, key, rm.line, "%v", err)
	}
	return m
}

// route resolves one declarative route, reading its responses' body
// files through the problem's confined tree.
func (l *loader) route(file, key string, line int, rr *rawRoute) (mock.Route, bool) {
	r := mock.Route{Method: rr.Method, Path: rr.Path, Query: rr.Query, Headers: rr.Headers, Body: rr.Body}
	ok := true
	if rr.Body != nil {
		switch rr.Body.(type) {
		case map[string]any, []any:
		default:
			l.errs.Add(file, diag.JoinPath(key, "body"), line, "expected a mapping or a list the request's JSON body must contain, got %T", rr.Body)
			ok = false
		}
	}
	for i := range rr.Responses {
		rk := diag.IndexPath(diag.JoinPath(key, "responses"), i)
		resp, rok := l.response(file, rk, line, &rr.Responses[i])
		ok = ok && rok
		r.Responses = append(r.Responses, resp)
	}
	return r, ok
}

func (l *loader) response(file, key string, line int, rr *rawResponse) (mock.Response, bool) {
	resp := mock.Response{Status: rr.Status, Headers: rr.Headers, DelayMS: rr.DelayMS}
	if resp.Status == 0 {
		resp.Status = 200
	}
	switch {
	case rr.BodyFile != "" && rr.Body != nil:
		l.errs.Add(file, key, line, "give body or body_file, not both")
		return resp, false
	case rr.BodyFile != "":
		at := diag.JoinPath(key, "body_file")
		if _, err := l.resolve(rr.BodyFile, isFile); err != nil {
			l.errs.Add(file, at, line, "%v", err)
			return resp, false
		}
		if st, err := l.files.Stat(rr.BodyFile); err == nil && st.Size() > MaxMockBodyFile {
			l.errs.Add(file, at, line, "%s is %d bytes; a mock's response body is at most %d", rr.BodyFile, st.Size(), MaxMockBodyFile)
			return resp, false
		}
		data, err := l.files.ReadFile(rr.BodyFile)
		if err != nil {
			l.errs.Add(file, at, line, "%v", diag.UnwrapPathError(err))
			return resp, false
		}
		resp.Body = data
	case rr.Body != nil:
		if s, isText := rr.Body.(string); isText {
			resp.Body = []byte(s)
			break
		}
		data, err := json.Marshal(rr.Body)
		if err != nil {
			l.errs.Add(file, diag.JoinPath(key, "body"), line, "cannot be written as JSON: %v", err)
			return resp, false
		}
		resp.Body = data
		if !hasHeader(resp.Headers, "Content-Type") {
			resp.Headers = MergeEnv(resp.Headers, map[string]string{"Content-Type": "application/json"})
		}
	}
	return resp, true
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// services are the mocks as engine/mock checks them (a plugin stands in
// as a Handler that is never called).
func services(ms []Mock) []mock.Service {
	out := make([]mock.Service, len(ms))
	for i, m := range ms {
		out[i] = mock.Service{Name: m.Name, Routes: m.Routes}
		if m.Plugin != nil {
			out[i].Handler = pluginPlaceholder{}
		}
	}
	return out
}

// pluginPlaceholder lets mock.Check see that a service is a plugin's; it
// is never asked to answer.
type pluginPlaceholder struct{ mock.Handler }

// MockNames are the names of the mock services declared anywhere in the
// problem (at any level, for any group), sorted.
func (p *Problem) MockNames() []string {
	seen := map[string]bool{}
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			for _, m := range g.Mocks {
				seen[m.Name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// MockNames are the names of the mocks, for placeholders and messages.
func MockNames(ms []Mock) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}
