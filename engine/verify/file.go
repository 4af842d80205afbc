package verify

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// checkFile compares a tracked file with its expected content: the case's
// expected files, or expected_file relative to the problem.
func checkFile(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	var want any
	if spec.ExpectedFile != "" {
		if env.ReadProblemFile == nil {
			fail(res, "expected_file %s cannot be read here", spec.ExpectedFile)
			return
		}
		data, err := env.ReadProblemFile(spec.ExpectedFile)
		if err != nil {
			fail(res, "expected_file: %v", err)
			return
		}
		want = FileValue(data)
	} else {
		v, ok := expectedValue(expected, res.Attribute)
		if !ok {
			fail(res, "no expected content for %s", res.Attribute)
			return
		}
		want = v
	}
	res.Expected = want
	got, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		res.IsCorrect = false
		res.Diff = &Diff{Summary: fmt.Sprintf("file %s was not produced", spec.Path),
			Entries: []DiffEntry{{Path: spec.Path, Op: "missing", Expected: clipAny(want)}}}
		return
	}
	if spec.ExpectedFile == "" && IsStructure(want) {
		// Content written as a structure (files: {out.json: {a: 1}}) is
		// the JSON document the file must hold, compared by value as a
		// structured expected output is; its compact text would fail
		// every file that is indented.
		if w, g, ok := jsonOperands(res, actual, expected, env, func(s string) (any, error) { return ParseJSON(s) }); ok {
			finishJSON(res, w, g, jsonOptions(spec))
		}
		if res.Diff != nil {
			res.Diff.Summary = "file " + spec.Path + ": " + res.Diff.Summary
		}
		return
	}
	res.Actual = got
	wb, wText := want.([]byte)
	gb, gText := got.([]byte)
	if wText || gText { // at least one side is binary: compare bytes
		if !wText {
			wb = []byte(fmt.Sprint(want))
		}
		if !gText {
			gb = []byte(fmt.Sprint(got))
		}
		res.IsCorrect = bytes.Equal(wb, gb)
		if !res.IsCorrect {
			res.Diff = &Diff{Summary: fmt.Sprintf("file %s differs (binary, %d bytes vs %d expected)", spec.Path, len(gb), len(wb)),
				Entries: []DiffEntry{{Path: spec.Path, Op: "changed", Expected: fmt.Sprintf("%d bytes", len(wb)), Actual: fmt.Sprintf("%d bytes", len(gb))}}}
		}
		return
	}
	ws, _ := asText(want)
	gs, _ := asText(got)
	compareText(res, ws, gs, spec.IgnoreWhitespace, spec.IgnoreCase)
	if res.Diff != nil {
		res.Diff.Summary = "file " + spec.Path + ": " + res.Diff.Summary
	}
}

// IsStructure says whether an expected value is a mapping or a list, as
// YAML and JSON decode them: an expected file's content that is one is
// the JSON document the file holds.
func IsStructure(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// FileValue is how file content appears in expected and actual values:
// text when the bytes are UTF-8, else the bytes (as tracked files are read
// back).
func FileValue(data []byte) any {
	if utf8.Valid(data) {
		return string(data)
	}
	return data
}

func clipAny(v any) any {
	if s, ok := v.(string); ok {
		return clip(s, 200)
	}
	return v
}
