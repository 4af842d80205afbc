package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

// Worker processes run plugin code compiled without termination checks —
// an order of magnitude faster for Go guests — and are killed when a call
// outlives its timeout, which is how a runaway plugin is stopped. A worker
// is this same executable started with workerEnv set; ServeWorker makes it
// serve instead of doing its usual job.

const workerEnv = "WASMEVAL_PLUGIN_WORKER"

// workerStartBound is how long, beyond the call timeout, a new worker may
// take to load its module and say what it loaded.
const workerStartBound = 5 * time.Minute

// workerSpec is what a worker is told at start. The module itself is not
// named by path: the parent sends the bytes it hashed as the first frame, so
// a worker can only ever run the module whose digest was checked, even when
// the file is replaced during a run.
type workerSpec struct {
	File        string `json:"file"`
	Digest      string `json:"digest"`
	MemoryBytes uint64 `json:"memory_bytes"`
	AssetBytes  int64  `json:"asset_bytes"`
	CacheDir    string `json:"cache_dir"`
	// ModuleFD, when set, is a sealed in-memory file holding the module
	// (see moduleFile); otherwise the module is the first frame.
	ModuleFD int `json:"module_fd,omitempty"`
	// SharedFD, when set, is the memory shared with the parent for
	// payloads (shared.go), two halves of SharedHalf bytes.
	SharedFD   int `json:"shared_fd,omitempty"`
	SharedHalf int `json:"shared_half,omitempty"`
}

type wireError struct {
	Plugin string `json:"plugin"`
	Export string `json:"export"`
	Fault  string `json:"fault"`
	Detail string `json:"detail"`
}

type wireLog struct {
	Level string `json:"level"`
	Msg   string `json:"msg"`
}

// hello is the worker's first frame: what it loaded.
type hello struct {
	Describe abi.Describe `json:"describe"`
	Exports  []string     `json:"exports"`
	Error    *wireError   `json:"error,omitempty"`
	// raw is the describe answer as the plugin gave it, the frame's
	// payload (for the describe cache).
	raw []byte
}

// request starts a call in the worker. HasAssets says whether the call
// has assets: the worker then relays each read_asset to the parent (an
// asset frame, answered by an assetReply), which reads it through the
// call's Assets. A worker reads no file itself.
type request struct {
	Export    string `json:"export"`
	HasAssets bool   `json:"has_assets,omitempty"`
	// Shared, when set, is the input's length at the start of the shared
	// memory's input half; the frame's payload is then empty.
	Shared int `json:"shared,omitempty"`
}

// response ends a call; one with Asset set instead asks the parent for an
// asset in the middle of it.
type response struct {
	Error *wireError `json:"error,omitempty"`
	Logs  []wireLog  `json:"logs,omitempty"`
	Other string     `json:"other,omitempty"` // a non-plugin error
	Asset *string    `json:"asset,omitempty"`
	// Shared, when set, is the output's length at the start of the
	// shared memory's output half; the frame's payload is then empty.
	Shared int `json:"shared,omitempty"`
}

// assetReply answers an asset frame: the bytes are the payload, or Error
// says why the read was refused.
type assetReply struct {
	Error string `json:"error,omitempty"`
}

// relayedAssets are a call's assets inside a worker: each read is a round
// trip to the parent.
type relayedAssets struct {
	r *bufio.Reader
	w *bufio.Writer
}

func (a relayedAssets) ReadAsset(path string, max int64) ([]byte, error) {
	if err := writeFrame(a.w, response{Asset: &path}, nil); err != nil {
		return nil, fmt.Errorf("ask the engine: %w", err)
	}
	var reply assetReply
	data, err := readFrame(a.r, &reply)
	switch {
	case err != nil:
		return nil, fmt.Errorf("ask the engine: %w", err)
	case reply.Error != "":
		return nil, errors.New(reply.Error)
	case int64(len(data)) > max:
		return nil, fmt.Errorf("%d bytes, over the %d-byte cap", len(data), max)
	}
	return data, nil
}

