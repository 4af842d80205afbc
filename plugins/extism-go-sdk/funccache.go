package extism

// wasmeval patch (see PATCHES.md): wazero builds a new call engine, with its
// own stack, every time ExportedFunction is called, and the upstream SDK
// calls it on every plugin call (reset, alloc, input_set, the export,
// error_get, output_offset, output_length) and on every guest→host kernel
// call (load_u8, store_u64, …). A plugin instance is used by one goroutine
// at a time, so its functions can be looked up once and kept.

import (
	"context"

	"github.com/tetratelabs/wazero/api"
)

// funcCache holds the looked-up exports of one plugin instance.
type funcCache struct {
	kernelModule api.Module
	kernel       map[string]api.Function
	main         map[string]api.Function
}

type funcCacheKey struct{}

func (p *Plugin) cache() *funcCache {
	if p.funcs == nil {
		p.funcs = &funcCache{kernelModule: p.extism, kernel: map[string]api.Function{}, main: map[string]api.Function{}}
	}
	return p.funcs
}

func lookup(m api.Module, cache map[string]api.Function, name string) api.Function {
	if f, ok := cache[name]; ok {
		return f
	}
	f := m.ExportedFunction(name)
	if f != nil {
		cache[name] = f
	}
	return f
}

// kernelFunc returns the kernel's export name.
func (p *Plugin) kernelFunc(name string) api.Function {
	return lookup(p.extism, p.cache().kernel, name)
}

// mainFunc returns the main module's export name.
func (p *Plugin) mainFunc(name string) api.Function {
	return lookup(p.mainModule, p.cache().main, name)
}

// kernelFuncFrom serves a guest→host kernel call from the calling
// instance's cache when the call came through CallWithContext.
func kernelFuncFrom(ctx context.Context, kernel api.Module, name string) api.Function {
	if c, ok := ctx.Value(funcCacheKey{}).(*funcCache); ok && c.kernelModule == kernel {
		return lookup(kernel, c.kernel, name)
	}
	return kernel.ExportedFunction(name)
}
