package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/abi/abischema"
	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

// Plugin is a compiled, checked plugin. It is safe for concurrent use:
// every call takes an instance from the pool and returns it afterwards.
type Plugin struct {
	host     *Host
	file     string
	digest   string
	size     int
	data     []byte
	describe abi.Describe
	exports  []string
	// label is Label's answer once the plugin is loaded (its describe
	// no longer changes): every verdict names it, a cache hit included.
	label string
	// describeRaw is the describe answer as the plugin gave it (what the
	// describe cache keeps).
	describeRaw []byte

	// compiled is the module and pool its instances. In process the module
	// is compiled with termination checks (a check at every loop header)
	// so a runaway call can be stopped at its timeout: a call left running
	// unchecked could never be preempted and would stall the Go runtime's
	// garbage collector. A worker process compiles it without (see
	// worker.go and docs/plugin-abi.md, "Isolation").
	compiled *extism.CompiledPlugin
	pool     chan *instance
	// native is the module compiled for the native transport (native.go),
	// driven on wazero directly; compiled is nil then.
	native  *nativeModule
	checked bool // compiled with termination checks: calls get a deadline
	// workers run the plugin in child processes instead (Isolation
	// "process"); compiled and pool are nil then. module holds the
	// module's bytes for them (see moduleFile), when the system has it.
	workers    chan *worker
	moduleOnce sync.Once
	module     *os.File
	// misdescribed is the fault of a plugin whose first worker described
	// it otherwise than the describe cache did (sameDescribe).
	misdescribed atomic.Pointer[Error]
	// lazy is set on a plugin loaded from the describe cache to run in
	// process, compiled at its first call (lazy.go).
	lazy *lazyCompile

	created   atomic.Int64 // instances created, for tests and inspection
	discarded atomic.Int64
	batches   atomic.Int64 // batch calls answered
	coalesce  coalescer    // verify calls waiting to go as a batch
}

// File, Digest, Size and Describe identify the plugin.
func (p *Plugin) File() string            { return p.file }
func (p *Plugin) Digest() string          { return p.digest }
func (p *Plugin) Size() int               { return p.size }
func (p *Plugin) Describe() abi.Describe  { return p.describe }
func (p *Plugin) Exports() []string       { return p.exports }
func (p *Plugin) InstancesCreated() int64 { return p.created.Load() }

// Label names the plugin in messages: its name and digest prefix.
func (p *Plugin) Label() string {
	if p.label != "" {
		return p.label
	}
	name := p.describe.Name
	if name == "" {
		name = filepath.Base(p.file)
	}
	return name + "@" + p.digest[:12]
}

// HasKind reports whether the plugin declares a kind.
func (p *Plugin) HasKind(kind string) bool { return slices.Contains(p.describe.Kinds, kind) }

// instance is one instantiated module with its own memory.
type instance struct {
	p      *extism.Plugin
	nat    *nativeInstance // instead of p, on the native transport
	stderr *stderrBuffer
	clock  *callClock
	// stdin and stdout carry envelopes for plugins on the stdio transport.
	stdin  *bytes.Reader
	stdout *capBuffer
	mem    *instanceMemory
	log    *callLog
}

// close closes the module instance and releases its linear memory.
func (inst *instance) close() {
	if inst.nat != nil {
		inst.nat.mod.Close(context.Background())
	} else {
		inst.p.Close(context.Background())
	}
	inst.mem.free()
}

// hasExport says whether the instance's module exports a function.
func (inst *instance) hasExport(name string) bool {
	if inst.nat != nil {
		return inst.nat.mod.ExportedFunction(name) != nil
	}
	return inst.p.FunctionExists(name)
}