// ServeWorker turns this process into a plugin worker when it was started
// as one, and never returns then; otherwise it returns at once. Programs
// that use Isolation "process" call it first thing in main (and TestMain).
func ServeWorker() {
	raw := os.Getenv(workerEnv)
	if raw == "" {
		return
	}
	os.Unsetenv(workerEnv)
	var spec workerSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "plugin worker:", err)
		os.Exit(2)
	}
	os.Exit(serveWorker(spec, os.Stdin, os.Stdout))
}

func serveWorker(spec workerSpec, in io.Reader, out io.Writer) int {
	r, w := bufio.NewReaderSize(in, 1<<16), bufio.NewWriterSize(out, 1<<16)
	var logs []wireLog
	cache := spec.CacheDir
	if cache == "" {
		cache = "-"
	}
	h, err := New(Options{CacheDir: cache, MemoryBytes: spec.MemoryBytes, AssetBytes: spec.AssetBytes,
		Timeout: 24 * time.Hour, // the parent enforces the real timeout
		Log:     func(_, level, msg string) { logs = append(logs, wireLog{level, msg}) }})
	if err != nil {
		return 2
	}
	ctx := context.Background()
	var p *Plugin
	var hi hello
	var data []byte
	if spec.ModuleFD > 0 {
		// Sealed by the parent after it checked the digest: these are
		// the checked bytes.
		data, err = mapModule(spec.ModuleFD)
	} else if data, err = readFrame(r, &struct{}{}); err == nil {
		if got := pin.Digest(data); got != spec.Digest {
			err = &Error{Plugin: spec.File, Fault: FaultDigest, Detail: fmt.Sprintf("the worker was sent a module with sha256 %s, not %s", got, spec.Digest)}
		}
	}
	if err == nil {
		p, err = h.compile(ctx, spec.File, spec.Digest, data, false)
	}
	var sh *shared
	if err == nil && spec.SharedFD > 0 {
		if sh, err = mapShared(spec.SharedFD, spec.SharedHalf); err != nil {
			err = fmt.Errorf("plugin worker: %w", err)
		}
	}
	if err != nil {
		hi.Error = toWire(err)
	} else {
		hi.Describe, hi.Exports, hi.raw = p.describe, p.exports, p.describeRaw
	}
	if writeFrame(w, hi, hi.raw) != nil || hi.Error != nil {
		return 0
	}
	for {
		var req request
		input, err := readFrame(r, &req)
		if err != nil {
			return 0 // the parent closed the pipe: done
		}
		logs = nil
		if req.Shared > 0 {
			if sh == nil || req.Shared > len(sh.input()) || len(input) > 0 {
				return 2 // not a request of this protocol
			}
			// Read in place: the call copies its input into the guest
			// (or hands it to Extism) before it returns.
			input = sh.input()[:req.Shared]
		}
		var opts CallOptions
		if req.HasAssets {
			opts.Assets = relayedAssets{r, w}
		}
		callCtx := ctx
		if sh != nil {
			// The output goes from the guest's memory straight into the
			// shared memory when it fits.
			callCtx = withOutputInto(ctx, func(out []byte) []byte {
				if n := sh.put((*shared).output, out); n > 0 {
					return sh.output()[:n]
				}
				return bytes.Clone(out)
			})
		}
		output, err := p.Call(callCtx, req.Export, input, opts)
		resp := response{Logs: logs}
		if len(output) > 0 && sh != nil {
			if &output[0] == &sh.output()[0] {
				resp.Shared = len(output)
			} else {
				resp.Shared = sh.put((*shared).output, output)
			}
			if resp.Shared > 0 {
				output = nil
			}
		}
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				resp.Error = toWire(pe)
			} else {
				resp.Other = err.Error()
			}
		}
		if writeFrame(w, resp, output) != nil {
			return 0
		}
	}
}

func toWire(err error) *wireError {
	var pe *Error
	if errors.As(err, &pe) {
		return &wireError{Plugin: pe.Plugin, Export: pe.Export, Fault: pe.Fault, Detail: pe.Detail}
	}
	return &wireError{Fault: FaultNotWasm, Detail: err.Error()}
}

