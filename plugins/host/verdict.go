package host

import (
	"encoding/json"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// verifyOutputOf turns a verify output that passed its schema into its
// type without decoding the text a second time. Values keep the form the
// built-in checks give them (json.Number for numbers), so a plugin's
// verdict and a built-in check's hold the same Go values.
func verifyOutputOf(doc any) abi.VerifyOutput {
	m, _ := doc.(map[string]any)
	out := abi.VerifyOutput{}
	out.Error, _ = m["error"].(string)
	out.Unscored, _ = m["unscored"].(string)
	list, _ := m["attributes"].([]any)
	out.Attributes = make([]abi.Attribute, 0, len(list))
	for _, item := range list {
		a, _ := item.(map[string]any)
		attr := abi.Attribute{Actual: a["actual"], Expected: a["expected"]}
		attr.Attribute, _ = a["attribute"].(string)
		attr.IsCorrect, _ = a["is_correct"].(bool)
		if w, ok := a["weight"].(json.Number); ok {
			attr.Weight, _ = w.Float64()
		}
		if d, ok := a["diff"].(map[string]any); ok {
			attr.Diff = diffOf(d)
		}
		out.Attributes = append(out.Attributes, attr)
	}
	return out
}

func diffOf(d map[string]any) *abi.Diff {
	diff := &abi.Diff{}
	diff.Summary, _ = d["summary"].(string)
	diff.Unified, _ = d["unified"].(string)
	diff.Truncated, _ = d["truncated"].(bool)
	entries, _ := d["entries"].([]any)
	for _, item := range entries {
		e, _ := item.(map[string]any)
		entry := abi.DiffEntry{Expected: e["expected"], Actual: e["actual"]}
		entry.Path, _ = e["path"].(string)
		entry.Op, _ = e["op"].(string)
		diff.Entries = append(diff.Entries, entry)
	}
	return diff
}
