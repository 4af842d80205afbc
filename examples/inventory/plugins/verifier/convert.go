//go:build wasip1

package main

import (
	"encoding/json"
	"fmt"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

func spec(kind, attribute string, cfg config) checkspec.CheckSpec {
	s := checkspec.CheckSpec{Kind: kind, Attribute: attribute}
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

// configOf reads the group's config object (as the SDK decodes it: numbers
// are json.Number). The host does not check it against the schema in
// describe, so a wrong type is reported here, as a verdict error.
func configOf(m map[string]any) (config, error) {
	var c config
	var err error
	str := func(k string) string {
		s, ok := m[k].(string)
		if !ok && m[k] != nil && err == nil {
			err = fmt.Errorf("%s must be a string", k)
		}
		return s
	}
	num := func(k string, v any) float64 {
		n, ok := v.(json.Number)
		if !ok {
			if v != nil && err == nil {
				err = fmt.Errorf("%s must be a number", k)
			}
			return 0
		}
		f, perr := n.Float64()
		if perr != nil && err == nil {
			err = fmt.Errorf("%s: %v", k, perr)
		}
		return f
	}
	c.Output = str("output")
	c.StderrPattern = str("stderr_pattern")
	c.Tolerance = num("tolerance", m["tolerance"])
	if v, ok := m["ignore_whitespace"]; ok {
		b, isBool := v.(bool)
		if !isBool && err == nil {
			err = fmt.Errorf("ignore_whitespace must be a boolean")
		}
		c.IgnoreWhitespace = b
	}
	if v, ok := m["attributes"]; ok {
		list, isList := v.([]any)
		if !isList && err == nil {
			err = fmt.Errorf("attributes must be a list of strings")
		}
		for _, a := range list {
			s, isText := a.(string)
			if !isText && err == nil {
				err = fmt.Errorf("attributes must be a list of strings")
			}
			c.Attributes = append(c.Attributes, s)
		}
	}
	if v, ok := m["weights"]; ok {
		w, isMap := v.(map[string]any)
		if !isMap && err == nil {
			err = fmt.Errorf("weights must be an object of numbers")
		}
		c.Weights = map[string]float64{}
		for k, n := range w {
			c.Weights[k] = num("weights."+k, n)
		}
	}
	return c, err
}
