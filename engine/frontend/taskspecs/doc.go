// Package taskspecs reads task-spec JSON trees — the per-task specs of
// computer-use and notebook agent benchmarks, laid out as
// <tool>/<task id>/<task id>.json with the task's files beside them —
// and maps them onto the engine's model: one checkpoint, one group per
// tool directory, one agent case per task. A spec's setup functions
// (`config`, and the evaluation's `postconfig`) become setup steps in the
// sandbox, and its evaluation functions, dispatched by name, become an
// evaluators check whose calls go to the evaluator plugins the suite
// binds (the standard library, plugins/stdlib, among them).
//
// docs/task-specs.md describes the format as read, the built-in setup
// functions, the getters and summary.json.
package taskspecs