func (e *wireError) toError() *Error {
	return &Error{Plugin: e.Plugin, Export: e.Export, Fault: e.Fault, Detail: e.Detail}
}

// A frame is a length-prefixed JSON header and a length-prefixed payload.
func writeFrame(w *bufio.Writer, header any, payload []byte) error {
	hdr, err := json.Marshal(header)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(hdr)))
	w.Write(n[:])
	w.Write(hdr)
	binary.BigEndian.PutUint32(n[:], uint32(len(payload)))
	w.Write(n[:])
	w.Write(payload)
	return w.Flush()
}

func readFrame(r *bufio.Reader, header any) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	hdr := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(hdr, header); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	payload := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, err
	}
	return payload, nil
}

// worker is one child process serving one plugin.
type worker struct {
	cmd  *exec.Cmd
	in   *bufio.Writer
	out  *bufio.Reader
	done chan struct{}
	// sh is the memory shared with the worker (nil where there is none).
	// Only the goroutine making a call or closing the worker touches it.
	sh *shared
}

// startWorker starts a worker for the plugin, sends it the module and reads
// its hello.
func (p *Plugin) startWorker(ctx context.Context) (*worker, hello, error) {
	h, file := p.host, p.file
	var hi hello
	exe, err := os.Executable()
	if err != nil {
		return nil, hi, fmt.Errorf("plugin worker: %w", err)
	}
	spec := workerSpec{File: file, Digest: p.digest, MemoryBytes: h.opts.MemoryBytes, AssetBytes: h.opts.AssetBytes, CacheDir: h.cacheDir}
	cmd := exec.Command(exe)
	p.moduleOnce.Do(func() { p.module, _ = moduleFile(p.data) }) // nil: send it over the pipe
	if p.module != nil {
		cmd.ExtraFiles = []*os.File{p.module}
		spec.ModuleFD = 3 // the first of ExtraFiles
	}
	sh, shFile, err := newShared(sharedHalf)
	if err == nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, shFile)
		spec.SharedFD, spec.SharedHalf = 2+len(cmd.ExtraFiles), sharedHalf
		defer shFile.Close() // the worker has its own copy once started
	}
	rawSpec, _ := json.Marshal(spec)
	cmd.Env = append(os.Environ(), workerEnv+"="+string(rawSpec))
	cmd.Stderr = os.Stderr
	bindToParent(cmd)
	childIn, stdin, err := workerPipe()
	if err != nil {
		return nil, hi, fmt.Errorf("plugin worker: %w", err)
	}
	stdout, childOut, err := workerPipe()
	if err != nil {
		childIn.Close()
		stdin.Close()
		return nil, hi, fmt.Errorf("plugin worker: %w", err)
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	err = cmd.Start()
	childIn.Close() // the worker has its own copies now
	childOut.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		sh.unmap()
		return nil, hi, fmt.Errorf("start plugin worker: %w", err)
	}
	h.workersStarted.Add(1)
	wk := &worker{cmd: cmd, in: bufio.NewWriterSize(stdin, 1<<16), out: bufio.NewReaderSize(stdout, 1<<16), done: make(chan struct{}), sh: sh}
	go func() {
		cmd.Wait()
		stdin.Close()
		stdout.Close()
		close(wk.done)
	}()
	// Compiling an uncached module can take seconds, and many times that
	// on a machine busy with other work; the bound only catches a worker
	// that will never answer, so it is wide. A worker that exits answers
	// at once (its pipe closes).
	got := make(chan error, 1)
	go func() {
		if spec.ModuleFD == 0 {
			if err := writeFrame(wk.in, struct{}{}, p.data); err != nil {
				got <- err
				return
			}
		}
		var err error
		hi.raw, err = readFrame(wk.out, &hi)
		got <- err
	}()
	select {
	case err = <-got:
	case <-time.After(h.opts.Timeout + workerStartBound):
		err = fmt.Errorf("no answer within %v of its start", h.opts.Timeout+workerStartBound)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		wk.close()
		return nil, hi, fmt.Errorf("plugin worker for %s: %w", file, err)
	}
	if hi.Error != nil {
		wk.close()
		return nil, hi, hi.Error.toError()
	}
	return wk, hi, nil
}

