// Package tasks reads agent task directories — one directory per task,
// each holding a task.yaml with the instruction and metadata — and maps
// them onto the engine's model: one checkpoint, one group of isolated
// cases (a fresh sandbox per task), each case judged by the task's test
// function, a Wasm plugin with the `test` export pinned by sha256.
//
// The layout and every key are described in docs/agents.md, "Task
// directories". Nothing in the engine knows this format: the run sees a
// problem whose adapter is the agent adapter and whose cases come from
// the loader this package provides (Suite.Loader).
package tasks
