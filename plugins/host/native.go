package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host/internal/preempt"
)

// The native transport (docs/plugin-abi.md, "Transports") is wasmeval's
// own: the host drives the module on wazero directly, with no Extism
// kernel on the call path. A call is three calls into the guest through
// function handles looked up once per instance — wasmeval_input(len)
// returns where the input goes, the kind export runs, wasmeval_output()
// returns where the output is — and one copy each way. Extism's SDK, by
// contrast, moves input and output through its kernel eight bytes per
// host call and looks each function up again on every call.

// Names of the native transport's exports and host module.
const (
	nativeInputExport  = "wasmeval_input"
	nativeOutputExport = "wasmeval_output"
	nativeHostModule   = "wasmeval"
)

// isNative says whether a module speaks the native transport: it exports
// both of its functions and imports nothing from Extism (a module that
// does needs Extism's kernel, so it runs through Extism whatever else it
// exports).
func (mi moduleInterface) isNative() bool {
	if !mi.exports[nativeInputExport] || !mi.exports[nativeOutputExport] {
		return false
	}
	for m := range mi.importModules {
		if strings.HasPrefix(m, "extism:") {
			return false
		}
	}
	return true
}

// nativeModule is a module compiled for the native transport, in a
// runtime of its own (WASI and the wasmeval host module instantiated
// once, shared by its instances).
type nativeModule struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	// preempted says the module runs with preemption points of its own
	// (internal/preempt) rather than wazero's termination checks.
	preempted bool
}

func (m *nativeModule) Close(ctx context.Context) error { return m.rt.Close(ctx) }

// instrument adds preemption points to a module (a variable so that
// tests can make it refuse one).
var instrument = preempt.Instrument

// compileNative compiles the module for the native transport, with
// termination checks or without, under the host's memory cap.
//
// Checked, the module is first given preemption points of its own
// (internal/preempt): a counter in compiled code, and a call out to the
// host only when it runs out, instead of wazero's checks, which leave
// compiled code at every loop iteration. A module the rewriter cannot read
// keeps wazero's checks: slower, as safe.
func (p *Plugin) compileNative(ctx context.Context, checked bool) (*nativeModule, error) {
	h := p.host
	data, wazeroChecks := p.data, checked
	if checked {
		if instrumented, err := instrument(p.data); err == nil {
			data, wazeroChecks = instrumented, false
		} else if h.opts.Log != nil {
			h.opts.Log(fileLabel(p.file, p.digest), "info",
				fmt.Sprintf("preemption points not added (%v): the plugin runs under wazero's termination checks", err))
		}
	}
	rc := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(wazeroChecks).
		WithMemoryLimitPages(uint32(h.opts.MemoryBytes / wasmPage))
	if h.cache != nil {
		rc = rc.WithCompilationCache(h.cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	if _, err := rt.NewHostModuleBuilder(nativeHostModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(h.nativeReadAsset),
		[]api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32},
		[]api.ValueType{api.ValueTypeI64}).Export("read_asset").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(nativeLog),
		[]api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32}, nil).Export("log").
		Instantiate(ctx); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("instantiate the wasmeval host module: %w", err)
	}
	preempted := checked && !wazeroChecks
	if preempted {
		if err := preempt.Instantiate(ctx, rt); err != nil {
			rt.Close(ctx)
			return nil, err
		}
	}
	compiled, err := rt.CompileModule(ctx, data)
	if err != nil {
		rt.Close(ctx)
		return nil, err
	}
	h.compiledHere.Add(1)
	for _, f := range compiled.ImportedFunctions() {
		m, _, _ := f.Import()
		if m == preempt.ImportModule && preempted {
			continue // the rewriter's own import
		}
		if m != wasi_snapshot_preview1.ModuleName && m != nativeHostModule {
			rt.Close(ctx)
			return nil, fmt.Errorf("a native-transport module imports only from %s and %s, not from %s",
				wasi_snapshot_preview1.ModuleName, nativeHostModule, m)
		}
	}
	return &nativeModule{rt: rt, compiled: compiled, preempted: preempted}, nil
}

