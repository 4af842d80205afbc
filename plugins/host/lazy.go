package host

import (
	"bytes"
	"context"
	"fmt"
	goruntime "runtime"
	"sync"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// A native-transport plugin that runs in process (isolation auto) and
// whose describe answer is in the describe cache is loaded without being
// compiled: rewriting a module for its preemption points, validating it
// and reading its code from wazero's cache cost milliseconds (tens for a
// Go guest's few megabytes), which a run answered wholly from the verdict
// cache never needs. It is compiled at its first call, as a worker
// process is started at its first call (worker.go).

// lazyCompile is the deferred compilation of a plugin loaded that way.
type lazyCompile struct {
	once sync.Once
	err  error
}

// loadNativeLazily loads a native module for in-process calls from the
// describe cache, or returns nil when the cache has no answer that passes.
func (h *Host) loadNativeLazily(file, digest string, data []byte) *Plugin {
	p := &Plugin{host: h, file: file, digest: digest, size: len(data), data: data, checked: true}
	if checkMagic(file, digest, data) != nil {
		return nil
	}
	raw := h.cachedDescribe(h.inProcessKey(digest))
	if raw == nil || !p.describeFromCache(raw) {
		return nil
	}
	h.describeHits.Add(1)
	p.lazy = &lazyCompile{}
	return p
}

// compileNow compiles a plugin loaded lazily, once; every call waits for
// it and gets its error. The module's own describe answer must be the one
// the plugin was loaded with: an entry that is not (written by hand, or by
// another wasmeval) is removed, and the plugin faults, as a worker's
// does (sameDescribe).
func (p *Plugin) compileNow(ctx context.Context) error {
	p.lazy.once.Do(func() {
		// Every later call shares the outcome: the first caller's
		// cancellation must not become theirs.
		ctx := context.WithoutCancel(ctx)
		native, err := p.compileNative(ctx, true)
		if err != nil {
			p.lazy.err = &Error{Plugin: p.Label(), Fault: FaultNotWasm, Detail: err.Error()}
			return
		}
		if !native.preempted {
			// The entry says this host rewrote the module before, and
			// it could not now (another wasmeval's entry, or a rewriter
			// that changed): this run's calls go under wazero's checks,
			// and without the entry the next run loads the module as
			// auto does any module (in worker processes, if refused).
			p.host.forgetDescribe(p.host.inProcessKey(p.digest))
		}
		p.native = native
		p.pool = make(chan *instance, 2*goruntime.GOMAXPROCS(0))
		inst, err := p.newInstance(ctx)
		if err != nil {
			p.lazy.err = p.instantiateError(p.Label(), "", err)
			return
		}
		out, err := p.callNative(ctx, inst, abi.DescribeExport, nil, CallOptions{})
		if err != nil {
			p.lazy.err = err
			return
		}
		if !bytes.Equal(out, p.describeRaw) {
			p.host.forgetDescribe(p.host.inProcessKey(p.digest))
			p.lazy.err = &Error{Plugin: p.Label(), Export: abi.DescribeExport, Fault: FaultEnvelope,
				Detail: fmt.Sprintf("the module's describe answer is not the one this plugin was loaded with from the describe cache (%s); the entry is removed, so the next run asks the plugin",
					p.host.describeDir())}
		}
	})
	return p.lazy.err
}
