package journal

import (
	"reflect"
	"slices"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// fastCodec says whether the record's types are still those fastdecode.go
// and fastencode.go were written for: the same fields, with the same JSON
// tags, in the same order. A field added, renamed or retagged without them
// sends every record through encoding/json again (slower, never wrong)
// rather than one of its values being lost; their tests then fail.
var fastCodec = sameFields(reflect.TypeFor[result.CaseRecord](),
	`json:"problem"`, `json:"problem_version"`, `json:"checkpoint"`, `json:"version"`, `json:"group"`, `json:"group_type"`,
	`json:"id"`, `json:"epoch,omitempty"`, `json:"attempt,omitempty"`, `json:"index"`, `json:"original_checkpoint,omitempty"`, `json:"original_group,omitempty"`, `json:"started_at"`,
	`json:"duration_s"`, `json:"case,omitempty"`, `json:"result"`, `json:"attributes"`, `json:"score"`, `json:"passed"`,
	`json:"outcome,omitempty"`, `json:"error_kind,omitempty"`, `json:"unscored,omitempty"`) &&
	sameFields(reflect.TypeFor[result.CaseInfo](),
		`json:"arguments"`, `json:"stdin,omitempty"`, `json:"env,omitempty"`, `json:"input_files,omitempty"`,
		`json:"timeout_s,omitempty"`, `json:"reset,omitempty"`, `json:"source,omitempty"`, `json:"instruction,omitempty"`,
		`json:"category,omitempty"`, `json:"tags,omitempty"`, `json:"apps,omitempty"`) &&
	sameFields(reflect.TypeFor[result.Execution](),
		`json:"command,omitempty"`, `json:"status_code"`, `json:"output"`, `json:"stderr"`, `json:"output_dropped,omitempty"`,
		`json:"stderr_dropped,omitempty"`, `json:"elapsed_s"`, `json:"timed_out"`, `json:"signal,omitempty"`, `json:"files,omitempty"`,
		`json:"headers,omitempty"`, `json:"artifacts,omitempty"`, `json:"server_startup_s,omitempty"`,
		`json:"mock_calls,omitempty"`, `json:"mock_calls_dropped,omitempty"`, `json:"mock_error,omitempty"`, `json:"adapter_error"`, `json:"error,omitempty"`,
		`json:"plugin_error,omitempty"`, `json:"oom_killed,omitempty"`, `json:"agent,omitempty"`) &&
	sameFields(reflect.TypeFor[verify.AttributeResult](),
		`json:"attribute"`, `json:"actual"`, `json:"expected"`, `json:"diff,omitempty"`, `json:"is_correct"`, `json:"weight"`,
		`json:"check,omitempty"`) &&
	sameFields(reflect.TypeFor[storedAttribute](), ``, `json:"actual_from,omitempty"`) &&
	sameFields(reflect.TypeFor[verify.Diff](),
		`json:"summary"`, `json:"entries,omitempty"`, `json:"unified,omitempty"`, `json:"truncated,omitempty"`) &&
	sameFields(reflect.TypeFor[verify.DiffEntry](),
		`json:"path"`, `json:"op"`, `json:"expected,omitempty"`, `json:"actual,omitempty"`)

// sameFields says whether t's fields carry these tags, in order.
func sameFields(t reflect.Type, tags ...string) bool {
	var got []string
	for i := 0; i < t.NumField(); i++ {
		got = append(got, string(t.Field(i).Tag))
	}
	return slices.Equal(got, tags)
}