func (h *Host) compile(ctx context.Context, file, digest string, data []byte, checked bool) (*Plugin, error) {
	p := &Plugin{host: h, file: file, digest: digest, size: len(data), data: data}
	label := fileLabel(file, digest)
	if err := checkMagic(file, digest, data); err != nil {
		return nil, err
	}
	iface, err := readInterface(data)
	if err != nil {
		return nil, &Error{Plugin: label, Fault: FaultNotWasm, Detail: err.Error()}
	}
	if err := iface.checkImports(); err != nil {
		return nil, &Error{Plugin: label, Fault: FaultImport, Detail: err.Error()}
	}
	p.checked = checked
	var compiled interface{ Close(context.Context) error }
	if iface.isNative() {
		p.native, err = p.compileNative(ctx, checked)
		compiled = p.native
	} else {
		p.compiled, err = p.compileModule(ctx, checked)
		compiled = p.compiled
	}
	if err != nil {
		if strings.Contains(err.Error(), "section memory") && strings.Contains(err.Error(), "over limit") {
			// The module declares more initial memory than the cap allows.
			return nil, &Error{Plugin: label, Fault: FaultMemory,
				Detail: fmt.Sprintf("the module needs more linear memory than the %s cap to start (%v)", sizeLabel(h.opts.MemoryBytes), err)}
		}
		return nil, &Error{Plugin: label, Fault: FaultNotWasm, Detail: err.Error()}
	}
	p.pool = make(chan *instance, 2*goruntime.GOMAXPROCS(0))
	inst, err := p.newInstance(ctx)
	if err != nil {
		compiled.Close(ctx)
		return nil, p.instantiateError(label, "", err)
	}
	p.exports = exportsOf(inst.hasExport)
	if !inst.hasExport(abi.DescribeExport) {
		inst.close()
		compiled.Close(ctx)
		return nil, &Error{Plugin: label, Export: abi.DescribeExport, Fault: FaultMissingExport,
			Detail: "every wasmeval plugin exports describe (see docs/plugin-abi.md)"}
	}
	p.pool <- inst
	out, err := p.Call(ctx, abi.DescribeExport, nil, CallOptions{})
	if err != nil {
		p.close()
		return nil, err
	}
	if err := p.acceptDescribe(label, out, p.native != nil, inst.hasExport); err != nil {
		p.close()
		return nil, err
	}
	// Kept as the plugin answered, for the describe cache (describecache.go).
	p.describeRaw = bytes.Clone(out)
	return p, nil
}

// exportNames are the exports a plugin is asked for, in the order
// Exports lists them.
var exportNames = []string{abi.DescribeExport, "verify", "load_cases", "evaluate", "test", "setup", "mock",
	"verify" + abi.BatchSuffix, "evaluate" + abi.BatchSuffix, "test" + abi.BatchSuffix}

// exportsOf lists the exportNames a module has.
func exportsOf(has func(string) bool) []string {
	var out []string
	for _, name := range exportNames {
		if has(name) {
			out = append(out, name)
		}
	}
	return out
}

