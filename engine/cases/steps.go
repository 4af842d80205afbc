package cases

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// Step is one action of a browser case.
type Step struct {
	// Action is goto, click, fill, press, upload, wait, capture or
	// screenshot.
	Action string `json:"action"`
	// URL is where goto navigates: a path on the submission's server or an
	// absolute URL.
	URL string `json:"url,omitempty"`
	// Locator finds the element the step acts on (nil: the page).
	Locator *Locator `json:"locator,omitempty"`
	Value   string   `json:"value,omitempty"` // fill
	Key     string   `json:"key,omitempty"`   // press
	// Files are workspace-relative paths (upload).
	Files []string `json:"files,omitempty"`
	// State is what wait waits for: visible (default), hidden, attached,
	// detached.
	State string `json:"state,omitempty"`
	// Duration is a plain pause (wait with a number).
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Name is the output key of a capture, or a screenshot's file name.
	Name string `json:"name,omitempty"`
	// Get is what a capture reads: text, html, value, visible, count,
	// attribute.
	Get       string `json:"get,omitempty"`
	Attribute string `json:"attribute,omitempty"`
	// Timeout bounds the step (0: the adapter's step timeout).
	Timeout time.Duration `json:"timeout_ns,omitempty"`
}

// Locator finds elements the way Playwright's locators do: by CSS, by
// visible text, by the label of a form control, or by ARIA role and
// accessible name. Exactly one of CSS, Text, Label and Role is set.
type Locator struct {
	CSS   string `json:"css,omitempty"`
	Text  string `json:"text,omitempty"`
	Label string `json:"label,omitempty"`
	Role  string `json:"role,omitempty"`
	// Name narrows a role locator by accessible name.
	Name string `json:"name,omitempty"`
	// Exact asks for a whole, case-sensitive match of text, label and name
	// (default: case-insensitive substring, as Playwright does).
	Exact bool `json:"exact,omitempty"`
	// Nth picks one of several matches (0-based; default the first).
	Nth int `json:"nth,omitempty"`
}

func (l *Locator) String() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, fmt.Sprintf("%s=%q", k, v))
		}
	}
	add("css", l.CSS)
	add("text", l.Text)
	add("label", l.Label)
	add("role", l.Role)
	add("name", l.Name)
	if l.Nth > 0 {
		parts = append(parts, fmt.Sprintf("nth=%d", l.Nth))
	}
	return strings.Join(parts, " ")
}

// StepActions lists the step kinds.
var StepActions = []string{"goto", "click", "fill", "press", "upload", "wait", "capture", "screenshot"}

// CaptureKinds lists what a capture can read.
var CaptureKinds = []string{"text", "html", "value", "visible", "count", "attribute"}

// WaitStates lists what a wait can wait for.
var WaitStates = []string{"visible", "hidden", "attached", "detached"}

// rawStepArgs holds every key a step's mapping may have; which ones an
// action accepts is checked after decoding.
type rawStepArgs struct {
	CSS       string    `yaml:"css"`
	Text      string    `yaml:"text"`
	Label     string    `yaml:"label"`
	Role      string    `yaml:"role"`
	Name      string    `yaml:"name"`
	Exact     bool      `yaml:"exact"`
	Nth       *int      `yaml:"nth"`
	URL       string    `yaml:"url"`
	Value     *string   `yaml:"value"`
	Key       string    `yaml:"key"`
	Files     *rawWords `yaml:"files"`
	State     string    `yaml:"state"`
	As        string    `yaml:"as"`
	Get       string    `yaml:"get"`
	Attribute string    `yaml:"attribute"`
	Seconds   *float64  `yaml:"seconds"`
}

// stepKeys says which argument keys each action takes (beyond the
// locator keys, which click, fill, press, upload, wait and capture take).
var stepKeys = map[string][]string{
	"goto":       {"url"},
	"click":      {},
	"fill":       {"value"},
	"press":      {"key"},
	"upload":     {"files"},
	"wait":       {"state", "seconds", "url"},
	"capture":    {"as", "get", "attribute"},
	"screenshot": {"name"},
}

var locatorKeys = []string{"css", "text", "label", "role", "name", "exact", "nth"}

// rawSteps decodes `steps:`, a list of one-action mappings:
//
//   - goto: /
//   - click: {role: button, name: Add}
//   - fill: {label: Title, value: milk}
//   - wait: 0.5
//   - capture: {css: li, get: count, as: items}
//     timeout: 2
type rawSteps struct {
	steps []Step
}

func (s *rawSteps) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, path, "expected a list of steps, got %s", strictyaml.Describe(n))
		return
	}
	s.steps = []Step{}
	for i, item := range strictyaml.Items(n) {
		if st, ok := decodeStep(d, item, indexPath(path, i)); ok {
			s.steps = append(s.steps, st)
		}
	}
}

