package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The describe cache. A plugin's describe answer is what the host needs
// to load it (its kinds, batches, transport, config schema); running the
// plugin is needed only for its calls. In worker processes, getting the
// answer means starting a worker, which compiles the module (from wazero's
// on-disk cache at best) and instantiates it: tens of milliseconds, which
// a rescore answered wholly from the verdict cache would pay for nothing.
// So the answer is kept on disk beside the compilation cache, and a
// plugin whose answer is found there starts its first worker at its first
// call (worker.go). See RATIONALE.md, "The describe cache".

// describeCacheVersion is part of every key: it changes when what a
// describe call sees could change (the host functions, the sandbox), or
// what an entry means.
const describeCacheVersion = 1

// describeEntryMagic starts every entry; another format is a miss.
const describeEntryMagic = "wasmeval describe 1\n"

// maxDescribeEntry caps an entry's answer. A larger answer is not kept
// (it is asked of the plugin each time), and a larger file is a miss.
const maxDescribeEntry = 1 << 20

// describeDir is where the host keeps describe answers: "" when it keeps
// none (no on-disk cache).
func (h *Host) describeDir() string {
	if h.cacheDir == "" {
		return ""
	}
	return filepath.Join(h.cacheDir, "describe")
}

// describeKey names the describe answer of the module with digest, as
// this host would get it. The answer depends on the module, on what the
// host gives it (the ABI version it offers, the host functions and the
// sandbox, which callCacheVersion and describeCacheVersion stand for) and
// on the memory cap, which decides whether the module starts and what a
// memory.grow returns; and on the runtime that compiles and runs it
// (wazero's and Extism's versions), which decides whether the module
// compiles at all, so that a wasmeval built with another runtime asks
// again rather than find out at the first call. Nothing else reaches a describe call: it has no
// input, no assets (so neither the asset cap nor the problem matter), a
// virtual clock (so the timeout only decides whether it faults, and a
// fault is never kept), and its log lines are not part of its answer.
func (h *Host) describeKey(digest string) string {
	b := []byte("wasmeval describe ")
	b = strconv.AppendInt(b, describeCacheVersion, 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, callCacheVersion, 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, abi.Version, 10)
	for _, v := range abi.SupportedVersions {
		b = strconv.AppendInt(append(b, ','), int64(v), 10)
	}
	b = append(b, 0)
	b = append(b, digest...)
	b = append(b, 0)
	b = strconv.AppendUint(b, h.opts.MemoryBytes, 10)
	b = append(b, 0)
	b = append(b, runtimeVersions()...)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// inProcessKey names the describe answer of the module with digest kept
// once the host ran it in process with its preemption points (isolation
// auto): only such an answer loads a plugin for in-process calls without
// compiling it (lazy.go), so a module the rewriter refuses, which auto
// runs in worker processes, is never loaded lazily into this process. An
// answer kept by a worker-process load is under describeKey alone.
func (h *Host) inProcessKey(digest string) string {
	sum := sha256.Sum256([]byte("wasmeval describe in process\x00" + h.describeKey(digest)))
	return hex.EncodeToString(sum[:])
}

// runtimeVersions names the versions of the modules that compile and run
// plugins, as this executable was built with them ("" when it carries no
// build information: a test binary carries no dependencies' versions,
// an executable built by go build does).
var runtimeVersions = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var s string
	for _, d := range info.Deps {
		if d.Path == "github.com/tetratelabs/wazero" || d.Path == "github.com/extism/go-sdk" {
			if d.Replace != nil {
				d = d.Replace
			}
			s += d.Path + "@" + d.Version + " " + d.Sum + ";"
		}
	}
	return s
})

// encodeDescribeEntry frames a describe answer under key: the magic line,
// the key, a CRC-32C of the answer and its length, then the answer.
func encodeDescribeEntry(key string, answer []byte) []byte {
	var b bytes.Buffer
	b.WriteString(describeEntryMagic)
	b.Write(describeHeader(key, answer))
	b.WriteByte('\n')
	b.Write(answer)
	return b.Bytes()
}

// describeHeader is an entry's header line, without its newline.
func describeHeader(key string, answer []byte) []byte {
	return fmt.Appendf(nil, "%s %08x %d", key, crc32.Checksum(answer, castagnoli), len(answer))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decodeDescribeEntry returns the answer an entry holds, if it is a whole
// entry of this format written under key. It says nothing of the answer
// itself: the caller checks it as it checks a plugin's.
func decodeDescribeEntry(key string, data []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(data, []byte(describeEntryMagic))
	if !ok {
		return nil, errors.New("not an entry of this format")
	}
	line, answer, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, errors.New("truncated header")
	}
	// The header is exactly the one this answer would be written with:
	// this key, the answer's CRC-32C in 8 lowercase hex digits, its length
	// in decimal. Anything else (a damaged header or answer, an entry of
	// another key) is not this entry.
	if !bytes.Equal(line, describeHeader(key, answer)) {
		if k, _, _ := bytes.Cut(line, []byte(" ")); string(k) != key {
			return nil, errors.New("not an entry of this key")
		}
		return nil, errors.New("the header does not match the answer (damaged or truncated)")
	}
	return answer, nil
}

// cachedDescribe returns the describe answer kept for key, or nil: no
// entry, or one that is not whole (then it is a miss, and the answer the
// plugin gives is written over it).
func (h *Host) cachedDescribe(key string) []byte {
	dir := h.describeDir()
	if dir == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(dir, key))
	if err != nil {
		return nil
	}
	defer f.Close()
	// Read at most one byte more than an entry can hold, so a huge file
	// is refused without being read.
	data, err := io.ReadAll(io.LimitReader(f, maxDescribeEntry+int64(len(describeEntryMagic))+128+1))
	if err != nil || len(data) > maxDescribeEntry+len(describeEntryMagic)+128 {
		return nil
	}
	answer, err := decodeDescribeEntry(key, data)
	if err != nil {
		return nil
	}
	return answer
}

// keepDescribe writes a describe answer under key: to a temporary file
// renamed into place, so a reader sees a whole entry or none, and two
// processes writing at once each leave a whole one. A failure costs the
// next load only a worker's start.
func (h *Host) keepDescribe(key string, answer []byte) {
	dir := h.describeDir()
	if dir == "" || len(answer) == 0 || len(answer) > maxDescribeEntry {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+key[:8]+"-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(encodeDescribeEntry(key, answer))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, key)) != nil {
		os.Remove(tmp.Name())
	}
}

// forgetDescribe removes the entry under key (one the module's own answer
// contradicted).
func (h *Host) forgetDescribe(key string) {
	if dir := h.describeDir(); dir != "" {
		os.Remove(filepath.Join(dir, key))
	}
}
