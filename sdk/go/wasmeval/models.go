package wasmeval

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The envelope models are the ABI's own types (plugins/abi), so a Go plugin
// and the engine share one definition.
type (
	Describe       = abi.Describe
	Case           = abi.Case
	InputFile      = abi.InputFile
	Actual         = abi.Actual
	MockCall       = abi.MockCall
	VerifyInput    = abi.VerifyInput
	VerifyOutput   = abi.VerifyOutput
	Attribute      = abi.Attribute
	Diff           = abi.Diff
	DiffEntry      = abi.DiffEntry
	GroupInfo      = abi.GroupInfo
	Outcome        = abi.Outcome
	LoadInput      = abi.LoadInput
	LoadOutput     = abi.LoadOutput
	EvaluateInput  = abi.EvaluateInput
	EvaluateOutput = abi.EvaluateOutput
	Message        = abi.Message
	ToolCall       = abi.ToolCall
	ToolResult     = abi.ToolResult
	Answer         = abi.Answer
	Usage          = abi.Usage
	AgentRun       = abi.AgentRun
	TestInput      = abi.TestInput
	TestOutput     = abi.TestOutput
)

// InputError is an input envelope whose JSON is valid but whose shape is
// not the ABI's: which field, what it is and what was expected.
type InputError struct {
	Path     string
	Got      string
	Expected string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s is %s, expected %s", e.Path, e.Got, e.Expected)
}

// TypeName names a value's JSON type with its article ("an object"), as
// messages and summaries do.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64, int:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// at is the path of the field being decoded, joined into text only when an
// error names it, so decoding a well-formed envelope builds no path strings.
type at struct {
	parent *at
	base   string // the root ("$.case"), or the key appended to parent
	index  int    // >= 0: an array element of parent
	key    bool   // base is an object key, quoted when not an identifier
}

func (p at) with(key string) at { return at{parent: &p, base: key, index: -1} }
func (p at) elem(i int) at      { return at{parent: &p, index: i} }
func (p at) keyed(k string) at  { return at{parent: &p, base: k, index: -1, key: true} }

func (p at) String() string {
	s := ""
	if p.parent != nil {
		s = p.parent.String()
	}
	if p.index >= 0 && p.parent != nil {
		return s + "[" + strconv.Itoa(p.index) + "]"
	}
	if p.key {
		return childPath(s, p.base)
	}
	return s + p.base
}

func root(path string) at { return at{base: path, index: -1} }

// decoder converts a parsed document to the typed envelopes, remembering
// the first shape error. Absent and null fields leave the zero value.
type decoder struct{ err error }

func (d *decoder) bad(path at, v any, want string) {
	if d.err == nil {
		d.err = &InputError{Path: path.String(), Got: TypeName(v), Expected: want}
	}
}

func (d *decoder) obj(path at, v any) map[string]any {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.bad(path, v, "an object")
	}
	return m
}

func (d *decoder) str(path at, v any) string {
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.bad(path, v, "a string")
	}
	return s
}

func (d *decoder) boolean(path at, v any) bool {
	if v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		d.bad(path, v, "a boolean")
	}
	return b
}

func (d *decoder) float(path at, v any) float64 {
	if v == nil {
		return 0
	}
	n, ok := v.(json.Number)
	if !ok {
		d.bad(path, v, "a number")
		return 0
	}
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}

func (d *decoder) integer(path at, v any) int {
	f := d.float(path, v)
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		if d.err == nil {
			d.err = &InputError{Path: path.String(), Got: "a number", Expected: "an integer"}
		}
		return 0
	}
	return int(f)
}

func (d *decoder) arr(path at, v any) []any {
	if v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		d.bad(path, v, "an array")
	}
	return a
}

func (d *decoder) strs(path at, v any) []string {
	a := d.arr(path, v)
	if a == nil {
		return nil
	}
	out := make([]string, len(a))
	for i, x := range a {
		out[i] = d.str(path.elem(i), x)
	}
	return out
}

