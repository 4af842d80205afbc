//go:build wasip1

package main

import (
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

func spec(kind, attribute string, cfg config) problem.CheckSpec {
	s := problem.CheckSpec{Kind: kind, Attribute: attribute}
	switch kind {
	case "json":
		s.Tolerance = cfg.Tolerance
	case "text":
		s.IgnoreWhitespace = cfg.IgnoreWhitespace
	}
	return s
}

func wanted(cfg config, attribute string) bool {
	if len(cfg.Attributes) == 0 {
		return true
	}
	for _, a := range cfg.Attributes {
		if a == attribute {
			return true
		}
	}
	return false
}

func weight(cfg config, attribute string) float64 {
	if w, ok := cfg.Weights[attribute]; ok {
		return w
	}
	return 1
}

// toABI converts a verdict to its envelope form.
func toABI(r verify.AttributeResult) abi.Attribute {
	return abi.Attribute{Attribute: r.Attribute, Actual: r.Actual, Expected: r.Expected, Diff: r.Diff,
		IsCorrect: r.IsCorrect, Weight: r.Weight}
}
