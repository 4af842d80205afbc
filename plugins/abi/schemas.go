package abi

import "embed"

// Schemas holds the JSON Schema of every envelope, by name:
// schema/<name>.json with name one of describe, verify_input,
// verify_output, load_input, load_output, evaluate_input, evaluate_output,
// test_input, test_output, setup_input, setup_output, batch_input,
// batch_output.
//
//go:embed schema/*.json
var Schemas embed.FS