// nativeInstance is one instance of a native-transport module with its
// function handles, looked up once: wazero builds a call engine (with its
// own stack) for every lookup, which would otherwise be paid per call.
type nativeInstance struct {
	mod    api.Module
	mem    api.Memory
	input  api.Function
	output api.Function
	fns    map[string]api.Function // describe and the kind exports present
	stack  []uint64
}

func (p *Plugin) newNativeInstance(ctx context.Context, mc wazero.ModuleConfig) (*nativeInstance, error) {
	// Anonymous, so instances of one module can live in one runtime; Go
	// and other reactor modules start with _initialize (a command's _start
	// would run its main and exit).
	mod, err := p.native.rt.InstantiateModule(ctx, p.native.compiled, mc.WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		return nil, err
	}
	ni := &nativeInstance{mod: mod, mem: mod.Memory(), input: mod.ExportedFunction(nativeInputExport),
		output: mod.ExportedFunction(nativeOutputExport), fns: map[string]api.Function{}, stack: make([]uint64, 2)}
	if ni.mem == nil || ni.input == nil || ni.output == nil {
		mod.Close(ctx)
		return nil, errors.New("a native-transport module exports its memory, wasmeval_input and wasmeval_output")
	}
	for _, name := range append([]string{abi.DescribeExport}, kindExports...) {
		if f := mod.ExportedFunction(name); f != nil {
			ni.fns[name] = f
		}
	}
	return ni, nil
}

// kindExports are the exports of the plugin kinds, in describe's order.
var kindExports = []string{"verify", "load_cases", "evaluate", "test", "setup", "mock"}

// call runs one export: the input into the guest, the export, the output
// back. err is what wazero reported (a trap, the module closed at its
// deadline); rc is the export's status. out aliases guest memory until the
// instance runs again.
func (ni *nativeInstance) call(ctx context.Context, export string, input []byte) (rc uint32, out []byte, err error) {
	fn, ok := ni.fns[export]
	if !ok { // an export outside the ABI's (tools and benchmarks call them)
		fn = ni.mod.ExportedFunction(export)
		ni.fns[export] = fn
	}
	if fn == nil {
		return 1, nil, fmt.Errorf("unknown function: %s", export)
	}
	st := ni.stack
	st[0] = uint64(len(input))
	if err := ni.input.CallWithStack(ctx, st); err != nil {
		return 0, nil, err
	}
	if len(input) > 0 && !ni.mem.Write(uint32(st[0]), input) {
		return 1, nil, fmt.Errorf("wasmeval_input returned %#x, outside memory, for %d bytes", uint32(st[0]), len(input))
	}
	if err := fn.CallWithStack(ctx, st); err != nil {
		return 0, nil, err
	}
	rc = uint32(st[0])
	if err := ni.output.CallWithStack(ctx, st); err != nil {
		return rc, nil, err
	}
	ptr, n := uint32(st[0]>>32), uint32(st[0])
	if n > MaxOutputBytes {
		return rc, nil, &outputTooLarge{}
	}
	out, ok = ni.mem.Read(ptr, n)
	if !ok {
		return rc, nil, fmt.Errorf("wasmeval_output returned %d bytes at %#x, outside memory", n, ptr)
	}
	return rc, out, nil
}

type outputTooLarge struct{}

func (*outputTooLarge) Error() string {
	return fmt.Sprintf("output larger than %d MiB", MaxOutputBytes>>20)
}

type callLogKey struct{}

// nativeReadAsset is read_asset(path_ptr, path_len, buf_ptr, buf_cap) ->
// i64: the asset's size, with its bytes written at buf_ptr when they fit
// in buf_cap (a guest with too small a buffer calls again with a larger
// one), or -1 when refused (the reason goes to the run log).
func (h *Host) nativeReadAsset(ctx context.Context, mod api.Module, stack []uint64) {
	scope, _ := ctx.Value(assetRootKey{}).(assetScope)
	pathPtr, pathLen, bufPtr, bufCap := uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])
	stack[0] = api.EncodeI64(-1)
	raw, ok := mod.Memory().Read(pathPtr, pathLen)
	if !ok {
		return
	}
	rel := string(raw)
	data, err := readAsset(scope, rel)
	if err == nil {
		stack[0] = uint64(len(data))
		if uint64(len(data)) <= uint64(bufCap) && !mod.Memory().Write(bufPtr, data) {
			err = fmt.Errorf("the buffer at %#x is outside memory", bufPtr)
			stack[0] = api.EncodeI64(-1)
		}
	}
	if err != nil && h.opts.Log != nil && scope.plugin != nil {
		h.opts.Log(scope.plugin.Label(), "warn", fmt.Sprintf("read_asset %q refused: %v", rel, err))
	}
}