func (d *decoder) strMap(path at, v any) map[string]string {
	m := d.obj(path, v)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) { // sorted: the first error is the same every time
		out[k] = d.str(path.keyed(k), m[k])
	}
	return out
}

func (d *decoder) caseOf(path at, v any) Case {
	m := d.obj(path, v)
	var c Case
	if m == nil {
		return c
	}
	c.ID = d.str(path.with(".id"), m["id"])
	c.Checkpoint = d.str(path.with(".checkpoint"), m["checkpoint"])
	c.Group = d.str(path.with(".group"), m["group"])
	c.GroupType = d.str(path.with(".group_type"), m["group_type"])
	c.Arguments = d.strs(path.with(".arguments"), m["arguments"])
	if s, ok := m["stdin"]; ok && s != nil {
		str := d.str(path.with(".stdin"), s)
		c.Stdin = &str
	}
	c.Env = d.strMap(path.with(".env"), m["env"])
	for i, f := range d.arr(path.with(".input_files"), m["input_files"]) {
		p := path.with(".input_files").elem(i)
		fm := d.obj(p, f)
		c.InputFiles = append(c.InputFiles, InputFile{Path: d.str(p.with(".path"), fm["path"]),
			Content: d.str(p.with(".content"), fm["content"]), Encoding: d.str(p.with(".encoding"), fm["encoding"])})
	}
	c.TrackedFiles = d.strs(path.with(".tracked_files"), m["tracked_files"])
	c.Expected = d.obj(path.with(".expected"), m["expected"])
	c.TimeoutS = d.float(path.with(".timeout_s"), m["timeout_s"])
	c.Reset = d.boolean(path.with(".reset"), m["reset"])
	c.Extra = d.obj(path.with(".extra"), m["extra"])
	return c
}

func (d *decoder) actualOf(path at, v any) Actual {
	m := d.obj(path, v)
	var a Actual
	if m == nil {
		return a
	}
	a.StatusCode = d.integer(path.with(".status_code"), m["status_code"])
	a.Output = d.str(path.with(".output"), m["output"])
	a.Stderr = d.str(path.with(".stderr"), m["stderr"])
	a.Files = d.obj(path.with(".files"), m["files"])
	a.TimedOut = d.boolean(path.with(".timed_out"), m["timed_out"])
	a.MockCalls = d.mockCalls(path.with(".mock_calls"), m["mock_calls"])
	return a
}

// mockCalls decodes the requests a case's mocks received, each call's
// fields in the order every SDK visits them, so the first shape error is
// the same.
func (d *decoder) mockCalls(path at, v any) []MockCall {
	var out []MockCall
	for i, x := range d.arr(path, v) {
		p := path.elem(i)
		m := d.obj(p, x)
		if m == nil {
			out = append(out, MockCall{})
			continue
		}
		out = append(out, MockCall{Mock: d.str(p.with(".mock"), m["mock"]), Method: d.str(p.with(".method"), m["method"]),
			Path: d.str(p.with(".path"), m["path"]), Query: d.strsMap(p.with(".query"), m["query"]),
			Headers: d.strsMap(p.with(".headers"), m["headers"]), Body: d.str(p.with(".body"), m["body"]),
			BodyBase64: d.str(p.with(".body_base64"), m["body_base64"]), Status: d.integer(p.with(".status"), m["status"]),
			Route: d.integer(p.with(".route"), m["route"]), Unmatched: d.boolean(p.with(".unmatched"), m["unmatched"]),
			Fault: d.str(p.with(".fault"), m["fault"])})
	}
	return out
}

func (d *decoder) top(v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.bad(root("$"), v, "an object")
	}
	return m
}

// DecodeVerifyInput parses a verify input envelope.
func DecodeVerifyInput(data []byte) (*VerifyInput, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return verifyInputOf(v)
}

