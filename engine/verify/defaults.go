package verify

import (
	"encoding/json"
	"sort"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// DefaultChecks are the checks a case gets when neither it nor its group,
// checkpoint or problem declares any: one per expected attribute.
//
//   - status_code → status
//   - output → json when the expected value is structured (a mapping or a
//     list), text otherwise
//   - stderr → text
//   - files → file, one per expected file
//   - headers → text, one per expected response header
//   - tools, tool_output, flags → the tools, tool-output and flags checks
//     of an agent's result, which read their expected value there
//
// Any other expected key (answer and final_reply among them) is compared
// as text, or as JSON when structured.
func DefaultChecks(expected map[string]any) []checkspec.CheckSpec {
	var out []checkspec.CheckSpec
	if _, ok := expected["status_code"]; ok {
		out = append(out, checkspec.CheckSpec{Kind: "status"})
	}
	keys := make([]string, 0, len(expected))
	for k := range expected {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := expected[k]
		switch k {
		case "status_code":
		case "files":
			files, _ := v.(map[string]any)
			paths := make([]string, 0, len(files))
			for p := range files {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			for _, p := range paths {
				out = append(out, checkspec.CheckSpec{Kind: "file", Path: p})
			}
		case "headers":
			headers, _ := v.(map[string]any)
			names := make([]string, 0, len(headers))
			for n := range headers {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				out = append(out, checkspec.CheckSpec{Kind: "text", Attribute: HeaderAttribute(n)})
			}
		case "tools", "flags":
			out = append(out, checkspec.CheckSpec{Kind: k})
		case "tool_output":
			out = append(out, checkspec.CheckSpec{Kind: "tool-output"})
		default:
			// A structure, or a number (EXPECTED.json holding 187.0), is
			// compared as JSON: by value, so an output of 187 matches.
			kind := "text"
			switch v.(type) {
			case map[string]any, []any, json.Number:
				kind = "json"
			}
			out = append(out, checkspec.CheckSpec{Kind: kind, Attribute: k})
		}
	}
	return out
}
