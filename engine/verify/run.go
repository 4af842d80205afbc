package verify

import (
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Env gives checks what they need beyond the case itself.
type Env struct {
	// ReadProblemFile reads a file relative to the problem directory (for
	// schema_file and expected_file). It must refuse paths that escape.
	ReadProblemFile func(rel string) ([]byte, error)
	// RawJSON lets the json check keep a document it settles by its text
	// (the output is the expected text, token for token) as that text, a
	// json.RawMessage, instead of decoding it. For callers that only
	// encode the verdict again, such as verifier plugins and engine/run
	// (which journals it): decoding into
	// maps and writing them back out is most of their work, and whoever
	// reads the verdict decodes the same value from the text.
	RawJSON bool
	// Elapsed is the case's elapsed seconds (result.Execution.Elapsed),
	// for the latency check; nil where it is not known.
	Elapsed *float64
	// Agent is the agent's parsed result JSON in an agent case, nil in any
	// other: the tools, tool-output, flags, cost and tokens checks judge it,
	// the answer and final_reply attributes are read from it, and latency
	// falls back to its elapsed_seconds.
	Agent *agent.Result
}

// MaxDiffEntries caps the entries a diff keeps (abi.MaxDiffEntries, which
// the plugin host holds verifier plugins' diffs to as well).
const MaxDiffEntries = abi.MaxDiffEntries

// Run applies one check to a case's actual result. It never fails: a check
// that cannot be evaluated (missing expected value, unreadable schema) is an
// incorrect attribute whose diff says why.
func Run(spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) AttributeResult {
	attr := AttributeOf(spec)
	res := AttributeResult{Attribute: attr, Weight: spec.WeightOr(1), Check: spec.Kind}
	switch spec.Kind {
	case "status":
		checkStatus(&res, spec, actual, expected)
	case "text":
		checkText(&res, spec, actual, expected, env)
	case "json":
		checkJSON(&res, spec, actual, expected, env)
	case "jsonl":
		checkJSONL(&res, spec, actual, expected, env)
	case "regex":
		checkRegex(&res, spec, actual, expected, env)
	case "schema":
		checkSchema(&res, spec, actual, env)
	case "file":
		checkFile(&res, spec, actual, expected, env)
	case "evaluator", "evaluators":
		fail(&res, "evaluator checks run in the plugin host, not here")
	case "test":
		fail(&res, "test checks run in the plugin host, not here")
	case "latency":
		checkLatency(&res, spec, env)
	case "mock-calls":
		checkMockCalls(&res, spec, actual)
	case "tools":
		checkTools(&res, spec, expected, env)
	case "tool-output":
		checkToolOutput(&res, spec, expected, env)
	case "flags":
		checkFlags(&res, spec, expected, env)
	case "cost":
		checkCost(&res, spec, env)
	case "tokens":
		checkTokens(&res, spec, env)
	default:
		if base, _ := SplitNegation(spec.Kind); isAssertion(base) {
			checkAssertion(&res, spec, actual, expected, env)
			break
		}
		fail(&res, "unknown check kind %q", spec.Kind)
	}
	return res
}

// AttributeOf is the attribute a check compares: the declared one or the
// kind's default.
func AttributeOf(spec checkspec.CheckSpec) string {
	if spec.Attribute != "" {
		return spec.Attribute
	}
	switch spec.Kind {
	case "status":
		return "status_code"
	case "file":
		return FileAttribute(spec.Path)
	case "latency", "tools", "flags", "cost", "tokens":
		return spec.Kind
	case "mock-calls":
		return AttrMockCalls
	case "tool-output":
		return "tool_output"
	case "evaluators":
		return "evaluation"
	}
	return "output"
}

// FileAttribute names the attribute of a tracked file.
func FileAttribute(path string) string { return "files-" + path }

// HeaderAttribute names the attribute of a response header (API cases).
func HeaderAttribute(name string) string { return "headers-" + strings.ToLower(name) }

// ActualValue returns the actual value of an attribute (status_code,
// output, stderr, files-<path>, headers-<name>, mock_calls) and whether
// it is there.
// The agent attributes (answer, final_reply) need the agent's result:
// see ActualValueIn.
func ActualValue(a Actual, attr string) (any, bool) { return actualValue(a, Env{}, attr) }

// ActualValueIn is ActualValue that also reads the agent attributes from
// env.Agent.
func ActualValueIn(a Actual, env Env, attr string) (any, bool) { return actualValue(a, env, attr) }

// actualValue returns the actual value of an attribute.
func actualValue(a Actual, env Env, attr string) (any, bool) {
	if isAgentAttribute(attr) {
		return agentAttribute(env.Agent, attr)
	}
	switch attr {
	case "status_code":
		return a.StatusCode, true
	case "output":
		return a.Output, true
	case "stderr":
		return a.Stderr, true
	case AttrMockCalls:
		return MockCallsValue(a.MockCalls), true
	}
	if path, ok := strings.CutPrefix(attr, "files-"); ok {
		v, ok := a.Files[path]
		return v, ok
	}
	if name, ok := strings.CutPrefix(attr, "headers-"); ok {
		v, ok := a.Headers[strings.ToLower(name)]
		return v, ok
	}
	return nil, false
}

// expectedValue returns the expected value of an attribute: expected[attr],
// or for a tracked file expected.files[path].
func expectedValue(expected map[string]any, attr string) (any, bool) {
	if v, ok := expected[attr]; ok {
		return v, true
	}
	if path, ok := strings.CutPrefix(attr, "files-"); ok {
		if files, ok := expected["files"].(map[string]any); ok {
			v, ok := files[path]
			return v, ok
		}
	}
	if name, ok := strings.CutPrefix(attr, "headers-"); ok {
		if headers, ok := expected["headers"].(map[string]any); ok {
			for k, v := range headers {
				if strings.EqualFold(k, name) {
					return v, true
				}
			}
		}
	}
	return nil, false
}

// asText renders an actual or expected value as text for text-like checks.
func asText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case []byte:
		return string(t), true
	case nil:
		return "", false
	case []any, map[string]any:
		// A structured attribute (mock_calls) is read as its JSON text.
		return valueText(v), true
	}
	return fmt.Sprint(v), true
}

// notProduced says why an attribute has no actual value.
func notProduced(env Env, attr string) string {
	if isAgentAttribute(attr) {
		if env.Agent == nil {
			return fmt.Sprintf("not an agent case: the %s attribute is read from an agent's result", attr)
		}
		if attr == AttrAnswer {
			return "the agent gave no answer (no task_result, task_complete call or final reply)"
		}
		return "the agent has no final reply (no assistant message with text)"
	}
	return fmt.Sprintf("attribute %s was not produced", attr)
}

// fail marks the attribute incorrect with a one-line reason.
func fail(res *AttributeResult, format string, args ...any) {
	res.IsCorrect = false
	res.Diff = &Diff{Summary: fmt.Sprintf(format, args...)}
}
