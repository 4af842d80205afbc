package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

// JSONOptions tunes CompareJSON.
type JSONOptions struct {
	// Tolerance is the absolute difference allowed between two numbers;
	// RelTolerance the difference relative to the larger magnitude. Numbers
	// match when they are equal or either tolerance holds.
	Tolerance    float64
	RelTolerance float64
	// IgnoreKeys are object keys skipped at any depth.
	IgnoreKeys []string
	// UnorderedLists compares every list as a multiset.
	UnorderedLists bool
}

// ParseJSON decodes one JSON document keeping numbers exact (json.Number),
// and refuses trailing data (jsonvalue.Parse).
func ParseJSON(data string) (any, error) { return jsonvalue.Parse(data) }

// ParseJSONShared is ParseJSON sharing repeated large values
// (jsonvalue.ParseShared); the result must not be modified.
func ParseJSONShared(data string) (any, error) { return jsonvalue.ParseShared(data) }

// JSONValueEnd scans the one JSON value that starts at s[i]
// (jsonvalue.ValueEnd).
func JSONValueEnd(s string, i int) (end int, ok bool) { return jsonvalue.ValueEnd(s, i) }

// NormalizeJSON turns a value decoded from YAML or JSON (ints, floats,
// maps, lists) into the canonical form CompareJSON works on.
func NormalizeJSON(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return ParseJSON(string(data))
}

// CompareJSON deep-compares two canonical JSON values (see NormalizeJSON)
// and returns every difference with its path ("$.items[2].name"), capped at
// MaxDiffEntries (truncated reports the cap was hit). Numbers compare by
// value, so 1 and 1.0 are equal.
func CompareJSON(expected, actual any, opts JSONOptions) (entries []DiffEntry, truncated bool) {
	c := &jsonComparer{opts: opts, ignore: map[string]bool{}}
	for _, k := range opts.IgnoreKeys {
		c.ignore[k] = true
	}
	c.compare("$", expected, actual)
	return c.diff.Entries, c.diff.Truncated
}

type jsonComparer struct {
	opts   JSONOptions
	ignore map[string]bool
	diff   Diff
}

func (c *jsonComparer) compare(path string, want, got any) {
	// Most compared values are equal; confirming that needs no sorted keys
	// and no paths, which are built only where something differs.
	if c.same(want, got) {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			c.typeMismatch(path, want, got)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if c.ignore[k] {
				continue
			}
			p := childPath(path, k)
			if gv, ok := g[k]; ok {
				c.compare(p, w[k], gv)
			} else {
				addEntry(&c.diff, DiffEntry{Path: p, Op: "missing", Expected: w[k]})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok && !c.ignore[k] {
				addEntry(&c.diff, DiffEntry{Path: childPath(path, k), Op: "extra", Actual: g[k]})
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			c.typeMismatch(path, want, got)
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
				addEntry(&c.diff, DiffEntry{Path: p, Op: "missing", Expected: w[i]})
			case i >= len(w):
				addEntry(&c.diff, DiffEntry{Path: p, Op: "extra", Actual: g[i]})
			default:
				c.compare(p, w[i], g[i])
			}
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			c.typeMismatch(path, want, got)
			return
		}
		if !c.numbersEqual(w, g) {
			addEntry(&c.diff, DiffEntry{Path: path, Op: "changed", Expected: w, Actual: g})
		}
	default: // string, bool, nil
		if jsonType(want) != jsonType(got) {
			c.typeMismatch(path, want, got)
			return
		}
		if want != got {
			addEntry(&c.diff, DiffEntry{Path: path, Op: "changed", Expected: want, Actual: got})
		}
	}
}

// same reports whether two values match under the options, without
// recording anything.
func (c *jsonComparer) same(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if c.ignore[k] {
				continue
			}
			gv, ok := g[k]
			if !ok || !c.same(wv, gv) {
				return false
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok && !c.ignore[k] {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		if c.opts.UnorderedLists {
			// The same greedy matching as compareUnordered.
			used := make([]bool, len(g))
		next:
			for _, wv := range w {
				for j, gv := range g {
					if !used[j] && c.same(wv, gv) {
						used[j] = true
						continue next
					}
				}
				return false
			}
			return true
		}
		for i := range w {
			if !c.same(w[i], g[i]) {
				return false
			}
		}
		return true
	case json.Number:
		g, ok := got.(json.Number)
		return ok && c.numbersEqual(w, g)
	case string, bool, nil:
		return want == got
	}
	return false
}

// compareUnordered matches every expected element with an equal, unused
// actual element; what is left over on either side is reported.
func (c *jsonComparer) compareUnordered(path string, want, got []any) {
	used := make([]bool, len(got))
	var missing []int
	for i, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && c.same(w, g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, i)
		}
	}
	for _, i := range missing {
		addEntry(&c.diff, DiffEntry{Path: path + "[" + strconv.Itoa(i) + "]", Op: "missing", Expected: want[i]})
	}
	for j, g := range got {
		if !used[j] {
			addEntry(&c.diff, DiffEntry{Path: path + "[" + strconv.Itoa(j) + "]", Op: "extra", Actual: g})
		}
	}
}

func (c *jsonComparer) typeMismatch(path string, want, got any) {
	addEntry(&c.diff, DiffEntry{Path: path, Op: "type", Expected: want, Actual: got})
}

// numbersEqual compares numbers that are integers by value exactly, at
// any size and however written (12345678901234567890124,
// 1.2345678901234567890124e22 and 12345678901234567890124.0 are one
// number, and none is 12345678901234567890123, though all are one
// float64), and any other number as a float64, within the tolerances
// either way.
func (c *jsonComparer) numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	var d, scale float64
	ai, aok := exactInteger(string(a))
	bi, bok := exactInteger(string(b))
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

// maxExactDigits bounds the integers numbersEqual builds: a literal such
// as 1e1000000000 is an integer too, and is compared as a float64 rather
// than built digit by digit.
const maxExactDigits = 4096

// exactInteger is the JSON number s as an integer, when its value is one
// (a fraction of zeros, an exponent that covers the fraction) of at most
// maxExactDigits digits.
func exactInteger(s string) (*big.Int, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return nil, false // beyond an int's exponent: not built
		}
		mant, exp = s[:i], e
	}
	digits := mant
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		digits = mant[:i] + mant[i+1:]
		exp -= len(mant) - i - 1
	}
	// digits × 10^exp: trailing zeros make up a negative exponent.
	for exp < 0 && strings.HasSuffix(digits, "0") {
		digits, exp = digits[:len(digits)-1], exp+1
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return new(big.Int), true // zero, however written
	}
	if exp < 0 || len(digits)+exp > maxExactDigits {
		return nil, false
	}
	n, ok := new(big.Int).SetString(digits+strings.Repeat("0", exp), 10)
	if ok && neg {
		n.Neg(n)
	}
	return n, ok
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

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// childPath extends a JSON path with an object key, quoting keys that are
// not plain identifiers.
func childPath(path, key string) string {
	if identifier.MatchString(key) {
		return path + "." + key
	}
	q, _ := json.Marshal(key)
	return path + "[" + string(q) + "]"
}
