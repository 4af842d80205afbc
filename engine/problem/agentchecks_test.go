package problem

import (
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/verify"
)

// The checks of an agent's result load from config like any other. An
// empty tools list stays a declared list (non-nil), which is what tells
// the tools check "no tool expected" apart from "no list given".
func TestAgentCheckOptionsLoad(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.py
checkpoints:
  c1:
    groups:
      g:
        checks:
          - {kind: tools, values: [], empty: no-calls}
          - {kind: tools, values: [search, fetch], match: in-order, threshold: 0.5, weight: 2}
          - {kind: tool-output, value: {get_weather: {city: Paris, wind: {dir: W}}}}
          - {kind: flags, value: {can_diagnose: false}, phrases: [see a nurse]}
          - {kind: cost, max_usd: 0.05}
          - {kind: tokens, max_tokens: 20000, max_output_tokens: 4000}
          - {kind: contains-any, attribute: answer, values: [paris], ignore_case: true}
`,
		"c1/x": "",
	})
	opts := testOpts
	opts.ValidateCheck = verify.Validate
	p, err := Load(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Checkpoints[0].Groups[0].Checks
	if len(c) != 7 {
		t.Fatalf("checks %+v", c)
	}
	if c[0].Values == nil || len(c[0].Values) != 0 || c[0].Empty != "no-calls" {
		t.Errorf("empty tools list: %#v", c[0].Values)
	}
	if c[1].Match != "in-order" || *c[1].Threshold != 0.5 || c[1].WeightOr(1) != 2 {
		t.Errorf("tools: %+v", c[1])
	}
	out, _ := c[2].Value.(map[string]any)
	if w, _ := out["get_weather"].(map[string]any); w["city"] != "Paris" {
		t.Errorf("tool-output value: %#v", c[2].Value)
	}
	if f, _ := c[3].Value.(map[string]any); f["can_diagnose"] != false || len(c[3].Phrases) != 1 {
		t.Errorf("flags: %+v", c[3])
	}
	if *c[4].MaxUSD != 0.05 || *c[5].MaxTokens != 20000 || *c[5].MaxOutputTokens != 4000 || c[5].MaxInputTokens != nil {
		t.Errorf("cost, tokens: %+v %+v", c[4], c[5])
	}
	if c[6].Attribute != "answer" {
		t.Errorf("answer attribute: %+v", c[6])
	}

	// A mistake is reported at the check's line, naming the field.
	for _, bad := range []struct{ check, field string }{
		{"{kind: tools, values: [a], match: sometimes}", "match: unknown mode"},
		{"{kind: flags, value: {can_prescribe: false}}", "value: can_prescribe: unknown flag"},
		{"{kind: tokens, max_tokens: lots}", "max_tokens"},
		{"{kind: cost}", "max_usd: the cost check needs"},
	} {
		dir = writeTree(t, map[string]string{
			"config.yaml": "name: p\nentry_file: main.py\ncheckpoints:\n  c1:\n    groups:\n      g:\n        checks:\n          - " + bad.check + "\n",
			"c1/x":        "",
		})
		_, err = Load(dir, opts)
		list := diagsOf(t, err)
		if len(list) != 1 || list[0].Line != 8 || !strings.Contains(list[0].Path+": "+list[0].Msg, bad.field) {
			t.Errorf("%s: got %v", bad.check, list)
		}
	}
}
