package cases

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/diag"
)

func TestRequestsAndSteps(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g.yaml": `create:
  request:
    method: post
    path: /notes
    query: {tag: [a, b], q: x y}
    headers: {X-Token: 7}
    json: {title: t, n: [1, 2]}
    timeout: 1.5
    retries: 2
    response: json
raw:
  request: {method: PUT, path: /blob, body_base64: AAEC}
defaults:
  request: {headers: {X-Case: c}}
ui:
  steps:
    - goto: /
    - fill: {label: Title, value: milk}
    - press: {label: Title, key: Enter}
    - click: {role: button, name: Add, exact: true}
    - click: "#submit"
    - upload: {css: "input[type=file]", files: [a.txt]}
    - wait: 0.25
    - wait: {text: Saved, state: hidden}
      timeout: 2
    - capture: {css: li, get: count, as: items}
    - capture: {role: link, nth: 1, get: attribute, attribute: href, as: link}
    - screenshot: after
`,
	})
	g := groupIn(dir, "g")
	g.CaseDefaults = map[string]any{"request": map[string]any{"path": "/default", "headers": map[string]any{"X-Default": "d"}}}
	cs, err := loadAll(t, LoaderGroupFile, g)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*Case{}
	for _, c := range cs {
		by[c.ID] = c
	}
	r := by["create"].Request
	if r.Method != "POST" || r.URL() != "/notes?q=x+y&tag=a&tag=b" || r.Headers["X-Token"] != "7" || r.Headers["X-Default"] != "d" ||
		string(r.Body) != `{"title":"t","n":[1,2]}` || r.ContentType != "application/json" ||
		r.Timeout != 1500*time.Millisecond || r.Retries != 2 || r.Response != "json" {
		t.Errorf("create: %+v", r)
	}
	if r := by["raw"].Request; string(r.Body) != "\x00\x01\x02" || r.ContentType != "application/octet-stream" || r.Path != "/blob" {
		t.Errorf("raw: %+v", r)
	}
	// case_defaults fill what a case leaves out; headers merge.
	if r := by["defaults"].Request; r.Method != "GET" || r.Path != "/default" || r.Headers["X-Case"] != "c" || r.Headers["X-Default"] != "d" {
		t.Errorf("defaults: %+v", r)
	}
	steps := by["ui"].Steps
	var got []string
	for _, s := range steps {
		d := s.Action
		if s.Locator != nil {
			d += "[" + s.Locator.String() + "]"
		}
		got = append(got, d)
	}
	want := `goto|fill[label="Title"]|press[label="Title"]|click[role="button" name="Add"]|click[css="#submit"]|upload[css="input[type=file]"]|wait|wait[text="Saved"]|capture[css="li"]|capture[role="link" nth=1]|screenshot`
	if strings.Join(got, "|") != want {
		t.Errorf("steps:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if steps[1].Value != "milk" || steps[2].Key != "Enter" || !steps[3].Locator.Exact || steps[5].Files[0] != "a.txt" ||
		steps[6].Duration != 250*time.Millisecond || steps[7].State != "hidden" || steps[7].Timeout != 2*time.Second ||
		steps[8].Get != "count" || steps[8].Name != "items" || steps[9].Attribute != "href" || steps[10].Name != "after" {
		t.Errorf("step details: %+v", steps)
	}
}

func TestRequestAndStepErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/a/case.yaml": "request: {method: FETCH, path: /x}\n",
		"g/b/case.yaml": "request: {method: GET}\n",
		"g/c/case.yaml": "request: {path: x}\n",
		"g/d/case.yaml": "request: {path: /x, json: {}, body: y}\n",
		"g/e/case.yaml": "request: {path: /x, response: xml}\n",
		"g/f/case.yaml": "request: {path: /x, verb: GET}\n",
		"g/g/case.yaml": "steps:\n  - goto: /\n    click: a\n",
		"g/h/case.yaml": "steps:\n  - hover: a\n",
		"g/i/case.yaml": "steps:\n  - capture: {css: li, get: colour, as: x}\n",
		"g/j/case.yaml": "steps:\n  - fill: {label: Name}\n",
		"g/k/case.yaml": "steps:\n  - click: {css: a, text: b}\n",
		"g/l/case.yaml": "steps:\n  - goto: {url: /, css: a}\n",
		"g/m/case.yaml": "steps:\n  - upload: {css: input, files: ../x}\n",
		"g/n/case.yaml": "steps:\n  - click: {name: Add}\n",
		"g/o/case.yaml": "steps: {goto: /}\n",
		"g/p/case.yaml": "request: {path: /x, retries: -1, timeout: 0}\n",
	})
	l, _ := Builtin(LoaderCaseDirs)
	s, err := l.Open(context.Background(), groupIn(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": `g/a/case.yaml:1: request.method: unknown HTTP method "FETCH" (expected GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS)`,
		"b": "g/b/case.yaml:1: request.path: required key is missing",
		"c": `g/c/case.yaml:1: request.path: expected a path starting with /, got "x"`,
		"d": "g/d/case.yaml:1: request: give one body: json, body or body_base64",
		"e": `g/e/case.yaml:1: request.response: unknown response format "xml"`,
		"f": `g/f/case.yaml:1: request.verb: unknown key "verb"`,
		"g": `g/g/case.yaml:3: steps[0].click: a step has one action; this one already has "goto"`,
		"h": `g/h/case.yaml:2: steps[0].hover: unknown key "hover" (expected one action: goto, click, fill`,
		"i": `g/i/case.yaml:2: steps[0].capture.get: unknown capture "colour"`,
		"j": "g/j/case.yaml:2: steps[0].fill: fill needs a value",
		"k": "g/k/case.yaml:2: steps[0].click: give one of css, text, label or role",
		"l": `g/l/case.yaml:2: steps[0].goto.css: goto does not take "css"`,
		"m": `g/m/case.yaml:2: steps[0].upload.files[0]: path "../x" escapes the workspace`,
		"n": "g/n/case.yaml:2: steps[0].click.name: name narrows a role locator; give role too",
		"o": "g/o/case.yaml:1: steps: expected a list of steps, got a mapping",
		"p": "g/p/case.yaml:1: request.timeout: expected a positive number of seconds",
	}
	for {
		c, err := s.Next(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		var ce *CaseError
		if !errors.As(err, &ce) {
			t.Fatalf("want a CaseError, got case %v err %v", c, err)
		}
		var list diag.List
		if !errors.As(err, &list) {
			t.Fatalf("%s: not a diagnostic: %v", ce.ID, err)
		}
		msg := strings.ReplaceAll(err.Error(), dir+"/", "")
		if !strings.Contains(msg, want[ce.ID]) {
			t.Errorf("%s: %s\nwant it to contain %q", ce.ID, msg, want[ce.ID])
		}
		delete(want, ce.ID)
	}
	if len(want) != 0 {
		t.Errorf("not reported: %v", want)
	}
}

// Loader plugins hand requests and steps over as data; they are checked by
// the same rules, naming the plugin.
func TestDecodeRequestFromData(t *testing.T) {
	r, err := DecodeRequest(map[string]any{"method": "DELETE", "path": "/n/1", "headers": map[string]any{"A": "b"}}, "plugin x", "request")
	if err != nil || r.Method != "DELETE" || r.Path != "/n/1" || r.Headers["A"] != "b" {
		t.Errorf("%+v %v", r, err)
	}
	_, err = DecodeRequest(map[string]any{"path": "n"}, "plugin x", "request")
	if err == nil || !strings.Contains(err.Error(), `plugin x:1: request.path: expected a path starting with /, got "n"`) {
		t.Errorf("bad path: %v", err)
	}
	// A request survives the round trip through its data form.
	back, err := DecodeRequest(r.Data(), "plugin x", "request")
	if err != nil || back.Method != r.Method || back.URL() != r.URL() || back.Headers["A"] != "b" {
		t.Errorf("round trip: %+v %v", back, err)
	}
	withBody := &Request{Method: "POST", Path: "/j", Body: []byte(`{"a":1}`), ContentType: "application/json", Query: map[string][]string{"q": {"x", "y"}}}
	back, err = DecodeRequest(withBody.Data(), "plugin x", "request")
	if err != nil || string(back.Body) != `{"a":1}` || back.URL() != "/j?q=x&q=y" {
		t.Errorf("round trip with body: %+v %v", back, err)
	}
	steps, err := DecodeSteps([]any{map[string]any{"goto": "/"}, map[string]any{"click": map[string]any{"role": "button"}}}, "plugin x", "steps")
	if err != nil || len(steps) != 2 || steps[1].Locator.Role != "button" {
		t.Errorf("%+v %v", steps, err)
	}
	if _, err := DecodeSteps([]any{map[string]any{"jump": 1}}, "plugin x", "steps"); err == nil || !strings.Contains(err.Error(), `unknown key "jump"`) {
		t.Errorf("bad step: %v", err)
	}
}