// verifyInputOf decodes a parsed verify input envelope.
func verifyInputOf(v any) (*VerifyInput, error) {
	d := &decoder{}
	m := d.top(v)
	in := &VerifyInput{ABIVersion: d.integer(root("$.abi_version"), m["abi_version"]),
		Config: d.obj(root("$.config"), m["config"]), Case: d.caseOf(root("$.case"), m["case"]),
		Actual: d.actualOf(root("$.actual"), m["actual"]), Expected: d.obj(root("$.expected"), m["expected"])}
	return in, d.err
}

// DecodeLoadInput parses a load_cases input envelope.
func DecodeLoadInput(data []byte) (*LoadInput, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return loadInputOf(v)
}

// loadInputOf decodes a parsed load_cases input envelope.
func loadInputOf(v any) (*LoadInput, error) {
	d := &decoder{}
	m := d.top(v)
	in := &LoadInput{ABIVersion: d.integer(root("$.abi_version"), m["abi_version"]), Config: d.obj(root("$.config"), m["config"])}
	if g := d.obj(root("$.group"), m["group"]); g != nil {
		in.Group = GroupInfo{Checkpoint: d.str(root("$.group.checkpoint"), g["checkpoint"]), Group: d.str(root("$.group.group"), g["group"]),
			GroupType: d.str(root("$.group.group_type"), g["group_type"]), CaseGroup: d.str(root("$.group.case_group"), g["case_group"]),
			CaseOrder: d.strs(root("$.group.case_order"), g["case_order"]), TimeoutS: d.float(root("$.group.timeout_s"), g["timeout_s"]),
			OriginCheckpoint: d.str(root("$.group.origin_checkpoint"), g["origin_checkpoint"]),
			OriginGroup:      d.str(root("$.group.origin_group"), g["origin_group"]), Dir: d.str(root("$.group.dir"), g["dir"])}
	}
	for i, h := range d.arr(root("$.history"), m["history"]) {
		p := root("$.history").elem(i)
		hm := d.obj(p, h)
		in.History = append(in.History, Outcome{Case: d.caseOf(p.with(".case"), hm["case"]), Actual: d.actualOf(p.with(".actual"), hm["actual"])})
	}
	if s, ok := m["seed"]; ok && s != nil {
		n := int64(d.integer(root("$.seed"), s))
		in.Seed = &n
	}
	return in, d.err
}

// DecodeEvaluateInput parses an evaluate input envelope.
func DecodeEvaluateInput(data []byte) (*EvaluateInput, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return evaluateInputOf(v)
}

// evaluateInputOf decodes a parsed evaluate input envelope.
func evaluateInputOf(v any) (*EvaluateInput, error) {
	d := &decoder{}
	m := d.top(v)
	in := &EvaluateInput{ABIVersion: d.integer(root("$.abi_version"), m["abi_version"]), Config: d.obj(root("$.config"), m["config"]),
		Function: d.str(root("$.function"), m["function"]), Arguments: d.obj(root("$.arguments"), m["arguments"]),
		Expected: d.obj(root("$.expected"), m["expected"])}
	if m["case"] != nil {
		c := d.caseOf(root("$.case"), m["case"])
		in.Case = &c
	}
	if m["actual"] != nil {
		a := d.actualOf(root("$.actual"), m["actual"])
		in.Actual = &a
	}
	return in, d.err
}

// DecodeTestInput parses a test input envelope.
func DecodeTestInput(data []byte) (*TestInput, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return testInputOf(v)
}

