package wasmeval

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
)

// MaxDiffEntries caps the entries a diff keeps, as the engine's checks do.
const MaxDiffEntries = 50

// JSONOptions tunes CompareJSON; the fields mean what the json check's
// options mean (docs/checks.md).
type JSONOptions struct {
	// Tolerance is the absolute difference allowed between two numbers;
	// RelTolerance the difference relative to the larger magnitude.
	Tolerance    float64
	RelTolerance float64
	// IgnoreKeys are object keys skipped at any depth.
	IgnoreKeys []string
	// UnorderedLists compares every list as a multiset.
	UnorderedLists bool
}

// CompareJSON deep-compares two values of the shared model and returns the
// structured diff the engine's json check gives (nil when they match):
// every difference with its path ("$.items[2].name"), capped at
// MaxDiffEntries, and a one-line summary.
func CompareJSON(expected, actual any, opts JSONOptions) *Diff {
	c := &comparer{opts: opts, ignore: map[string]bool{}}
	for _, k := range opts.IgnoreKeys {
		c.ignore[k] = true
	}
	c.compare("$", expected, actual)
	if len(c.diff.Entries) == 0 && !c.diff.Truncated {
		return nil
	}
	c.diff.Summary = Summarize(c.diff.Entries, c.diff.Truncated)
	return &c.diff
}

type comparer struct {
	opts   JSONOptions
	ignore map[string]bool
	diff   Diff
}

func (c *comparer) add(e DiffEntry) {
	if len(c.diff.Entries) >= MaxDiffEntries {
		c.diff.Truncated = true
		return
	}
	c.diff.Entries = append(c.diff.Entries, e)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (c *comparer) compare(path string, want, got any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			c.add(DiffEntry{Path: path, Op: "type", Expected: want, Actual: got})
			return
		}
		for _, k := range sortedKeys(w) {
			if c.ignore[k] {
				continue
			}
			p := childPath(path, k)
			if gv, ok := g[k]; ok {
				c.compare(p, w[k], gv)
			} else {
				c.add(DiffEntry{Path: p, Op: "missing", Expected: w[k]})
			}
		}
		for _, k := range sortedKeys(g) {
			if _, ok := w[k]; !ok && !c.ignore[k] {
				c.add(DiffEntry{Path: childPath(path, k), Op: "extra", Actual: g[k]})
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			c.add(DiffEntry{Path: path, Op: "type", Expected: want, Actual: got})
			return
		}
		if c.opts.UnorderedLists {
			c.compareUnordered(path, w, g)
			return
		}
		for i := 0; i < len(w) || i < len(g); i++ {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(g):
				c.add(DiffEntry{Path: p, Op: "missing", Expected: w[i]})
			case i >= len(w):
				c.add(DiffEntry{Path: p, Op: "extra", Actual: g[i]})
			default:
				c.compare(p, w[i], g[i])
			}
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			c.add(DiffEntry{Path: path, Op: "type", Expected: want, Actual: got})
			return
		}
		if !c.numbersEqual(w, g) {
			c.add(DiffEntry{Path: path, Op: "changed", Expected: w, Actual: g})
		}
	default: // string, bool, nil
		if TypeName(want) != TypeName(got) {
			c.add(DiffEntry{Path: path, Op: "type", Expected: want, Actual: got})
			return
		}
		if want != got {
			c.add(DiffEntry{Path: path, Op: "changed", Expected: want, Actual: got})
		}
	}
}

func (c *comparer) compareUnordered(path string, want, got []any) {
	used := make([]bool, len(got))
	var missing []int
	for i, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && c.equal(w, g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, i)
		}
	}
	for _, i := range missing {
		c.add(DiffEntry{Path: path + "[" + strconv.Itoa(i) + "]", Op: "missing", Expected: want[i]})
	}
	for j, g := range got {
		if !used[j] {
			c.add(DiffEntry{Path: path + "[" + strconv.Itoa(j) + "]", Op: "extra", Actual: g})
		}
	}
}

func (c *comparer) equal(want, got any) bool {
	sub := &comparer{opts: c.opts, ignore: c.ignore}
	sub.compare("$", want, got)
	return len(sub.diff.Entries) == 0 && !sub.diff.Truncated
}

// numbersEqual compares integers exactly and everything else as floats,
// within the tolerances either way.
func (c *comparer) numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	var d, scale float64
	ai, aok := new(big.Int).SetString(string(a), 10)
	bi, bok := new(big.Int).SetString(string(b), 10)
	if aok && bok {
		diff := new(big.Int).Sub(ai, bi)
		if diff.Sign() == 0 {
			return true
		}
		d, _ = new(big.Float).SetInt(diff.Abs(diff)).Float64()
		af, _ := new(big.Float).SetInt(ai).Float64()
		bf, _ := new(big.Float).SetInt(bi).Float64()
		scale = math.Max(math.Abs(af), math.Abs(bf))
	} else {
		af, err1 := strconv.ParseFloat(string(a), 64)
		bf, err2 := strconv.ParseFloat(string(b), 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if af == bf {
			return true
		}
		d, scale = math.Abs(af-bf), math.Max(math.Abs(af), math.Abs(bf))
	}
	return d <= c.opts.Tolerance || d <= c.opts.RelTolerance*scale
}

func isIdentifier(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// childPath extends a JSON path with an object key, quoting keys that are
// not plain identifiers.
func childPath(path, key string) string {
	if isIdentifier(key) {
		return path + "." + key
	}
	return path + "[" + string(AppendQuoted(nil, key)) + "]"
}

// Summarize says what differs in one line: the first difference and how
// many more there are.
func Summarize(entries []DiffEntry, truncated bool) string {
	if len(entries) == 0 {
		return ""
	}
	e := entries[0]
	var first string
	switch e.Op {
	case "missing":
		first = fmt.Sprintf("%s missing (expected %s)", e.Path, Brief(e.Expected))
	case "extra":
		first = fmt.Sprintf("%s unexpected (%s)", e.Path, Brief(e.Actual))
	case "type":
		first = fmt.Sprintf("%s is %s, expected %s", e.Path, jsonType(e.Actual), jsonType(e.Expected))
	default:
		first = fmt.Sprintf("%s: expected %s, got %s", e.Path, Brief(e.Expected), Brief(e.Actual))
	}
	more := len(entries) - 1
	switch {
	case truncated:
		return fmt.Sprintf("%s; and more than %d other differences", first, more)
	case more == 1:
		return first + "; and 1 other difference"
	case more > 1:
		return fmt.Sprintf("%s; and %d other differences", first, more)
	}
	return first
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64, int:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// Brief renders a value compactly for a summary line: containers by kind,
// strings quoted (Go's %q) and clipped to 60 bytes, numbers as written.
func Brief(v any) string {
	switch t := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return strconv.Quote(Clip(t, 60))
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case json.Number:
		return Clip(string(t), 60)
	case float64:
		// As every SDK writes a computed number: shortest digits, and
		// +Inf, -Inf, NaN for those JSON cannot hold.
		return Clip(string(AppendFloat(nil, t)), 60)
	}
	return Clip(fmt.Sprint(v), 60)
}

// Clip shortens s to at most n bytes, at a character boundary, marking the
// cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
