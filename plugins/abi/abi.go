// Package abi defines the wasmeval plugin ABI: the exports each plugin kind
// provides and the JSON envelopes that cross the boundary. The normative
// description is docs/plugin-abi.md; the JSON Schemas in schema/ are what
// the host validates plugin output against.
//
// The package holds plain types only, so plugins written in Go (GOOS=wasip1)
// can import it too.
package abi

import "encoding/json"

// Version is the ABI version this package describes.
const Version = 1

// SupportedVersions are the ABI versions the host speaks.
var SupportedVersions = []int{1}

// Kinds of plugin and the export each provides.
const (
	KindVerifier  = "verifier"
	KindLoader    = "loader"
	KindEvaluator = "evaluator"
	KindTest      = "test"
	KindSetup     = "setup"
	KindMock      = "mock"
)

// Exports maps a kind to its export.
var Exports = map[string]string{
	KindVerifier:  "verify",
	KindLoader:    "load_cases",
	KindEvaluator: "evaluate",
	KindTest:      "test",
	KindSetup:     "setup",
	KindMock:      "mock",
}

// DescribeExport is the export every plugin provides.
const DescribeExport = "describe"

// Describe is what `describe` returns.
type Describe struct {
	ABIVersion int      `json:"abi_version"`
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Kinds      []string `json:"kinds"`
	// Functions lists the evaluator and setup functions the plugin
	// dispatches.
	Functions []string `json:"functions,omitempty"`
	// Stateful loaders compute cases from earlier results and are called
	// again, with the history, after every batch.
	Stateful bool `json:"stateful,omitempty"`
	// ConfigSchema is a JSON Schema for the `config` object.
	ConfigSchema json.RawMessage `json:"config_schema,omitempty"`
	Description  string          `json:"description,omitempty"`
	// Transport says how the exports exchange their envelopes: "extism"
	// (default: Extism input and output), "stdio" (the input on WASI
	// stdin, the output on stdout — one bulk copy each way, much faster
	// for large envelopes; describe still uses Extism) or "native"
	// (wasmeval's own, driven on wazero without Extism: every export,
	// describe included; see docs/plugin-abi.md).
	Transport string `json:"transport,omitempty"`
	// Batch lists the exports (verify, evaluate, test) that also have a
	// batch form, <export>_batch, answering many calls in one (see
	// BatchInput and docs/plugin-abi.md, "Batches").
	Batch []string `json:"batch,omitempty"`
	// RawStrings says the plugin's input decoding takes raw strings
	// (AppendRaw): on the native transport the host then writes long
	// strings of verify inputs raw instead of escaped (docs/plugin-abi.md,
	// "Raw strings"). Elsewhere it is ignored.
	RawStrings bool `json:"raw_strings,omitempty"`
}

// BatchSuffix makes a batch export's name from its export's: verify_batch.
const BatchSuffix = "_batch"

// Batchable are the exports that may have a batch form. load_cases has
// none: a stateful loader's calls depend on each other's results.
var Batchable = []string{"verify", "evaluate", "test"}

// BatchInput is the input of a batch export: each call is exactly the
// envelope a single call of the export would get.
type BatchInput struct {
	ABIVersion int               `json:"abi_version"`
	Calls      []json.RawMessage `json:"calls"`
}

// BatchOutput is the output of a batch export: one result per call, in
// the calls' order.
type BatchOutput struct {
	Results []BatchResult `json:"results"`
}

