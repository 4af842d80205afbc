package run

import (
	"context"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// Warnings are findings that do not stop a run or a validation but that
// its user should read, such as a plugin binding whose config keys
// cannot be checked. They travel in the context, so the commands that
// print them (run, validate) say where, and every caller of the loading
// functions need not.
type warnKey struct{}

// WithWarnings returns a context whose warnings go to warn.
func WithWarnings(ctx context.Context, warn func(*diag.Error)) context.Context {
	return context.WithValue(ctx, warnKey{}, warn)
}

// warn hands a warning to the context's receiver, if any.
func warn(ctx context.Context, file, key string, line int, format string, args ...any) {
	w, _ := ctx.Value(warnKey{}).(func(*diag.Error))
	if w == nil {
		return
	}
	var l diag.List
	l.Add(file, key, line, format, args...)
	w(l[0])
}
