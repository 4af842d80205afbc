package host

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// testdataModules are the plugins of testdata/ built by testdataModule,
// by name.
var testdataModules sync.Map // name → *builtModule

type builtModule struct {
	once sync.Once
	path string
	err  error
}

// testdataModule builds testdata/NAME (a plugin of one kind that misbehaves
// on request) beside the other test plugins, once per test binary.
func testdataModule(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Dir(plugins(t)["misbehave"])
	v, _ := testdataModules.LoadOrStore(name, &builtModule{})
	m := v.(*builtModule)
	m.once.Do(func() {
		m.path = filepath.Join(dir, name+".wasm")
		m.err = pluginbuild.Build("./testdata/"+name, m.path)
	})
	if m.err != nil {
		t.Fatal(m.err)
	}
	return m.path
}

func setupModule(t testing.TB) string { return testdataModule(t, "setup") }

func loadSetup(t testing.TB, h *Host) *Plugin {
	t.Helper()
	p, err := h.Load(context.Background(), setupModule(t), "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func setupCall(mode, function string, args map[string]any) abi.SetupInput {
	return abi.SetupInput{Config: map[string]any{"mode": mode}, Function: function, Arguments: args,
		Task: abi.SetupTask{ID: "t1", Instruction: "tidy the files", Files: []string{"seed.csv", "docs/a.md"}}}
}

// A setup plugin's answer comes back as actions; describe lists its
// functions; a name it does not have is its error, not a fault.
func TestSetup(t *testing.T) {
	p := loadSetup(t, newHost(t, Options{}))
	if !p.HasKind(abi.KindSetup) || !slices.Equal(p.Describe().Functions, []string{"copy_asset", "prepare"}) ||
		!slices.Contains(p.Exports(), "setup") {
		t.Fatalf("describe %+v, exports %v", p.Describe(), p.Exports())
	}
	out, err := p.Setup(context.Background(), setupCall("", "prepare", map[string]any{"name": "n"}), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Actions) != 3 || out.Error != "" {
		t.Fatalf("got %+v", out)
	}
	w := out.Actions[0].Write
	if w == nil || w.Path != "data/n.txt" || w.Content != "task t1: seed.csv,docs/a.md" {
		t.Errorf("first action %+v", out.Actions[0])
	}
	if b, err := out.Actions[1].Write.Bytes(); err != nil || string(b) != "\x00\x01\x02\xff" {
		t.Errorf("second action's bytes %q %v", b, err)
	}
	if r := out.Actions[2].Run; r == nil || !slices.Equal(r.Command, []string{"sh", "-c", "wc -c data/n.txt"}) {
		t.Errorf("third action %+v", out.Actions[2])
	}
	out, err = p.Setup(context.Background(), setupCall("", "nope", nil), CallOptions{})
	if err != nil || out.Error != `unknown setup function "nope" (functions: copy_asset, prepare)` || len(out.Actions) != 0 {
		t.Fatalf("unknown function: %+v %v", out, err)
	}
}

// A plugin that is not a setup plugin is refused the call, naming it.
func TestSetupOfAnotherKind(t *testing.T) {
	p := load(t, newHost(t, Options{}), "native")
	_, err := p.Setup(context.Background(), setupCall("", "prepare", nil), CallOptions{})
	var pe *Error
	if !errors.As(err, &pe) || pe.Fault != FaultMissingExport || pe.Export != "setup" || !strings.Contains(err.Error(), "not a setup") {
		t.Fatalf("got %v", err)
	}
}

// Every misbehaviour of a setup plugin — a trap, a loop, memory, bad
// output, actions outside the limits — is a fault naming the plugin, the
// export and what was wrong; the next call works.
func TestSetupFaults(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			h := newHost(t, Options{Timeout: 5 * time.Second, MemoryBytes: 32 << 20, Isolation: iso})
			p := loadSetup(t, h)
			for _, tc := range []struct{ mode, fault, detail string }{
				{"trap", FaultTrap, "nil map"},
				{"loop", FaultTimeout, "no answer within 5s"},
				{"oom", FaultMemory, "32 MiB cap"},
				{"badjson", FaultInvalidJSON, `output starts "{not json"`},
				{"badenvelope", FaultEnvelope, "setup_output"},
				{"both", FaultEnvelope, "setup_output"},
				{"emptylist", FaultEnvelope, "setup_output"},
				{"fail", FaultFailed, "refusing on purpose"},
				{"many", FaultSetupActions, "257 actions, at most 256 are accepted"},
				{"badbase64", FaultSetupActions, "actions[0].write.content_base64 is not base64"},
				{"emptycommand", FaultSetupActions, "actions[0].run.command is empty"},
				{"../x", FaultSetupActions, `actions[0].write.path "../x" leaves the sandbox`},
				{"a/../../b", FaultSetupActions, "leaves the sandbox"},
				{"/etc/passwd", FaultSetupActions, `"/etc/passwd" is absolute`},
				{"C:/x", FaultSetupActions, "drive letter"},
				{`a\b`, FaultSetupActions, "/-separated"},
				{"./", FaultSetupActions, "names the working directory"},
			} {
				t.Run(strings.ReplaceAll(tc.mode, "/", "_"), func(t *testing.T) {
					_, err := p.Setup(context.Background(), setupCall(tc.mode, "prepare", nil), CallOptions{})
					var pe *Error
					if !errors.As(err, &pe) || pe.Fault != tc.fault || pe.Export != "setup" || !strings.Contains(pe.Error(), tc.detail) {
						t.Fatalf("got %v, want fault %q containing %q", err, tc.fault, tc.detail)
					}
					if !strings.HasPrefix(pe.Error(), "plugin setup-misbehave@") {
						t.Errorf("the message names the plugin: %s", pe.Error())
					}
					out, err := p.Setup(context.Background(), setupCall("", "prepare", map[string]any{"name": "n"}), CallOptions{})
					if err != nil || len(out.Actions) != 3 {
						t.Fatalf("the next call must work: %v %+v", err, out)
					}
				})
			}
		})
	}
}