// BatchResult answers one call of a batch. Call is the call's position in
// BatchInput.Calls. Output is exactly the envelope the single call would
// have returned; Error, instead, the message of a single call that would
// have failed (returned non-zero).
type BatchResult struct {
	Call   int             `json:"call"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// Transports.
const (
	TransportExtism = "extism"
	TransportStdio  = "stdio"
	TransportNative = "native"
)

// Case is a test case as plugins see it.
type Case struct {
	ID           string            `json:"id"`
	Checkpoint   string            `json:"checkpoint,omitempty"`
	Group        string            `json:"group,omitempty"`
	GroupType    string            `json:"group_type,omitempty"`
	Arguments    []string          `json:"arguments"`
	Stdin        *string           `json:"stdin,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	InputFiles   []InputFile       `json:"input_files,omitempty"`
	TrackedFiles []string          `json:"tracked_files,omitempty"`
	Expected     map[string]any    `json:"expected,omitempty"`
	TimeoutS     float64           `json:"timeout_s,omitempty"`
	Reset        bool              `json:"reset,omitempty"`
	Extra        map[string]any    `json:"extra,omitempty"`
	// Request is an API case's HTTP request and Steps a browser case's
	// actions, in the case-file form (see docs/adapters.md).
	Request map[string]any `json:"request,omitempty"`
	Steps   []any          `json:"steps,omitempty"`
}

// InputFile is a file written before a case runs. Content is text, or
// base64 when Encoding is "base64".
type InputFile struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding,omitempty"`
}

// Actual is what a case produced.
type Actual struct {
	StatusCode int `json:"status_code"`
	// Output is stdout (CLI) or the response body (API).
	Output string `json:"output"`
	Stderr string `json:"stderr"`
	// Files maps tracked file path → content: a string when the file is
	// UTF-8, bytes otherwise (base64 in JSON).
	Files map[string]any `json:"files,omitempty"`
	// Headers are the response headers of an API case, by lower-case
	// name (repeated headers joined with ", ").
	Headers  map[string]string `json:"headers,omitempty"`
	TimedOut bool              `json:"timed_out"`
	// MockCalls are the requests the problem's mock services received
	// during the case (see MockCall).
	MockCalls []MockCall `json:"mock_calls,omitempty"`
}

// VerifyInput is the input of `verify`.
type VerifyInput struct {
	ABIVersion int            `json:"abi_version"`
	Config     map[string]any `json:"config"`
	Case       Case           `json:"case"`
	Actual     Actual         `json:"actual"`
	Expected   map[string]any `json:"expected"`
}

// Attribute is one attribute verdict, the same shape built-in checks give.
type Attribute struct {
	Attribute string  `json:"attribute"`
	Actual    any     `json:"actual"`
	Expected  any     `json:"expected"`
	Diff      *Diff   `json:"diff,omitempty"`
	IsCorrect bool    `json:"is_correct"`
	Weight    float64 `json:"weight"`
}

// Diff is a structured, readable difference: a one-line summary plus the
// individual differences, each with a path and the two values.
type Diff struct {
	Summary string      `json:"summary"`
	Entries []DiffEntry `json:"entries,omitempty"`
	// Unified is a unified text diff for text comparisons, empty otherwise.
	Unified string `json:"unified,omitempty"`
	// Truncated is set when more entries existed than were kept.
	Truncated bool `json:"truncated,omitempty"`
}

// MaxDiffEntries caps the entries a diff keeps, a built-in check's or a
// plugin's: the rest are counted in the summary and the diff is marked
// truncated, so one wildly wrong output cannot produce a report nobody can
// open.
const MaxDiffEntries = 50

// DiffEntry is one difference at one location.
type DiffEntry struct {
	// Path locates the difference: a JSON path like "$.items[2].name", a
	// line like "line 3" (of the expected text), or "$[4].id" for record 4
	// of JSON Lines.
	Path string `json:"path"`
	// Op is "changed", "missing" (expected but absent), "extra" (present but
	// not expected), "type" (different JSON types) or "mismatch".
	Op       string `json:"op"`
	Expected any    `json:"expected,omitempty"`
	Actual   any    `json:"actual,omitempty"`
}

// VerifyOutput is the output of `verify`. Error, when set, is a verdict the
// plugin reached deliberately ("cannot verify: output is not a table"): the
// case fails with that message; it is not a plugin fault. Unscored, when
// set, says why the plugin cannot judge this case at all (no reference
// answer, a case outside what it checks): the case is unscored — neither
// passed nor failed, and left out of every denominator.
type VerifyOutput struct {
	Attributes []Attribute `json:"attributes"`
	Error      string      `json:"error,omitempty"`
	Unscored   string      `json:"unscored,omitempty"`
}

