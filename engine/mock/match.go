package mock

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/wasmeval/wasmeval/engine/pathpattern"
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
	if !pathpattern.Match(r.Path, req.path) {
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