// More than 16 MiB written in all is a fault (on a host whose memory cap
// leaves the plugin room to say it).
func TestSetupBytesCap(t *testing.T) {
	p := loadSetup(t, newHost(t, Options{}))
	_, err := p.Setup(context.Background(), setupCall("big", "prepare", nil), CallOptions{})
	var pe *Error
	if !errors.As(err, &pe) || pe.Fault != FaultSetupActions || pe.Export != "setup" ||
		!strings.Contains(err.Error(), "the writes up to actions[16] (big16) total more than the 16 MiB accepted") {
		t.Fatalf("got %v", err)
	}
}

// A setup function reads the task's files through read_asset, as
// evaluators read problem files; what the caller's assets refuse, it
// cannot read.
func TestSetupReadsTaskFiles(t *testing.T) {
	p := loadSetup(t, newHost(t, Options{}))
	assets := CallOptions{Assets: testAssets{"seed.csv": "id,name\n1,a\n"}}
	out, err := p.Setup(context.Background(), setupCall("", "copy_asset", map[string]any{"from": "seed.csv"}), assets)
	if err != nil || len(out.Actions) != 1 {
		t.Fatalf("%+v %v", out, err)
	}
	if b, _ := out.Actions[0].Write.Bytes(); out.Actions[0].Write.Path != "seed.csv" || string(b) != "id,name\n1,a\n" {
		t.Errorf("got %+v", out.Actions[0].Write)
	}
	out, err = p.Setup(context.Background(), setupCall("", "copy_asset", map[string]any{"from": "../secret"}), assets)
	if err != nil || out.Error != "cannot read task file ../secret" {
		t.Fatalf("%+v %v", out, err)
	}
}

// What the host sends a setup plugin matches setup_input.json, bare and
// full; the output schema refuses an action that is neither or both of
// write and run, and a write with two contents.
func TestSetupEnvelopesMatchTheirSchemas(t *testing.T) {
	for _, in := range []abi.SetupInput{{Function: "f"}, setupCall("x", "prepare", map[string]any{"n": 1})} {
		data, err := encodeEnvelope(setupInput(in), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateEnvelope("setup_input", data); err != nil {
			t.Errorf("%v\n%s", err, data)
		}
	}
	if err := ValidateEnvelope("setup_input", []byte(`{"abi_version":1,"config":{},"function":"f","arguments":{}}`)); err == nil {
		t.Error("a setup input without its task passed the schema")
	}
	for _, out := range []string{`{"actions":[{"write":{"path":"a","content":"x"}},{"run":{"command":["true"]}},{"write":{"path":"e"}}]}`, `{"error":"no seed"}`} {
		if err := ValidateEnvelope("setup_output", []byte(out)); err != nil {
			t.Errorf("%s: %v", out, err)
		}
	}
	for _, out := range []string{`{"actions":[{}]}`, `{"actions":[{"write":{"path":"a"},"run":{"command":["true"]}}]}`,
		`{"actions":[{"write":{"path":"a","content":"x","content_base64":"eA=="}}]}`, `{"actions":[{"run":{"command":[]}}]}`, `{}`} {
		if err := ValidateEnvelope("setup_output", []byte(out)); err == nil {
			t.Errorf("%s passed the setup_output schema", out)
		}
	}
}