// GroupInfo describes the group a loader is asked for. Checkpoint and
// Group are the group being run; OriginCheckpoint and OriginGroup are the
// checkpoint and group whose cases these are — the earlier ones for a
// regression group, Checkpoint and CaseGroup otherwise — and Dir is that
// group's case directory relative to the problem directory, with `/`
// separators, as read_asset takes it (empty when the cases live outside
// the problem directory).
type GroupInfo struct {
	Checkpoint string   `json:"checkpoint"`
	Group      string   `json:"group"`
	GroupType  string   `json:"group_type"`
	CaseGroup  string   `json:"case_group"`
	CaseOrder  []string `json:"case_order,omitempty"`
	TimeoutS   float64  `json:"timeout_s"`
	// OriginCheckpoint is the checkpoint whose cases the group runs: the
	// earlier checkpoint for a regression group, Checkpoint otherwise.
	OriginCheckpoint string `json:"origin_checkpoint,omitempty"`
	// OriginGroup is the group of OriginCheckpoint whose cases the group
	// runs: the earlier group for a regression group, CaseGroup (the
	// group's own name) otherwise.
	OriginGroup string `json:"origin_group,omitempty"`
	// Dir is the origin group's case directory relative to the problem
	// directory, with `/` separators ("c1/core"; a group file is Dir plus
	// ".yaml", ".yml" or ".json"), the path read_asset takes; empty when
	// it is outside the problem directory.
	Dir string `json:"dir,omitempty"`
}

// Outcome is an earlier case with its actual result.
type Outcome struct {
	Case   Case   `json:"case"`
	Actual Actual `json:"actual"`
}

// LoadInput is the input of `load_cases`.
type LoadInput struct {
	ABIVersion int            `json:"abi_version"`
	Config     map[string]any `json:"config"`
	Group      GroupInfo      `json:"group"`
	// History holds every case of the group run so far, in order.
	History []Outcome `json:"history"`
	// Seed is the run's --seed, for loaders that generate cases; absent
	// when the run has none. Within ±2^53, so it is exact as a JSON number.
	Seed *int64 `json:"seed,omitempty"`
}

// LoadOutput is the output of `load_cases`: the next cases, and whether the
// group is complete. A stateless loader returns every case with done=true.
type LoadOutput struct {
	Cases []Case `json:"cases"`
	Done  bool   `json:"done"`
	Error string `json:"error,omitempty"`
}

// EvaluateInput is the input of `evaluate`: a named function with its
// arguments, plus the case context it is evaluated in.
type EvaluateInput struct {
	ABIVersion int            `json:"abi_version"`
	Config     map[string]any `json:"config"`
	Function   string         `json:"function"`
	Arguments  map[string]any `json:"arguments"`
	Case       *Case          `json:"case,omitempty"`
	Actual     *Actual        `json:"actual,omitempty"`
	Expected   map[string]any `json:"expected,omitempty"`
}