func decodeStep(d *strictyaml.Decoder, n *yaml.Node, path string) (Step, bool) {
	var st Step
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping with one action (%s), got %s", strings.Join(StepActions, ", "), strictyaml.Describe(n))
		return st, false
	}
	var action *yaml.Node
	for _, kv := range strictyaml.MappingPairs(n) {
		k, v := kv[0], kv[1]
		kp := path + "." + k.Value
		switch {
		case k.Value == "timeout":
			var secs float64
			if v.Kind != yaml.ScalarNode || v.Decode(&secs) != nil || secs <= 0 {
				d.Errorf(v, kp, "expected a positive number of seconds, got %s", strictyaml.Describe(v))
				continue
			}
			st.Timeout = problem.Seconds(secs)
		case slices.Contains(StepActions, k.Value):
			if action != nil {
				d.Errorf(k, kp, "a step has one action; this one already has %q", st.Action)
				continue
			}
			st.Action, action = k.Value, v
		default:
			d.Errorf(k, kp, "unknown key %q (expected one action: %s; and optionally timeout)", k.Value, strings.Join(StepActions, ", "))
		}
	}
	if action == nil {
		if st.Action == "" {
			d.Errorf(n, path, "step has no action (expected one of %s)", strings.Join(StepActions, ", "))
		}
		return st, false
	}
	kp := path + "." + st.Action
	var args rawStepArgs
	switch action.Kind {
	case yaml.ScalarNode:
		// The short forms: goto URL, click/wait/capture CSS, press KEY,
		// wait SECONDS, screenshot NAME.
		switch st.Action {
		case "goto":
			args.URL = action.Value
		case "press":
			args.Key = action.Value
		case "screenshot":
			args.Name = action.Value
		case "wait":
			var secs float64
			if action.Tag == "!!int" || action.Tag == "!!float" {
				if action.Decode(&secs) != nil || secs < 0 {
					d.Errorf(action, kp, "expected a non-negative number of seconds, got %q", action.Value)
				}
				args.Seconds = &secs
			} else {
				args.CSS = action.Value
			}
		case "click", "capture":
			args.CSS = action.Value
		default:
			d.Errorf(action, kp, "expected a mapping (a locator and %s), got %s", strings.Join(stepKeys[st.Action], ", "), strictyaml.Describe(action))
			return st, false
		}
	case yaml.MappingNode:
		d.StructValue(action, kp, reflectValue(&args))
		for _, kv := range strictyaml.MappingPairs(action) {
			key := kv[0].Value
			takesLocator := st.Action != "goto" && st.Action != "screenshot"
			if slices.Contains(locatorKeys, key) && takesLocator || slices.Contains(stepKeys[st.Action], key) {
				continue
			}
			if _, known := stepArgKey(key); known {
				d.Errorf(kv[0], kp+"."+key, "%s does not take %q", st.Action, key)
			}
		}
	default:
		d.Errorf(action, kp, "expected a mapping, got %s", strictyaml.Describe(action))
		return st, false
	}
	if st.Action == "screenshot" {
		// name is the file name here, not a role's accessible name.
		st.Name = args.Name
		if st.Name == "" {
			st.Name = "step"
		}
		if strings.ContainsAny(st.Name, "/\\") {
			d.Errorf(action, kp, "a screenshot name is a plain name, got %q", st.Name)
		}
		return st, true
	}
	loc := &Locator{CSS: args.CSS, Text: args.Text, Label: args.Label, Role: args.Role, Name: args.Name, Exact: args.Exact}
	if args.Nth != nil {
		if *args.Nth < 0 {
			d.Errorf(action, kp+".nth", "expected 0 or more, got %d", *args.Nth)
		}
		loc.Nth = *args.Nth
	}
	kinds := 0
	for _, v := range []string{loc.CSS, loc.Text, loc.Label, loc.Role} {
		if v != "" {
			kinds++
		}
	}
	if kinds > 1 {
		d.Errorf(action, kp, "give one of css, text, label or role")
	}
	if loc.Name != "" && loc.Role == "" {
		d.Errorf(action, kp+".name", "name narrows a role locator; give role too")
	}
	if kinds > 0 {
		st.Locator = loc
	}
	need := func(ok bool, what string) {
		if !ok {
			d.Errorf(action, kp, "%s needs %s", st.Action, what)
		}
	}
	st.URL, st.Key, st.State, st.Get, st.Attribute = args.URL, args.Key, args.State, args.Get, args.Attribute
	switch st.Action {
	case "goto":
		need(st.URL != "", "a url (a path like / or an absolute URL)")
	case "click":
		need(st.Locator != nil, "a locator (css, text, label or role)")
	case "fill":
		need(st.Locator != nil, "a locator (css, text, label or role)")
		need(args.Value != nil, "a value")
		if args.Value != nil {
			st.Value = *args.Value
		}
	case "press":
		need(st.Key != "", "a key, e.g. Enter")
	case "upload":
		need(st.Locator != nil, "a locator for the file input")
		need(args.Files != nil && len(args.Files.words) > 0, "files (workspace paths, e.g. input files of the case)")
		if args.Files != nil {
			for i, f := range args.Files.words {
				if err := CheckRelPath(f); err != nil {
					d.Errorf(action, indexPath(kp+".files", i), "%v", err)
				}
			}
			st.Files = args.Files.words
		}
	case "wait":
		if args.Seconds != nil {
			st.Duration = problem.Seconds(*args.Seconds)
		}
		need(st.Locator != nil || args.Seconds != nil || st.URL != "", "a locator, seconds or a url")
		if st.State == "" && st.Locator != nil {
			st.State = "visible"
		}
		if st.State != "" && !slices.Contains(WaitStates, st.State) {
			d.Errorf(action, kp+".state", "unknown state %q (expected %s)", st.State, strings.Join(WaitStates, ", "))
		}
	case "capture":
		need(st.Locator != nil, "a locator (css, text, label or role)")
		st.Name = args.As
		need(st.Name != "", "as: the output key the value is stored under")
		if st.Get == "" {
			st.Get = "text"
		}
		if !slices.Contains(CaptureKinds, st.Get) {
			d.Errorf(action, kp+".get", "unknown capture %q (expected %s)", st.Get, strings.Join(CaptureKinds, ", "))
		}
		need(st.Get != "attribute" || st.Attribute != "", "attribute: the attribute's name")
	}
	return st, true
}

// stepArgKey reports whether key is any step argument.
func stepArgKey(key string) (string, bool) {
	if slices.Contains(locatorKeys, key) {
		return key, true
	}
	for _, keys := range stepKeys {
		if slices.Contains(keys, key) {
			return key, true
		}
	}
	return "", false
}