// acceptDescribe checks a describe answer, out, against the ABI and
// against the module it describes (native: whether the module speaks the
// native transport; has: whether it exports a function) and keeps it as
// the plugin's describe. A fresh answer and one read from the describe
// cache go through it alike, so an entry can claim nothing a plugin could
// not.
func (p *Plugin) acceptDescribe(label string, out []byte, native bool, has func(string) bool) error {
	_, schema := EnvelopeSchemas(abi.DescribeExport)
	p.describe = abi.Describe{}
	if err := checkEnvelope(label, abi.DescribeExport, schema, out, &p.describe); err != nil {
		return err
	}
	if !slices.Contains(abi.SupportedVersions, p.describe.ABIVersion) {
		return &Error{Plugin: label, Export: abi.DescribeExport, Fault: FaultABI,
			Detail: fmt.Sprintf("the plugin speaks ABI %d; this wasmeval speaks %s", p.describe.ABIVersion, versions())}
	}
	if native != (p.describe.Transport == abi.TransportNative) {
		detail := fmt.Sprintf("describe says transport %q, but the module exports %s and %s and imports nothing from Extism, which makes it native",
			p.describe.Transport, nativeInputExport, nativeOutputExport)
		if !native {
			detail = fmt.Sprintf("describe says transport native, but the module does not speak it (it needs exports %s and %s, and no imports from Extism)",
				nativeInputExport, nativeOutputExport)
		}
		return &Error{Plugin: p.Label(), Export: abi.DescribeExport, Fault: FaultEnvelope, Detail: detail}
	}
	for _, k := range p.describe.Kinds {
		if exp := abi.Exports[k]; !has(exp) {
			return &Error{Plugin: p.Label(), Export: exp, Fault: FaultMissingExport,
				Detail: fmt.Sprintf("describe claims kind %s, which needs export %s", k, exp)}
		}
	}
	// A batch form claimed but not there would fail every batch call; the
	// plugin is refused now, as for a lie about its transport.
	for _, exp := range p.describe.Batch {
		if !slices.ContainsFunc(p.describe.Kinds, func(k string) bool { return abi.Exports[k] == exp }) {
			return &Error{Plugin: p.Label(), Export: exp + abi.BatchSuffix, Fault: FaultEnvelope,
				Detail: fmt.Sprintf("describe lists %s under batch, but the plugin serves no kind with export %s (its kinds: %v)", exp, exp, p.describe.Kinds)}
		}
		if !has(exp + abi.BatchSuffix) {
			return &Error{Plugin: p.Label(), Export: exp + abi.BatchSuffix, Fault: FaultMissingExport,
				Detail: fmt.Sprintf("describe lists %s under batch, which needs export %s", exp, exp+abi.BatchSuffix)}
		}
	}
	return nil
}

// compileModule compiles the module, with termination checks or without.
func (p *Plugin) compileModule(ctx context.Context, checked bool) (*extism.CompiledPlugin, error) {
	h := p.host
	rc := wazero.NewRuntimeConfig()
	if h.cache != nil {
		rc = rc.WithCompilationCache(h.cache)
	}
	manifest := extism.Manifest{
		Wasm: []extism.Wasm{extism.WasmData{Data: p.data}},
		// No allowed hosts and no paths: no network, no filesystem.
		Memory: &extism.ManifestMemory{MaxPages: uint32(h.opts.MemoryBytes / 65536), MaxVarBytes: 1 << 20},
	}
	if checked {
		// A timeout makes Extism compile with termination checks and
		// close the module when the call's context ends.
		manifest.Timeout = uint64(h.opts.Timeout.Milliseconds())
	}
	return extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		RuntimeConfig: rc, EnableWasi: true,
	}, h.hostFunctions())
}

// fileLabel names a plugin by file and digest prefix before its describe
// has been read.
func fileLabel(file, digest string) string { return filepath.Base(file) + "@" + digest[:12] }

// checkMagic refuses what is not a Wasm module before wazero sees it, with
// a message that says so plainly.
func checkMagic(file, digest string, data []byte) error {
	if len(data) < 8 || !bytes.Equal(data[:4], []byte("\x00asm")) {
		return &Error{Plugin: fileLabel(file, digest), Fault: FaultNotWasm, Detail: "the file does not start with the Wasm magic number"}
	}
	return nil
}

func versions() string {
	var s []string
	for _, v := range abi.SupportedVersions {
		s = append(s, fmt.Sprint(v))
	}
	return strings.Join(s, ", ")
}