// EvaluateOutput is the output of `evaluate`: a score in [0,1].
type EvaluateOutput struct {
	Score   float64 `json:"score"`
	Details any     `json:"details,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Unscored: as VerifyOutput's; the score is then not counted.
	Unscored string `json:"unscored,omitempty"`
}

// Message is one turn of an agent's conversation, as the engine
// normalised it (docs/agents.md): every message of the agent's result
// becomes one Message, whatever dialect it was written in.
type Message struct {
	Role string `json:"role"`
	// Content is the message's text; for an OpenAI role "tool" message,
	// the tool's result.
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Name is OpenAI's participant name; for a role "tool" message, the
	// name of the tool whose result it carries.
	Name string `json:"name,omitempty"`
	// ToolCallID is, on a role "tool" message, the id of the call it
	// answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolResults are the tool results the message carries: one for an
	// OpenAI role "tool" message, any number for an Anthropic user
	// message with tool_result blocks.
	ToolResults []ToolResult `json:"tool_results,omitempty"`
}

// ToolCall is a tool invocation inside a message.
type ToolCall struct {
	// ID is the call's id ("call_…", "toolu_…"); empty when the agent
	// gave none.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments are the parsed arguments, usually an object; when they
	// are not JSON, their text (and ArgumentsError says so).
	Arguments any `json:"arguments"`
	// RawArguments is the arguments' text as the agent wrote it, or
	// compact JSON for arguments written as an object.
	RawArguments string `json:"raw_arguments,omitempty"`
	// ArgumentsError says why RawArguments is not JSON; empty when it is.
	ArgumentsError string `json:"arguments_error,omitempty"`
}

// ToolResult is what a tool returned for one call.
type ToolResult struct {
	// ToolCallID is the id of the call answered.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name: the answered call's, else the message's.
	Name string `json:"name,omitempty"`
	// Content is the result's text.
	Content string `json:"content"`
	// JSON is Content parsed, when Content is one JSON value (and not
	// null).
	JSON    any  `json:"json,omitempty"`
	IsError bool `json:"is_error,omitempty"`
}

// The rules that find an agent's answer, in the order they are tried
// (docs/agents.md, "The answer").
const (
	RuleTaskResult   = "task_result"
	RuleTaskComplete = "task_complete"
	RuleAnswerTag    = "answer_tag"
	RuleJSONBlock    = "json_block"
	RuleFinalReply   = "final_reply"
	RuleNone         = "none"
)

// AnswerRules lists the rules, in the order they are tried, RuleNone last.
var AnswerRules = []string{RuleTaskResult, RuleTaskComplete, RuleAnswerTag, RuleJSONBlock, RuleFinalReply, RuleNone}

// Answer is the agent's answer and the rule that found it.
type Answer struct {
	// Value is the answer: any JSON value for task_result, task_complete
	// and json_block, a string for answer_tag and final_reply, null for
	// none.
	Value any `json:"value"`
	// Rule is one of AnswerRules.
	Rule string `json:"rule"`
}

// Found reports whether a rule found an answer.
func (a Answer) Found() bool { return a.Rule != "" && a.Rule != RuleNone }

// Usage is the tokens and money an agent spent, as it reported them.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	TotalTokens  int `json:"total_tokens"`
	// Cost is in US dollars; 0 when not reported.
	Cost float64 `json:"cost,omitempty"`
}

// AgentRun is the result of an agent run that a test function judges.
type AgentRun struct {
	TaskResult     any       `json:"task_result"`
	Conversation   []Message `json:"conversation"`
	ExecutionTrace []any     `json:"execution_trace"`
	Status         string    `json:"status"`
	Instruction    string    `json:"instruction"`
	Iterations     int       `json:"iterations"`
	Sandbox        any       `json:"sandbox,omitempty"`
	TaskName       string    `json:"task_name,omitempty"`
	// Answer is the answer the engine found by its one rule. Hosts before
	// it was added leave it out: the SDKs then find it by the same rule.
	Answer *Answer `json:"answer,omitempty"`
	// Usage is nil when the agent did not report it.
	Usage *Usage `json:"usage,omitempty"`
	// ElapsedSeconds is the agent's wall time; 0 when not reported.
	ElapsedSeconds float64 `json:"elapsed_seconds,omitempty"`
}

// TestInput is the input of `test`.
type TestInput struct {
	ABIVersion int            `json:"abi_version"`
	Config     map[string]any `json:"config"`
	Result     AgentRun       `json:"result"`
}

// TestOutput is the output of `test`.
type TestOutput struct {
	Passed   bool   `json:"passed"`
	Feedback string `json:"feedback"`
	Details  any    `json:"details,omitempty"`
	// Unscored: as VerifyOutput's; Passed is then not counted.
	Unscored string `json:"unscored,omitempty"`
}