// testInputOf decodes a parsed test input envelope.
func testInputOf(v any) (*TestInput, error) {
	d := &decoder{}
	m := d.top(v)
	in := &TestInput{ABIVersion: d.integer(root("$.abi_version"), m["abi_version"]), Config: d.obj(root("$.config"), m["config"])}
	if r := d.obj(root("$.result"), m["result"]); r != nil {
		run := &in.Result
		run.TaskResult = r["task_result"]
		run.Status = d.str(root("$.result.status"), r["status"])
		run.Instruction = d.str(root("$.result.instruction"), r["instruction"])
		run.Iterations = d.integer(root("$.result.iterations"), r["iterations"])
		run.Sandbox = r["sandbox"]
		run.ExecutionTrace = d.arr(root("$.result.execution_trace"), r["execution_trace"])
		for i, msg := range d.arr(root("$.result.conversation"), r["conversation"]) {
			run.Conversation = append(run.Conversation, d.message(root("$.result.conversation").elem(i), msg))
		}
		run.TaskName = d.str(root("$.result.task_name"), r["task_name"])
		if a := d.obj(root("$.result.answer"), r["answer"]); a != nil {
			run.Answer = &Answer{Value: a["value"], Rule: d.str(root("$.result.answer.rule"), a["rule"])}
		}
		if u := d.obj(root("$.result.usage"), r["usage"]); u != nil {
			run.Usage = &Usage{InputTokens: d.integer(root("$.result.usage.input_tokens"), u["input_tokens"]),
				OutputTokens: d.integer(root("$.result.usage.output_tokens"), u["output_tokens"]),
				TotalTokens:  d.integer(root("$.result.usage.total_tokens"), u["total_tokens"]),
				Cost:         d.float(root("$.result.usage.cost"), u["cost"])}
		}
		run.ElapsedSeconds = d.float(root("$.result.elapsed_seconds"), r["elapsed_seconds"])
	}
	return in, d.err
}

// message decodes one message of a run's conversation. The fields are
// visited in the same order in every SDK, so the first shape error is the
// same.
func (d *decoder) message(p at, v any) Message {
	mm := d.obj(p, v)
	out := Message{Role: d.str(p.with(".role"), mm["role"]), Content: d.str(p.with(".content"), mm["content"]), Name: d.str(p.with(".name"), mm["name"])}
	for j, tc := range d.arr(p.with(".tool_calls"), mm["tool_calls"]) {
		tp := p.with(".tool_calls").elem(j)
		tm := d.obj(tp, tc)
		out.ToolCalls = append(out.ToolCalls, ToolCall{Name: d.str(tp.with(".name"), tm["name"]), Arguments: tm["arguments"],
			ID: d.str(tp.with(".id"), tm["id"]), RawArguments: d.str(tp.with(".raw_arguments"), tm["raw_arguments"]),
			ArgumentsError: d.str(tp.with(".arguments_error"), tm["arguments_error"])})
	}
	out.ToolCallID = d.str(p.with(".tool_call_id"), mm["tool_call_id"])
	for j, tr := range d.arr(p.with(".tool_results"), mm["tool_results"]) {
		rp := p.with(".tool_results").elem(j)
		rm := d.obj(rp, tr)
		out.ToolResults = append(out.ToolResults, ToolResult{ToolCallID: d.str(rp.with(".tool_call_id"), rm["tool_call_id"]),
			Name: d.str(rp.with(".name"), rm["name"]), Content: d.str(rp.with(".content"), rm["content"]), JSON: rm["json"],
			IsError: d.boolean(rp.with(".is_error"), rm["is_error"])})
	}
	return out
}