// newInstance instantiates the module in the sandbox. wazero's defaults are
// the sandbox: no filesystem, no environment, no arguments, a fixed wall
// clock, a fake monotonic clock and a deterministic random source, so the
// same input always gives the same output.
func (p *Plugin) newInstance(ctx context.Context) (*instance, error) {
	stderr := newStderrBuffer(32<<10, 32<<10)
	stdout := &capBuffer{max: MaxOutputBytes + 1}
	stdin := bytes.NewReader(nil)
	clock := &callClock{}
	clock.reset()
	mc := wazero.NewModuleConfig().WithStdin(stdin).WithStdout(stdout).WithStderr(stderr).
		WithWalltime(clock.walltime, sys.ClockResolution(1)).
		WithNanotime(clock.nanotime, sys.ClockResolution(1)).
		WithNanosleep(clock.nanosleep).
		WithRandSource(clock)
	mem := &instanceMemory{}
	if p.native != nil {
		ictx, cancel := p.callContext(mem.context(ctx), p.host.opts.Timeout)
		defer cancel()
		ni, err := p.newNativeInstance(ictx, mc)
		if err != nil {
			mem.free()
			return nil, err
		}
		p.created.Add(1)
		return &instance{nat: ni, stderr: stderr, clock: clock, stdin: stdin, stdout: stdout, mem: mem, log: newCallLog(p)}, nil
	}
	ep, err := p.compiled.Instance(mem.context(ctx), extism.PluginInstanceConfig{ModuleConfig: mc})
	if err != nil {
		mem.free()
		return nil, err
	}
	p.created.Add(1)
	// Run the guest's initialisation now (Extism does it lazily on the
	// first call), so the first real call starts from the same state as
	// every later one.
	if ep.FunctionExists(abi.DescribeExport) {
		if _, _, err := ep.CallWithContext(ctx, abi.DescribeExport, nil); err != nil {
			ep.Close(ctx)
			mem.free()
			return nil, err
		}
	}
	log := newCallLog(p)
	ep.SetLogger(log.write)
	return &instance{p: ep, stderr: stderr, clock: clock, stdin: stdin, stdout: stdout, mem: mem, log: log}, nil
}

// CallOptions scope one call.
type CallOptions struct {
	// Assets is what read_asset reads from (the engine gives the problem's
	// files); nil means the plugin can read no assets.
	Assets Assets
	// Cache answers verify, evaluate and test calls made before with the
	// same module, input and asset files, and keeps the answers of the
	// calls made (see callcache.go); nil: every call is made.
	Cache CallCache

	// calls is how many calls a batch call makes at once: its timeout is
	// the per-call timeout times that many, up to maxBatchTimeouts.
	calls int
	// noLookup: the call was looked up already (a call of a batch made
	// alone); its answer is still kept.
	noLookup bool
}

// timeout is the call's time limit.
func (o CallOptions) timeout(perCall time.Duration) time.Duration {
	return perCall * time.Duration(min(max(o.calls, 1), maxBatchTimeouts))
}

// maxBatchTimeouts caps a batch's time limit at this many per-call
// timeouts, however many calls it holds. A batch that runs out of time is
// made again one call at a time, each with its own limit: so one call
// that loops costs about this many timeouts more than it would alone,
// not one per call of its batch (256 calls at 10 s each held the whole
// batch for 43 minutes). A batch that is merely slow loses only time:
// its calls made alone answer as they would have in it.
const maxBatchTimeouts = 4

// Assets are the files a plugin may read during a call, through the
// read_asset host function. The host knows nothing of problems or
// directories: whoever makes the call decides what a path names.
type Assets interface {
	// ReadAsset returns the bytes of the file at path (as the plugin gave
	// it: relative, slash-separated), refusing files of more than max
	// bytes, and saying why it refuses any path.
	ReadAsset(path string, max int64) ([]byte, error)
}