// nativeLog is log(level, ptr, len): one line to the run log, within the
// call's limits. Levels are numbered as Extism's PDKs number them (0
// trace, 1 debug, 2 info, 3 warn, 4 error) and, as for Extism plugins,
// lines below info are dropped.
func nativeLog(ctx context.Context, mod api.Module, stack []uint64) {
	l, _ := ctx.Value(callLogKey{}).(*callLog)
	level := api.DecodeI32(stack[0])
	if l == nil || level < 2 {
		return
	}
	msg, ok := mod.Memory().Read(uint32(stack[1]), uint32(stack[2]))
	if !ok {
		return
	}
	l.write(extism.LogLevelInfo+extism.LogLevel(min(level, 4)-2), string(msg))
}

// callContext bounds a call (or a new instance's start) by the timeout when
// the module was compiled with termination checks; wazero then closes the
// module at the deadline. A worker's module has none: its parent kills it.
//
// A module with preemption points reads its deadline at its ticks
// (preempt.WithDeadline), with no timer to start and stop per call.
func (p *Plugin) callContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	switch {
	case p.native != nil && p.native.preempted:
		return preempt.WithDeadline(ctx, time.Now().Add(timeout)), func() {}
	case p.checked:
		return context.WithTimeout(ctx, timeout)
	}
	return ctx, func() {}
}

// callNative is Call on the native transport, with the same faults as the
// Extism path: a non-zero status is a reported failure whose message is
// the output; a trap, a deadline or a guest out of memory discards the
// instance.
func (p *Plugin) callNative(ctx context.Context, inst *instance, export string, input []byte, opts CallOptions) ([]byte, error) {
	callCtx := context.WithValue(ctx, assetRootKey{}, assetScope{assets: opts.Assets, max: p.host.opts.AssetBytes, plugin: p})
	callCtx = context.WithValue(callCtx, callLogKey{}, inst.log)
	limit := opts.timeout(p.host.opts.Timeout)
	callCtx, cancel := p.callContext(callCtx, limit)
	rc, out, err := inst.nat.call(callCtx, export, input)
	cancel()
	inst.log.finish(export)
	var tooLarge *outputTooLarge
	switch {
	case errors.As(err, &tooLarge):
		p.discard(inst)
		return nil, &Error{Plugin: p.Label(), Export: export, Fault: FaultEnvelope, Detail: err.Error()}
	case err != nil:
		fault := p.classify(inst, err, 0, limit)
		fault.Export = export
		if fault.Fault == FaultFailed {
			fault.Fault = FaultTrap // wazero's error, not the plugin's message
		}
		p.discard(inst)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fault
	case rc != 0:
		msg := string(out)
		if msg == "" {
			msg = fmt.Sprintf("returned status %d", rc)
		}
		p.release(inst)
		return nil, &Error{Plugin: p.Label(), Export: export, Fault: FaultFailed, Detail: msg}
	}
	if into := outputInto(ctx); into != nil {
		out = into(out)
	} else {
		out = bytes.Clone(out)
	}
	p.release(inst)
	return out, nil
}

// outputIntoKey carries, in a call's context, where its output goes
// (withOutputInto).
type outputIntoKey struct{}

// withOutputInto gives a call's output a home: into is handed the output
// while it still lies in the guest's memory (or in the memory a worker
// shares with the host) and returns the copy the call returns, so a worker
// that answers through shared memory, or a caller that reuses its buffers,
// copies the output once. Without it a call returns a copy of its own.
func withOutputInto(ctx context.Context, into func(out []byte) []byte) context.Context {
	return context.WithValue(ctx, outputIntoKey{}, into)
}

func outputInto(ctx context.Context) func([]byte) []byte {
	into, _ := ctx.Value(outputIntoKey{}).(func([]byte) []byte)
	return into
}
