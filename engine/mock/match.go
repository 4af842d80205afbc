package mock

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/wasmeval/wasmeval/engine/verify"
)

// request is what a route is matched against.
type request struct {
	method  string
	path    string
	query   map[string][]string
	headers map[string][]string // lowercase names
	body    []byte
	// json is the body parsed as JSON (numbers as json.Number), parsed
	// once and only when a route asks for a body; jsonErr when it is not.
	json    any
	jsonErr error
	parsed  bool
}

// matches says whether r matches req.
func (r *Route) matches(req *request) bool {
	if r.Method != "" && !strings.EqualFold(r.Method, req.method) {
		return false
	}
	if !pathMatches(r.Path, req.path) {
		return false
	}
	for k, v := range r.Query {
		if !contains(req.query[k], v) {
			return false
		}
	}
	for k, v := range r.Headers {
		if !contains(req.headers[canonicalHeader(k)], v) {
			return false
		}
	}
	if r.Body != nil {
		if !req.parsed {
			req.parsed = true
			d := json.NewDecoder(bytes.NewReader(req.body))
			d.UseNumber()
			req.jsonErr = d.Decode(&req.json)
		}
		if req.jsonErr != nil || len(verify.MatchSubset("$", r.Body, req.json)) > 0 {
			return false
		}
	}
	return true
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// pathMatches matches a path against a pattern: segment by segment, where
// "{name}" takes any one non-empty segment and a final "*" takes the rest
// (at least one more segment).
func pathMatches(pattern, path string) bool {
	if pattern == path {
		return true
	}
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i, p := range ps {
		if p == "*" && i == len(ps)-1 {
			return len(xs) > i && xs[i] != ""
		}
		if i >= len(xs) {
			return false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") && len(p) > 2 {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return len(ps) == len(xs)
}
