package agent

import "sort"

// Result is what an agent returned for one task, with its conversation
// normalised. Numbers inside free-form values (TaskResult, Sandbox, trace
// steps, tool arguments) are json.Number.
type Result struct {
	TaskName    string `json:"task_name,omitempty"`
	Instruction string `json:"instruction,omitempty"`
	// Status is the agent's own word for how the run ended ("completed",
	// "failed", "max_iterations", …); it is not checked against a list.
	Status     string `json:"status,omitempty"`
	Iterations int64  `json:"iterations"`
	// TaskResult is the agent's answer: any JSON value, nil when absent or
	// null. Answer decides what the answer is when it is empty.
	TaskResult     any          `json:"task_result"`
	Conversation   Conversation `json:"conversation"`
	ExecutionTrace []TraceStep  `json:"execution_trace"`
	// Sandbox says where the agent ran: any JSON value, usually an object.
	Sandbox any `json:"sandbox,omitempty"`
	// Usage is nil when the agent did not report it.
	Usage *Usage `json:"usage,omitempty"`
	// ElapsedSeconds is the agent's wall time; nil when not reported.
	ElapsedSeconds *float64 `json:"elapsed_seconds,omitempty"`
	// Extra holds top-level keys this package does not know, untouched.
	Extra map[string]any `json:"extra,omitempty"`
	// Warnings are things worth knowing that are not errors: a tool result
	// no call asks for, a call answered twice, arguments that are not JSON.
	// Each starts with the JSON path it is about.
	Warnings []string `json:"warnings,omitempty"`
}

// ExtraKeys lists the unknown top-level keys, sorted.
func (r *Result) ExtraKeys() []string {
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Usage is the tokens and money the agent spent, as it reported them.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// TotalTokens is as reported, or input plus output when not reported.
	TotalTokens int64 `json:"total_tokens"`
	// Cost is in US dollars; nil when not reported.
	Cost *float64 `json:"cost,omitempty"`
	// Extra holds other keys (cache tokens, …), untouched.
	Extra map[string]any `json:"extra,omitempty"`
}

// TraceStep is one step of the execution trace: what the agent did and
// what it got back. Both are any JSON value, usually strings.
type TraceStep struct {
	Action   any            `json:"action"`
	Feedback any            `json:"feedback"`
	Extra    map[string]any `json:"extra,omitempty"`
}

// The top-level keys this package reads.
var knownKeys = map[string]bool{
	"task_name": true, "instruction": true, "status": true, "iterations": true,
	"task_result": true, "conversation": true, "execution_trace": true,
	"sandbox": true, "usage": true, "elapsed_seconds": true,
}

func (d *decoder) result(top map[string]any) (*Result, error) {
	r := &Result{}
	var err error
	if r.TaskName, err = d.optString(top, "task_name", ""); err != nil {
		return nil, err
	}
	if r.Instruction, err = d.optString(top, "instruction", ""); err != nil {
		return nil, err
	}
	if r.Status, err = d.optString(top, "status", ""); err != nil {
		return nil, err
	}
	if r.Iterations, _, err = d.optCount(top, "iterations", ""); err != nil {
		return nil, err
	}
	r.TaskResult = top["task_result"]
	r.Sandbox = top["sandbox"]
	if f, ok, err := d.optNumber(top, "elapsed_seconds", ""); err != nil {
		return nil, err
	} else if ok {
		r.ElapsedSeconds = &f
	}
	if r.Usage, err = d.usage(top); err != nil {
		return nil, err
	}
	if r.ExecutionTrace, err = d.trace(top); err != nil {
		return nil, err
	}
	msgs, err := d.optList(top, "conversation", "")
	if err != nil {
		return nil, err
	}
	if r.Conversation, r.Warnings, err = d.conversation(msgs, "conversation"); err != nil {
		return nil, err
	}
	for k, v := range top {
		if !knownKeys[k] {
			if r.Extra == nil {
				r.Extra = map[string]any{}
			}
			r.Extra[k] = v
		}
	}
	return r, nil
}

func (d *decoder) usage(top map[string]any) (*Usage, error) {
	obj, err := d.optObject(top, "usage", "")
	if obj == nil || err != nil {
		return nil, err
	}
	p := path("usage")
	u := &Usage{}
	known := map[string]bool{}
	// OpenAI says prompt/completion tokens; either name is read.
	count := func(dst *int64, names ...string) error {
		for _, k := range names {
			known[k] = true
			n, ok, err := d.optCount(obj, k, p)
			if err != nil {
				return err
			}
			if ok {
				*dst = n
				return nil
			}
		}
		return nil
	}
	if err := count(&u.InputTokens, "input_tokens", "prompt_tokens"); err != nil {
		return nil, err
	}
	if err := count(&u.OutputTokens, "output_tokens", "completion_tokens"); err != nil {
		return nil, err
	}
	known["total_tokens"] = true
	if n, ok, err := d.optCount(obj, "total_tokens", p); err != nil {
		return nil, err
	} else if ok {
		u.TotalTokens = n
	} else {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	for _, k := range []string{"cost", "cost_usd"} {
		known[k] = true
		if f, ok, err := d.optNumber(obj, k, p); err != nil {
			return nil, err
		} else if ok && u.Cost == nil {
			u.Cost = &f
		}
	}
	for k, v := range obj {
		if !known[k] {
			if u.Extra == nil {
				u.Extra = map[string]any{}
			}
			u.Extra[k] = v
		}
	}
	return u, nil
}

func (d *decoder) trace(top map[string]any) ([]TraceStep, error) {
	list, err := d.optList(top, "execution_trace", "")
	if err != nil {
		return nil, err
	}
	steps := make([]TraceStep, 0, len(list))
	for i, v := range list {
		p := path("execution_trace").index(i)
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, d.typeErr(p, "an object with action and feedback", v)
		}
		st := TraceStep{Action: obj["action"], Feedback: obj["feedback"]}
		for k, v := range obj {
			if k != "action" && k != "feedback" {
				if st.Extra == nil {
					st.Extra = map[string]any{}
				}
				st.Extra[k] = v
			}
		}
		steps = append(steps, st)
	}
	return steps, nil
}
