// Package evalcases reads eval-case datasets — one JSON file holding a
// list of cases, each a query for an agent with what its reply must
// show (tools called, phrases, a disclaimer, tool outputs) — and maps
// them onto the engine's model: one checkpoint, one group, one case per
// entry, each entry's expectations as built-in checks of the agent's
// result (engine/verify: tools, contains-any, flags, tool-output).
//
// A dataset is accepted unchanged when named directly; a small YAML
// config can name it with the agent and options. docs/agents.md, "Eval-
// case datasets", describes both.
package evalcases