// toValue turns the ABI's output types into the shared value model, with
// the ABI's omission rules: optional fields are left out when empty, lists
// the schema requires are [] rather than null.
func toValue(v any) (any, bool) {
	switch t := v.(type) {
	case *VerifyOutput:
		return toValue(*t)
	case VerifyOutput:
		attrs := make([]any, len(t.Attributes))
		for i, a := range t.Attributes {
			attrs[i], _ = toValue(a)
		}
		m := map[string]any{"attributes": attrs}
		putStr(m, "error", t.Error)
		putStr(m, "unscored", t.Unscored)
		return m, true
	case Attribute:
		m := map[string]any{"attribute": t.Attribute, "actual": t.Actual, "expected": t.Expected,
			"is_correct": t.IsCorrect, "weight": t.Weight}
		if t.Diff != nil {
			m["diff"], _ = toValue(*t.Diff)
		}
		return m, true
	case *Diff:
		return toValue(*t)
	case Diff:
		m := map[string]any{"summary": t.Summary}
		if len(t.Entries) > 0 {
			es := make([]any, len(t.Entries))
			for i, e := range t.Entries {
				em := map[string]any{"path": e.Path, "op": e.Op}
				if e.Expected != nil {
					em["expected"] = e.Expected
				}
				if e.Actual != nil {
					em["actual"] = e.Actual
				}
				es[i] = em
			}
			m["entries"] = es
		}
		putStr(m, "unified", t.Unified)
		if t.Truncated {
			m["truncated"] = true
		}
		return m, true
	case *LoadOutput:
		return toValue(*t)
	case LoadOutput:
		cs := make([]any, len(t.Cases))
		for i, c := range t.Cases {
			cs[i], _ = toValue(c)
		}
		m := map[string]any{"cases": cs, "done": t.Done}
		putStr(m, "error", t.Error)
		return m, true
	case Case:
		args := t.Arguments
		if args == nil {
			args = []string{}
		}
		m := map[string]any{"id": t.ID, "arguments": args}
		putStr(m, "checkpoint", t.Checkpoint)
		putStr(m, "group", t.Group)
		putStr(m, "group_type", t.GroupType)
		if t.Stdin != nil {
			m["stdin"] = *t.Stdin
		}
		if len(t.Env) > 0 {
			m["env"] = t.Env
		}
		if len(t.InputFiles) > 0 {
			fs := make([]any, len(t.InputFiles))
			for i, f := range t.InputFiles {
				fm := map[string]any{"path": f.Path, "content": f.Content}
				putStr(fm, "encoding", f.Encoding)
				fs[i] = fm
			}
			m["input_files"] = fs
		}
		if len(t.TrackedFiles) > 0 {
			m["tracked_files"] = t.TrackedFiles
		}
		if len(t.Expected) > 0 {
			m["expected"] = t.Expected
		}
		if t.TimeoutS != 0 {
			m["timeout_s"] = t.TimeoutS
		}
		if t.Reset {
			m["reset"] = true
		}
		if len(t.Extra) > 0 {
			m["extra"] = t.Extra
		}
		return m, true
	case *EvaluateOutput:
		return toValue(*t)
	case EvaluateOutput:
		m := map[string]any{"score": t.Score}
		if t.Details != nil {
			m["details"] = t.Details
		}
		putStr(m, "error", t.Error)
		putStr(m, "unscored", t.Unscored)
		return m, true
	case *TestOutput:
		return toValue(*t)
	case TestOutput:
		m := map[string]any{"passed": t.Passed, "feedback": t.Feedback}
		if t.Details != nil {
			m["details"] = t.Details
		}
		putStr(m, "unscored", t.Unscored)
		return m, true
	case *SetupOutput:
		return setupValue(t), true
	case SetupOutput:
		return setupValue(&t), true
	case *Describe:
		return toValue(*t)
	case Describe:
		kinds := t.Kinds
		if kinds == nil {
			kinds = []string{}
		}
		m := map[string]any{"abi_version": t.ABIVersion, "name": t.Name, "version": t.Version, "kinds": kinds}
		if len(t.Functions) > 0 {
			m["functions"] = t.Functions
		}
		if t.Stateful {
			m["stateful"] = true
		}
		if len(t.Batch) > 0 {
			m["batch"] = t.Batch
		}
		if len(t.ConfigSchema) > 0 {
			schema, err := ParseJSON(t.ConfigSchema)
			if err != nil {
				return nil, false
			}
			m["config_schema"] = schema
		}
		putStr(m, "description", t.Description)
		putStr(m, "transport", t.Transport)
		if t.RawStrings {
			m["raw_strings"] = true
		}
		return m, true
	}
	return nil, false
}

func putStr(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}
