package preempt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Instantiate adds the tick import to rt, for the instrumented modules it
// will run. Those must be compiled without wazero's termination checks
// (WithCloseOnContextDone(false)): the preemption points replace them.
func Instantiate(ctx context.Context, rt wazero.Runtime) error {
	_, err := rt.NewHostModuleBuilder(ImportModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(tick), nil, []api.ValueType{api.ValueTypeI32}).
		Export(ImportName).
		Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("instantiate %s: %w", ImportModule, err)
	}
	return nil
}

// tick runs once every Budget units of a guest's work. It refills the
// fuel while the call's context lasts and stops the call once it has
// ended, with the exit error wazero's own checks give, so a call stopped
// either way reads the same to its caller. Leaving compiled code for it is
// also what lets the Go runtime stop the thread for a garbage collection.
func tick(ctx context.Context, _ api.Module, stack []uint64) {
	if err := ctx.Err(); err != nil {
		code := sys.ExitCodeDeadlineExceeded
		if errors.Is(err, context.Canceled) {
			code = sys.ExitCodeContextCanceled
		}
		panic(sys.NewExitError(code))
	}
	if d, ok := ctx.Value(deadlineKey{}).(time.Time); ok && !time.Now().Before(d) {
		panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
	}
	stack[0] = Budget
}

type deadlineKey struct{}

// WithDeadline gives a call into an instrumented module a deadline that
// only its ticks read. It is what context.WithDeadline gives, without the
// timer that one starts and stops on every call (a call's timer cost
// about as much as a small call's host side): nothing needs waking at the
// deadline, since the guest asks at its next tick.
func WithDeadline(ctx context.Context, d time.Time) context.Context {
	return context.WithValue(ctx, deadlineKey{}, d)
}
