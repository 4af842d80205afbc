package cases

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// Request is the HTTP request of one API case, sent to the group's server.
type Request struct {
	Method string `json:"method"`
	// Path starts with / and is resolved against the server's address.
	Path    string              `json:"path"`
	Query   map[string][]string `json:"query,omitempty"`
	Headers map[string]string   `json:"headers,omitempty"`
	// Body is sent as is; ContentType is set from json/body/body_base64
	// unless the headers name one.
	Body        []byte `json:"body,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	// Timeout bounds the request (0: the case's timeout).
	Timeout time.Duration `json:"timeout_ns,omitempty"`
	// Retries is how many times a request that could not reach the server
	// (connection refused or reset) is sent again.
	Retries int `json:"retries,omitempty"`
	// Response overrides the adapter's response format for this case.
	Response string `json:"response,omitempty"`
}

// Methods are the HTTP methods a request may use.
var Methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// rawRequest mirrors `request:` in a case.
type rawRequest struct {
	Method     *string              `yaml:"method"`
	Path       *string              `yaml:"path"`
	Query      map[string]*rawWords `yaml:"query"`
	Headers    map[string]string    `yaml:"headers"`
	JSON       *rawAny              `yaml:"json"`
	Body       *string              `yaml:"body"`
	BodyBase64 *string              `yaml:"body_base64"`
	Timeout    *float64             `yaml:"timeout"`
	Retries    *int                 `yaml:"retries"`
	Response   *string              `yaml:"response"`
	node       *yaml.Node
}

func (r *rawRequest) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	type plain rawRequest
	var p plain
	d.StructValue(n, path, reflectValue(&p))
	*r = rawRequest(p)
	r.node = n
}

// rawWords is a scalar or a list of scalars (a query parameter may repeat).
type rawWords struct{ words []string }

func (w *rawWords) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.ScalarNode:
		w.words = []string{n.Value}
	case yaml.SequenceNode:
		for i, item := range strictyaml.Items(n) {
			if item.Kind != yaml.ScalarNode {
				d.Errorf(item, indexPath(path, i), "expected a string, got %s", strictyaml.Describe(item))
				continue
			}
			w.words = append(w.words, item.Value)
		}
	default:
		d.Errorf(n, path, "expected a string or a list of strings, got %s", strictyaml.Describe(n))
	}
}

// rawAny is any YAML value, with "given" kept apart from null.
type rawAny struct {
	v    any
	node *yaml.Node
}

func (a *rawAny) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	x, err := strictyaml.JSONValue(n)
	if err != nil {
		// Reported once: left not given, it is not also "null".
		d.ValueError(n, path, err)
		return
	}
	a.v, a.node = x, n
}

// withDefaults fills the request's unset fields from a default request;
// headers and query merge key by key, the case winning.
func (r *rawRequest) withDefaults(def *rawRequest) {
	if def == nil {
		return
	}
	fill(&r.Method, def.Method)
	fill(&r.Path, def.Path)
	fill(&r.Timeout, def.Timeout)
	fill(&r.Retries, def.Retries)
	fill(&r.Response, def.Response)
	if r.JSON == nil && r.Body == nil && r.BodyBase64 == nil {
		r.JSON, r.Body, r.BodyBase64 = def.JSON, def.Body, def.BodyBase64
	}
	if len(def.Headers) > 0 {
		r.Headers = problem.MergeEnv(def.Headers, r.Headers)
	}
	if len(def.Query) > 0 {
		q := maps.Clone(def.Query)
		maps.Copy(q, r.Query)
		r.Query = q
	}
	if r.node == nil {
		r.node = def.node
	}
}

// resolve checks the request and turns it into its engine form.
func (r *rawRequest) resolve(d *strictyaml.Decoder, path string) *Request {
	n := r.node
	at := func(key string) string { return diag.JoinPath(path, key) }
	req := &Request{Method: http.MethodGet, Headers: r.Headers}
	if r.Method != nil {
		m := strings.ToUpper(*r.Method)
		if !slices.Contains(Methods, m) {
			d.Errorf(n, at("method"), "unknown HTTP method %q (expected %s)", *r.Method, strings.Join(Methods, ", "))
		}
		req.Method = m
	}
	if r.Path == nil {
		d.Errorf(n, at("path"), "required key is missing: the request path, e.g. /items")
	} else if !strings.HasPrefix(*r.Path, "/") {
		d.Errorf(n, at("path"), "expected a path starting with /, got %q", *r.Path)
	} else {
		req.Path = *r.Path
	}
	if len(r.Query) > 0 {
		req.Query = map[string][]string{}
		for k, v := range r.Query {
			if v != nil {
				req.Query[k] = v.words
			}
		}
	}
	bodies := 0
	if r.JSON != nil {
		bodies++
		// Written from the YAML when there is some, as stdin is: keys in
		// the order written, numbers as written.
		var buf bytes.Buffer
		var err error
		if r.JSON.node != nil {
			err = writeJSON(&buf, r.JSON.node)
		} else {
			err = writeJSONText(&buf, r.JSON.v)
		}
		if err != nil {
			d.Errorf(n, at("json"), "cannot encode as JSON: %v", err)
		}
		req.Body, req.ContentType = buf.Bytes(), "application/json"
	}
	if r.Body != nil {
		bodies++
		req.Body, req.ContentType = []byte(*r.Body), "text/plain; charset=utf-8"
	}
	if r.BodyBase64 != nil {
		bodies++
		b, err := base64.StdEncoding.DecodeString(*r.BodyBase64)
		if err != nil {
			d.Errorf(n, at("body_base64"), "expected base64 content: %v", err)
		}
		req.Body, req.ContentType = b, "application/octet-stream"
	}
	if bodies > 1 {
		d.Errorf(n, path, "give one body: json, body or body_base64")
	}
	if r.Timeout != nil {
		if *r.Timeout <= 0 {
			d.Errorf(n, at("timeout"), "expected a positive number of seconds, got %v", *r.Timeout)
		}
		req.Timeout = problem.Seconds(*r.Timeout)
	}
	if r.Retries != nil {
		if *r.Retries < 0 {
			d.Errorf(n, at("retries"), "expected 0 or more retries, got %d", *r.Retries)
		}
		req.Retries = *r.Retries
	}
	if r.Response != nil {
		if !slices.Contains(problem.ResponseFormats, *r.Response) {
			d.Errorf(n, at("response"), "unknown response format %q (expected %s)", *r.Response, strings.Join(problem.ResponseFormats, ", "))
		}
		req.Response = *r.Response
	}
	return req
}

// URL returns the request's path with its query string.
func (r *Request) URL() string {
	if len(r.Query) == 0 {
		return r.Path
	}
	keys := make([]string, 0, len(r.Query))
	for k := range r.Query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range r.Query[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	sep := "?"
	if strings.Contains(r.Path, "?") {
		sep = "&"
	}
	return r.Path + sep + b.String()
}

// DecodeRequest decodes a request given as data (a loader plugin's case)
// with the same rules as a case file; file and path name it in errors.
func DecodeRequest(v map[string]any, file, path string) (*Request, error) {
	n, err := valueNode(v)
	if err != nil {
		return nil, err
	}
	var errs diag.List
	d := &strictyaml.Decoder{File: file, Errs: &errs}
	var r rawRequest
	r.DecodeNode(d, n, path)
	req := r.resolve(d, path)
	return req, errs.Err()
}

// DecodeSteps decodes browser steps given as data (a loader plugin's case).
func DecodeSteps(v []any, file, path string) ([]Step, error) {
	n, err := valueNode(v)
	if err != nil {
		return nil, err
	}
	var errs diag.List
	d := &strictyaml.Decoder{File: file, Errs: &errs}
	var s rawSteps
	s.DecodeNode(d, n, path)
	return s.steps, errs.Err()
}

// valueNode turns decoded JSON data into a YAML node, so data from plugins
// goes through the same strict decoding as case files (JSON is YAML).
func valueNode(v any) (*yaml.Node, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// Data is the request in its case-file form, as plugins see it: a JSON
// body as `json`, other UTF-8 bodies as `body`, the rest as `body_base64`.
func (r *Request) Data() map[string]any {
	out := map[string]any{"method": r.Method, "path": r.Path}
	if len(r.Query) > 0 {
		q := map[string]any{}
		for k, v := range r.Query {
			q[k] = v
		}
		out["query"] = q
	}
	if len(r.Headers) > 0 {
		h := map[string]any{}
		for k, v := range r.Headers {
			h[k] = v
		}
		out["headers"] = h
	}
	if r.Body != nil {
		var v any
		switch {
		case r.ContentType == "application/json" && json.Unmarshal(r.Body, &v) == nil:
			out["json"] = v
		case utf8.Valid(r.Body):
			out["body"] = string(r.Body)
		default:
			out["body_base64"] = base64.StdEncoding.EncodeToString(r.Body)
		}
	}
	if r.Timeout > 0 {
		out["timeout"] = r.Timeout.Seconds()
	}
	if r.Retries > 0 {
		out["retries"] = r.Retries
	}
	if r.Response != "" {
		out["response"] = r.Response
	}
	return out
}