// kill ends the worker; any goroutine may call it (a timer does, at a
// call's timeout).
func (wk *worker) kill() {
	wk.cmd.Process.Kill()
	<-wk.done
}

// close ends the worker and releases the memory shared with it. Only the
// goroutine that owns the worker (the one making its call, or the one
// closing the pool) calls it, so nothing is copying to or from the memory.
func (wk *worker) close() {
	wk.kill()
	wk.sh.unmap()
}

// startRemote loads a plugin that runs in worker processes. Its describe
// answer comes from the describe cache when the cache has it, checked as a
// fresh answer is, and then no worker starts until a call needs one;
// otherwise a first worker starts now and its answer is kept.
func (h *Host) startRemote(ctx context.Context, file, digest string, data []byte) (*Plugin, error) {
	p := &Plugin{host: h, file: file, digest: digest, size: len(data), data: data,
		workers: make(chan *worker, 2*goruntime.GOMAXPROCS(0))}
	if err := checkMagic(file, digest, data); err != nil {
		return nil, err
	}
	key := h.describeKey(digest)
	if raw := h.cachedDescribe(key); raw != nil && p.describeFromCache(raw) {
		h.describeHits.Add(1)
		return p, nil
	}
	wk, hi, err := p.startWorker(ctx)
	if err != nil {
		return nil, err
	}
	p.describe, p.exports, p.describeRaw = hi.Describe, hi.Exports, hi.raw
	p.created.Add(1)
	p.workers <- wk
	h.keepDescribe(key, hi.raw)
	return p, nil
}

// describeFromCache takes a cached describe answer as the plugin's, if it
// passes every check a worker holds a fresh answer to: the module's
// imports, then the answer against the ABI and against the module's
// exports and transport. An answer that does not is a miss.
func (p *Plugin) describeFromCache(raw []byte) bool {
	iface, err := readInterface(p.data)
	if err != nil || iface.checkImports() != nil || !iface.exports[abi.DescribeExport] {
		return false
	}
	has := func(name string) bool { return iface.exports[name] }
	if p.acceptDescribe(fileLabel(p.file, p.digest), raw, iface.isNative(), has) != nil {
		p.describe = abi.Describe{}
		return false
	}
	p.exports, p.describeRaw = exportsOf(has), raw
	return true
}

// sameDescribe checks that a worker started after the plugin was loaded
// describes it as the plugin was loaded with: from the describe cache, an
// entry that passed every check but is not this module's answer (written
// by hand, or by another wasmeval) is found out here, at the first call,
// and removed, so the next load asks the plugin.
// Every later call of the plugin gets the same fault at once, rather
// than start a worker of its own to find out again.
func (p *Plugin) sameDescribe(hi hello) error {
	if bytes.Equal(hi.raw, p.describeRaw) && slices.Equal(hi.Exports, p.exports) {
		return nil
	}
	p.host.forgetDescribe(p.host.describeKey(p.digest))
	e := &Error{Plugin: p.Label(), Export: abi.DescribeExport, Fault: FaultEnvelope,
		Detail: fmt.Sprintf("the module's describe answer is not the one this plugin was loaded with from the describe cache (%s); the entry is removed, so the next run asks the plugin",
			p.host.describeDir())}
	p.misdescribed.CompareAndSwap(nil, e)
	return e
}

