//go:build wasip1

// Command verifier is the inventory problem's verifier plugin. For every
// expected attribute of a case it decides, per the group's config, how to
// compare: the exit status exactly; the output as JSON (money within a
// tolerance) or as text; stderr against a pattern. It returns the same
// per-attribute verdicts, with the same structured diffs, as the engine's
// built-in checks, by using the same comparison code.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -o ../inventory-verifier.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/verifier"
)

func main() {}

// The verifier package exports verify, and verify_batch for runs that
// verify many cases at once, both served by check.
func init() { verifier.Serve(check) }

// config is the `config` object a group passes.
type config struct {
	// Output says how the output is compared: json, text, or auto (json
	// when the expected value is a structure).
	Output string `json:"output"`
	// Tolerance is the absolute tolerance for numbers (money).
	Tolerance float64 `json:"tolerance"`
	// IgnoreWhitespace compares text whitespace-insensitively.
	IgnoreWhitespace bool `json:"ignore_whitespace"`
	// StderrPattern, when set, is a regex stderr must match.
	StderrPattern string `json:"stderr_pattern"`
	// Attributes restricts which attributes are checked (default: every
	// expected one, plus stderr when a pattern is set).
	Attributes []string `json:"attributes"`
	// Weights per attribute (default 1).
	Weights map[string]float64 `json:"weights"`
}

//go:wasmexport describe
func describe() int32 {
	schema := json.RawMessage(`{"type":"object","properties":{"output":{"enum":["json","text","auto"]},"tolerance":{"type":"number","minimum":0},"ignore_whitespace":{"type":"boolean"},"stderr_pattern":{"type":"string"},"attributes":{"type":"array","items":{"type":"string"}},"weights":{"type":"object","additionalProperties":{"type":"number"}}},"additionalProperties":false}`)
	return wasmeval.DescribePlugin(abi.Describe{Name: "inventory-verifier", Version: "1.0.0",
		Kinds: []string{abi.KindVerifier}, ConfigSchema: schema,
		Description: "Verifies the inventory CLI: exit status, JSON or text output, error messages."})
}

// check verifies one case. The SDK decodes the envelope and encodes the
// verdict without reflection; the config is read straight from its map.
func check(in *wasmeval.VerifyInput) (*wasmeval.VerifyOutput, error) {
	cfg, err := configOf(in.Config)
	if err != nil {
		return &abi.VerifyOutput{Error: "bad config: " + err.Error()}, nil
	}
	actual := in.Actual
	// A JSON output that is the expected text token for token stays text
	// in the verdict: the host decodes it, so re-encoding a decoded copy
	// here would be wasted work.
	env := verify.Env{RawJSON: true}
	var out abi.VerifyOutput
	add := func(r verify.AttributeResult) {
		r.Weight = weight(cfg, r.Attribute)
		out.Attributes = append(out.Attributes, toABI(r))
	}
	// The exit status is checked when the case expects one, or when the
	// config weighs it (then a case that says nothing expects success).
	_, expectsStatus := in.Expected["status_code"]
	_, weighted := cfg.Weights["status_code"]
	if wanted(cfg, "status_code") && (expectsStatus || weighted) {
		add(verify.Run(spec("status", "", cfg), actual, in.Expected, env))
	}
	if want, ok := in.Expected["output"]; ok && wanted(cfg, "output") {
		kind := cfg.Output
		if kind == "" || kind == "auto" {
			kind = "text"
			switch want.(type) {
			case map[string]any, []any:
				kind = "json"
			}
		}
		add(verify.Run(spec(kind, "output", cfg), actual, in.Expected, env))
	}
	if cfg.StderrPattern != "" && wanted(cfg, "stderr") {
		if _, err := regexp.Compile(cfg.StderrPattern); err != nil {
			return &abi.VerifyOutput{Error: fmt.Sprintf("bad stderr_pattern: %v", err)}, nil
		}
		s := spec("regex", "stderr", cfg)
		s.Pattern = cfg.StderrPattern
		add(verify.Run(s, actual, in.Expected, env))
	} else if _, ok := in.Expected["stderr"]; ok && wanted(cfg, "stderr") {
		add(verify.Run(spec("text", "stderr", cfg), actual, in.Expected, env))
	}
	if out.Attributes == nil {
		out.Attributes = []abi.Attribute{}
	}
	return &out, nil
}
