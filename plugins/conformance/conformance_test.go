// Package conformance holds the SDK conformance suite: shared test vectors
// (input envelope → expected output bytes) and the same reference plugin
// written with the Go, Rust and AssemblyScript SDKs. Every reference plugin
// must answer every vector byte for byte. See docs/conformance.md.
package conformance

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

var update = flag.Bool("update", false, "rewrite the vectors' expected results from the Go reference plugin")

// Vector is one conformance case.
type Vector struct {
	Description string `json:"description"`
	Export      string `json:"export"`
	// The input is one of: a JSON value, raw text (for malformed input),
	// or base64 bytes (for input that is not UTF-8).
	Input       json.RawMessage `json:"input,omitempty"`
	InputText   *string         `json:"input_text,omitempty"`
	InputBase64 string          `json:"input_base64,omitempty"`
	// Expand replaces a placeholder, in the input and the expected output,
	// by a long generated text, so large payloads need no large files.
	Expand map[string]Expansion `json:"expand,omitempty"`
	// AgentResult, on a test vector, is the agent's result JSON the input's
	// run was rendered from by the engine (engine/agent), so the vector
	// holds the SDKs to what the engine sends (answer_test.go).
	AgentResult json.RawMessage `json:"agent_result,omitempty"`
	// Output is the expected output envelope, byte for byte (canonical
	// JSON); Error the expected message when the call must fail.
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`

	name string
}

// Expansion is a text repeated count times.
type Expansion struct {
	Repeat string `json:"repeat"`
	Count  int    `json:"count"`
}

func (v *Vector) expand(s string) string {
	keys := make([]string, 0, len(v.Expand))
	for k := range v.Expand {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := v.Expand[k]
		s = strings.ReplaceAll(s, k, strings.Repeat(e.Repeat, e.Count))
	}
	return s
}

func (v *Vector) input() ([]byte, error) {
	switch {
	case v.InputText != nil:
		return []byte(v.expand(*v.InputText)), nil
	case v.InputBase64 != "":
		return base64.StdEncoding.DecodeString(v.InputBase64)
	}
	return []byte(v.expand(string(v.Input))), nil
}

// LoadVectors reads every vector of dir.
func LoadVectors(dir string) ([]*Vector, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Vector
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		v := &Vector{name: strings.TrimSuffix(filepath.Base(f), ".json")}
		if err := json.Unmarshal(data, v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// call runs a vector through a plugin: the output bytes, or the failure
// message of a call that reported failure.
func call(ctx context.Context, p *host.Plugin, v *Vector) (out []byte, failure string, err error) {
	in, err := v.input()
	if err != nil {
		return nil, "", err
	}
	if v.Export == abi.DescribeExport {
		in = nil
	}
	out, err = p.Call(ctx, v.Export, in, host.CallOptions{})
	var fault *host.Error
	if errors.As(err, &fault) && fault.Fault == host.FaultFailed {
		return nil, fault.Detail, nil
	}
	return out, "", err
}

// Language is a reference plugin's language and how it is built.
type Language struct {
	Name string
	// Transport is the one the plugin declares in describe: the only
	// byte of describe's output allowed to differ between plugins.
	Transport string
	Build     func(out string) error
}

// Languages are the reference plugins, in the order reports list them.
// Every SDK is tested on two transports: native (its default) and Extism;
// the AssemblyScript SDK also with asc's minimal runtime.
var Languages = []Language{
	{"go", abi.TransportNative, func(out string) error { return pluginbuild.Build(moduleFile("plugins/conformance/go"), out) }},
	{"go-extism", abi.TransportExtism, func(out string) error {
		return pluginbuild.Build(moduleFile("plugins/conformance/go"), out, "-tags=wasmeval_extism")
	}},
	{"rust", abi.TransportNative, func(out string) error {
		return pluginbuild.BuildRust(moduleFile("plugins/conformance/rust/lib.rs"), out)
	}},
	{"rust-extism", abi.TransportExtism, func(out string) error {
		return pluginbuild.BuildRustExtism(moduleFile("plugins/conformance/rust/lib.rs"), out)
	}},
	{"assemblyscript", abi.TransportNative, func(out string) error {
		return pluginbuild.BuildAssemblyScript(moduleFile("plugins/conformance/assemblyscript/plugin.ts"), out)
	}},
	{"assemblyscript-extism", abi.TransportExtism, func(out string) error {
		return pluginbuild.BuildAssemblyScriptExtism(moduleFile("plugins/conformance/assemblyscript/plugin.ts"), out)
	}},
	// The same with asc's minimal runtime, which plugin authors may
	// choose for speed (docs/sdk-assemblyscript.md, "The runtime").
	{"assemblyscript-minimal", abi.TransportNative, func(out string) error {
		return pluginbuild.BuildAssemblyScriptWith(moduleFile("plugins/conformance/assemblyscript/plugin.ts"), out, "--runtime", "minimal")
	}},
}

func moduleFile(rel string) string {
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		return rel
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}

var (
	buildMu sync.Mutex
	builds  = map[string]string{}
)

// Reference builds (once per test binary) the reference plugin of lang.
// A missing toolchain skips the caller, except under CI=true where every
// language must be tested.
func Reference(tb testing.TB, lang Language) string {
	tb.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if f, ok := builds[lang.Name]; ok {
		return f
	}
	dir, err := os.MkdirTemp("", "wasmeval-conformance-")
	if err != nil {
		tb.Fatal(err)
	}
	buildDirs = append(buildDirs, dir)
	out := filepath.Join(dir, "conformance-"+lang.Name+".wasm")
	if err := lang.Build(out); err != nil {
		if errors.Is(err, pluginbuild.ErrToolchain) && os.Getenv("CI") != "true" {
			tb.Skipf("%s reference plugin not built: %v", lang.Name, err)
		}
		tb.Fatalf("%s reference plugin: %v", lang.Name, err)
	}
	builds[lang.Name] = out
	return out
}

// newHost runs plugins as the CLI does (worker processes, no termination
// checks). The suite checks bytes, not speed: the call timeout is generous
// so a loaded machine cannot fail the ~1 MB vectors.
func newHost(tb testing.TB) *host.Host { return newHostIn(tb, host.Process) }

// newHostIn is newHost with another isolation: in process, a native
// module runs with the preemption points the host adds to it, and the
// suite holds that rewritten module to the same bytes.
func newHostIn(tb testing.TB, isolation string) *host.Host {
	h, err := host.New(host.Options{CacheDir: filepath.Join(tb.TempDir(), "cache"), Isolation: isolation, Timeout: 2 * time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

func TestConformance(t *testing.T) {
	vectors, err := LoadVectors("vectors")
	if err != nil {
		t.Fatal(err)
	}
	if len(vectors) == 0 {
		t.Fatal("no vectors")
	}
	for _, lang := range Languages {
		for _, iso := range []string{host.Process, host.InProcess} {
			name := lang.Name
			if iso == host.InProcess {
				name += "/" + iso
			}
			t.Run(name, func(t *testing.T) {
				file := Reference(t, lang)
				h := newHostIn(t, iso)
				ctx := context.Background()
				p, err := h.Load(ctx, file, "")
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range vectors {
					t.Run(v.name, func(t *testing.T) {
						out, failure, err := call(ctx, p, v)
						if err != nil {
							t.Fatalf("%s: %v", v.Description, err)
						}
						if v.Export == abi.DescribeExport {
							out = sameTransport(out, lang.Transport)
						}
						if *update && lang.Name == "go" && iso == host.Process {
							record(t, v, out, failure)
							return
						}
						check(t, v, out, failure)
					})
				}
			})
		}
	}
}

// vectorTransport is the transport the describe vector's output declares.
const vectorTransport = abi.TransportExtism

// sameTransport rewrites the transport a describe output declares to the
// vector's, so plugins on different transports are held to the same bytes
// everywhere else. Raw strings, a native plugin's, go too (TestRawStrings
// holds each plugin to them).
func sameTransport(out []byte, transport string) []byte {
	out = bytes.Replace(out, []byte(`"raw_strings":true,"transport":"native"`), []byte(`"transport":"native"`), 1)
	return bytes.Replace(out, []byte(`"transport":"`+transport+`"`), []byte(`"transport":"`+vectorTransport+`"`), 1)
}

func check(t *testing.T, v *Vector, out []byte, failure string) {
	t.Helper()
	switch {
	case v.Error != nil:
		if out != nil || failure != *v.Error {
			t.Fatalf("%s: want failure %q, got failure %q, output %s", v.Description, *v.Error, failure, head(out))
		}
	case v.Output != nil:
		want := v.expand(*v.Output)
		if failure != "" {
			t.Fatalf("%s: want output %s, got failure %q", v.Description, head([]byte(want)), failure)
		}
		if !bytes.Equal(out, []byte(want)) {
			t.Fatalf("%s: output differs at byte %d\nwant %s\ngot  %s", v.Description, firstDiff(out, []byte(want)), head([]byte(want)), head(out))
		}
		_, schema := host.EnvelopeSchemas(v.Export)
		if err := host.ValidateEnvelope(schema, out); err != nil {
			t.Fatalf("%s: %v", v.Description, err)
		}
	default:
		t.Fatalf("vector %s has neither output nor error (run with -update)", v.name)
	}
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func head(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// record writes the Go reference plugin's answer into the vector file, the
// expanded placeholders folded back.
func record(t *testing.T, v *Vector, out []byte, failure string) {
	v.Output, v.Error = nil, nil
	if failure != "" {
		v.Error = &failure
	} else {
		s := string(out)
		for k, e := range v.Expand {
			s = strings.ReplaceAll(s, strings.Repeat(e.Repeat, e.Count), k)
		}
		v.Output = &s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("vectors", v.name+".json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