// callWorker runs one call in a worker, killing it at the timeout.
func (p *Plugin) callWorker(ctx context.Context, export string, input []byte, opts CallOptions) ([]byte, error) {
	var wk *worker
	select {
	case wk = <-p.workers:
	default:
		if e := p.misdescribed.Load(); e != nil {
			return nil, e
		}
		var hi hello
		var err error
		if wk, hi, err = p.startWorker(ctx); err != nil {
			return nil, &Error{Plugin: p.Label(), Export: export, Fault: FaultTrap, Detail: err.Error()}
		}
		p.created.Add(1)
		if err := p.sameDescribe(hi); err != nil {
			p.discardWorker(wk)
			return nil, err
		}
	}
	// The call runs on this goroutine; a timer and the context kill the
	// worker, which ends a blocked read or write, instead of a second
	// goroutine racing them (one thread wake-up less per call).
	const byTimeout, byContext = 1, 2
	var killed atomic.Int32 // why the worker was killed
	timeout := opts.timeout(p.host.opts.Timeout)
	timer := time.AfterFunc(timeout, func() { killed.CompareAndSwap(0, byTimeout); wk.kill() })
	stopCtx := context.AfterFunc(ctx, func() { killed.CompareAndSwap(0, byContext); wk.kill() })
	var r struct {
		resp response
		out  []byte
		err  error
	}
	req := request{Export: export, HasAssets: opts.Assets != nil}
	if req.Shared = wk.sh.put((*shared).input, input); req.Shared > 0 {
		input = nil
	}
	if r.err = writeFrame(wk.in, req, input); r.err == nil {
		r.out, r.err = readFrame(wk.out, &r.resp)
		for r.err == nil && r.resp.Asset != nil {
			r.err = p.answerAsset(wk, opts.Assets, *r.resp.Asset)
			if r.err == nil {
				r.resp = response{}
				r.out, r.err = readFrame(wk.out, &r.resp)
			}
		}
	}
	timerStopped, ctxStopped := timer.Stop(), stopCtx()
	if !timerStopped || !ctxStopped { // a kill has begun (the call may have just finished)
		p.discardWorker(wk)
		if killed.Load() == byContext {
			return nil, ctx.Err()
		}
		return nil, &Error{Plugin: p.Label(), Export: export, Fault: FaultTimeout,
			Detail: fmt.Sprintf("no answer within %v", timeout)}
	}
	if r.err == nil && r.resp.Shared > 0 {
		if wk.sh == nil || r.resp.Shared > len(wk.sh.output()) || len(r.out) > 0 {
			r.err = fmt.Errorf("the worker answered with %d bytes of shared memory, which it does not have", r.resp.Shared)
		} else if r.out = wk.sh.output()[:r.resp.Shared]; outputInto(ctx) != nil {
			r.out = outputInto(ctx)(r.out)
		} else {
			r.out = bytes.Clone(r.out)
		}
	}
	if r.err != nil { // the worker died mid-call (killed, crashed)
		p.discardWorker(wk)
		return nil, &Error{Plugin: p.Label(), Export: export, Fault: FaultTrap, Detail: "plugin worker exited: " + r.err.Error()}
	}
	if log := p.host.opts.Log; log != nil {
		for _, l := range r.resp.Logs {
			log(p.logName(), l.Level, l.Msg)
		}
	}
	select {
	case p.workers <- wk:
	default: // more workers than the pool keeps
		wk.close()
	}
	switch {
	case r.resp.Error != nil:
		e := r.resp.Error.toError()
		e.Plugin = p.Label()
		return nil, e
	case r.resp.Other != "":
		return nil, errors.New(r.resp.Other)
	}
	return r.out, nil
}

// answerAsset reads an asset a worker asked for in the middle of a call
// and sends it back. The read is the worker's: it is refused when the call
// has no assets or the file is over the cap, and the worker logs why.
func (p *Plugin) answerAsset(wk *worker, assets Assets, path string) error {
	var data []byte
	err := errors.New("no problem directory is in scope for this call")
	if assets != nil {
		data, err = assets.ReadAsset(path, p.host.opts.AssetBytes)
	}
	if err != nil {
		return writeFrame(wk.in, assetReply{Error: err.Error()}, nil)
	}
	return writeFrame(wk.in, assetReply{}, data)
}

func (p *Plugin) logName() string {
	if p.describe.Name != "" {
		return p.describe.Name
	}
	return p.file
}

func (p *Plugin) discardWorker(wk *worker) {
	p.discarded.Add(1)
	wk.close()
}

func (p *Plugin) closeWorkers() {
	for {
		select {
		case wk := <-p.workers:
			wk.close()
		default:
			// Do waits for a module file being made, and keeps one from
			// being made after this.
			p.moduleOnce.Do(func() {})
			if p.module != nil {
				p.module.Close()
			}
			return
		}
	}
}