// Call runs one export with input and returns its output. Faults come back
// as *Error; the instance that hit one is discarded.
func (p *Plugin) Call(ctx context.Context, export string, input []byte, opts CallOptions) ([]byte, error) {
	if p.workers != nil {
		return p.callWorker(ctx, export, input, opts)
	}
	if p.lazy != nil {
		if err := p.compileNow(ctx); err != nil {
			return nil, err
		}
	}
	var inst *instance
	select {
	case inst = <-p.pool:
	default:
		var err error
		if inst, err = p.newInstance(ctx); err != nil {
			return nil, p.instantiateError(p.Label(), export, err)
		}
	}
	inst.stderr.Reset()
	inst.stdout.Reset()
	inst.clock.reset()
	inst.log.reset()
	if inst.nat != nil {
		return p.callNative(ctx, inst, export, input, opts)
	}
	stdio := export != abi.DescribeExport && p.describe.Transport == abi.TransportStdio
	if stdio {
		inst.stdin.Reset(input)
		input = nil
	} else {
		inst.stdin.Reset(nil)
	}
	// Extism vars would let one call leak state into the next call that
	// happens to get this instance; a verdict must not depend on that.
	inst.p.Var = map[string][]byte{}
	callCtx := context.WithValue(ctx, assetRootKey{}, assetScope{assets: opts.Assets, max: p.host.opts.AssetBytes, plugin: p})

	var r callResult
	r.rc, r.out, r.err = inst.p.CallWithContext(callCtx, export, input)
	inst.log.finish(export)
	if r.err != nil || r.rc != 0 {
		fault := p.classify(inst, r.err, r.rc, p.host.opts.Timeout)
		fault.Export = export
		if fault.Fault != FaultFailed {
			p.discard(inst)
		} else {
			p.release(inst)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fault
	}
	out := r.out
	if stdio {
		if inst.stdout.Len() > MaxOutputBytes {
			p.discard(inst)
			return nil, &Error{Plugin: p.Label(), Export: export, Fault: FaultEnvelope,
				Detail: fmt.Sprintf("output larger than %d MiB", MaxOutputBytes>>20)}
		}
		out = bytes.Clone(inst.stdout.Bytes())
	}
	p.release(inst)
	return out, nil
}

type callResult struct {
	rc  uint32
	out []byte
	err error
}

// MaxOutputBytes caps a stdio-transport plugin's output.
const MaxOutputBytes = 64 << 20

// instantiateError says why a new instance could not start: its start
// (a Go guest's runtime initialisation) outlived the call timeout, or it
// trapped.
func (p *Plugin) instantiateError(label, export string, err error) *Error {
	if isTimeout(err) {
		return &Error{Plugin: label, Export: export, Fault: FaultTimeout,
			Detail: fmt.Sprintf("the module did not finish starting within %v (%v)", p.host.opts.Timeout, err)}
	}
	return &Error{Plugin: label, Export: export, Fault: FaultTrap, Detail: "cannot instantiate: " + err.Error()}
}

// isTimeout says whether err is wazero closing the module at its call's
// deadline (Extism passes some of these on as text, hence the last test).
func isTimeout(err error) bool {
	var exit *sys.ExitError
	return err != nil && (errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded ||
		errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline exceeded"))
}

// sizeLabel writes a byte count in MiB, or KiB below one MiB.
func sizeLabel(n uint64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// classify turns a failed call into a fault that says what happened.
func (p *Plugin) classify(inst *instance, err error, rc uint32, limit time.Duration) *Error {
	e := &Error{Plugin: p.Label()}
	switch {
	case isTimeout(err):
		e.Fault, e.Detail = FaultTimeout, fmt.Sprintf("no answer within %v", limit)
		return e
	case err != nil && strings.Contains(err.Error(), "wasm error"):
		e.Fault, e.Detail = FaultTrap, firstLine(err.Error())
		// A guest that cannot grow its memory aborts (Go prints "fatal
		// error: out of memory", Rust "memory allocation ... failed"); say
		// so rather than just "trapped".
		out := inst.stderr.String()
		if strings.Contains(out, "out of memory") || strings.Contains(out, "memory allocation") {
			e.Fault = FaultMemory
			e.Detail = fmt.Sprintf("linear memory reached the %s cap (%s)", sizeLabel(p.host.opts.MemoryBytes), e.Detail)
		} else if size, near := p.nearMemoryCap(inst); near && strings.Contains(e.Detail, "unreachable") {
			e.Fault, e.Detail = FaultMemory, p.memoryTrapDetail(size, e.Detail)
		}
	case err != nil:
		e.Fault, e.Detail = FaultFailed, err.Error()
		if rc == 0 {
			e.Fault = FaultTrap
		}
	default:
		e.Fault, e.Detail = FaultFailed, fmt.Sprintf("returned status %d", rc)
	}
	if msg := inst.stderr.Message(); msg != "" {
		e.Detail += "; plugin stderr: " + msg
	}
	// On Extism's transport the SDKs' panic and abort handlers set the
	// call's error before they trap; Extism drops it on a trap.
	if e.Fault != FaultFailed && inst.p != nil {
		if msg := strings.TrimSpace(inst.p.GetError()); msg != "" {
			e.Detail += "; plugin error: " + msg
		}
	}
	return e
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (p *Plugin) release(inst *instance) {
	select {
	case p.pool <- inst:
	default:
		inst.close()
	}
}

func (p *Plugin) discard(inst *instance) {
	p.discarded.Add(1)
	inst.close()
}

func (p *Plugin) close() {
	if p.workers != nil {
		p.closeWorkers()
		return
	}
	for {
		select {
		case inst := <-p.pool:
			inst.close()
		default:
			if p.native != nil {
				p.native.Close(context.Background())
			} else if p.compiled != nil {
				p.compiled.Close(context.Background())
			}
			return
		}
	}
}

// checkEnvelope parses out into v after validating it against the ABI
// schema named schema.
func checkEnvelope(plugin, export, schema string, out []byte, v any) error {
	return checkEnvelopeText(plugin, export, schema, string(out), v)
}

// checkOwnedEnvelope is checkEnvelope on an output the decoded value may
// keep parts of: out is the caller's own copy, which nothing writes to
// after this.
func checkOwnedEnvelope(plugin, export, schema string, out []byte, v any) error {
	if vo, ok := v.(*abi.VerifyOutput); ok {
		if fast, ok := scanVerifyOutputOwned(out); ok {
			*vo = fast
			return nil
		}
	}
	return checkEnvelopeText(plugin, export, schema, unsafe.String(unsafe.SliceData(out), len(out)), v)
}

// checkEnvelopeText is checkEnvelope on the output's text.
func checkEnvelopeText(plugin, export, schema string, out string, v any) error {
	if vo, ok := v.(*abi.VerifyOutput); ok {
		if fast, ok := scanVerifyOutputText(out); ok {
			*vo = fast
			return nil
		}
	}
	doc, err := jsonvalue.ParseShared(out)
	if err != nil {
		return &Error{Plugin: plugin, Export: export, Fault: FaultInvalidJSON, Detail: fmt.Sprintf("%v (output starts %q)", err, head([]byte(out)))}
	}
	if err := abischema.Validate(schema, doc); err != nil {
		return &Error{Plugin: plugin, Export: export, Fault: FaultEnvelope, Detail: err.Error()}
	}
	// Verdicts, the hot path, are built from the validated document;
	// other envelopes are decoded into their types.
	if vo, ok := v.(*abi.VerifyOutput); ok {
		*vo = verifyOutputOf(doc)
		return nil
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		return &Error{Plugin: plugin, Export: export, Fault: FaultEnvelope, Detail: err.Error()}
	}
	return nil
}

func head(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// capBuffer keeps the first max bytes a plugin writes to stdout/stderr, for
// fault messages (a Go panic prints there).
type capBuffer struct {
	bytes.Buffer
	max int
}

func (c *capBuffer) Write(b []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		if len(b) > room {
			c.Buffer.Write(b[:room])
		} else {
			c.Buffer.Write(b)
		}
	}
	return len(b), nil
}
