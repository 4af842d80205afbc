package cases

import (
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// compareKinds are the check kinds `compare` may choose for an attribute.
var compareKinds = []string{"text", "json", "jsonl", "regex"}

// mergeCompare merges a case's compare over the defaults', the case winning.
func mergeCompare(def, own map[string]string) map[string]string {
	if len(def) == 0 {
		return own
	}
	out := make(map[string]string, len(def)+len(own))
	for k, v := range def {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// compareChecks resolves `compare` (attribute → check kind): the case's
// checks become the default checks for its expected values
// (verify.DefaultChecks) with those attributes compared by the named kind,
// e.g. {stderr: regex} makes the expected stderr a pattern. It applies only
// where the defaults would: a case, group, checkpoint or problem that
// declares checks says how each attribute is compared already.
//
// own is the part the case gives itself: an attribute named only by the
// group's case_defaults is left out for a case that does not expect it.
func compareChecks(d *strictyaml.Decoder, compare, own map[string]string, expected map[string]any, declared bool, node *yaml.Node, path string) []problem.CheckSpec {
	if len(compare) > 0 && len(own) < len(compare) {
		kept := map[string]string{}
		for a, kind := range compare {
			if _, mine := own[a]; mine {
				kept[a] = kind
			} else if _, has := expected[a]; has {
				kept[a] = kind
			}
		}
		compare = kept
	}
	if len(compare) == 0 {
		return nil
	}
	at := diag.JoinPath(path, "compare")
	if declared {
		d.Errorf(lookup(node, "compare"), at, "compare chooses how the default checks compare an attribute, but this case has declared checks (its own or its group's, checkpoint's or problem's); set the kind in those checks instead")
		return nil
	}
	attrs := make([]string, 0, len(compare))
	for a := range compare {
		attrs = append(attrs, a)
	}
	sort.Strings(attrs)
	ok := true
	for _, a := range attrs {
		kind := compare[a]
		where := lookup(node, "compare", a)
		switch {
		case a == "status_code" || a == "files" || a == "headers":
			d.Errorf(where, at+"."+a, "%s cannot be compared another way (compare applies to output, stderr and other text attributes)", a)
			ok = false
		case !slices.Contains(compareKinds, kind):
			d.Errorf(where, at+"."+a, "unknown kind %q (expected one of %s)", kind, strings.Join(compareKinds, ", "))
			ok = false
		default:
			if _, has := expected[a]; !has {
				d.Errorf(where, at+"."+a, "the case has no expected %s to compare", a)
				ok = false
			} else if _, isText := expected[a].(string); kind == "regex" && !isText {
				d.Errorf(where, at+"."+a, "a regex needs the expected %s as text (the pattern), got %s", a, describe(expected[a]))
				ok = false
			}
		}
	}
	if !ok {
		return nil
	}
	checks := verify.DefaultChecks(expected)
	for i, c := range checks {
		if kind, has := compare[verify.AttributeOf(c)]; has && c.Kind != "file" && c.Kind != "status" {
			checks[i].Kind = kind
		}
	}
	return checks
}
