package preempt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// wat builds testdata/NAME.wat with wabt's wat2wasm, names included.
func wat(t testing.TB, name string) []byte {
	t.Helper()
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wat2wasm (Debian's wabt) is needed to build the test modules: ", err)
		}
		t.Skip("wat2wasm not installed: ", err)
	}
	out := filepath.Join(t.TempDir(), name+".wasm")
	if msg, err := exec.Command(tool, "--debug-names", filepath.Join("testdata", name+".wat"), "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm %s: %v: %s", name, err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// newRuntime is a runtime for instrumented modules (no wazero checks, the
// tick import) or for the originals (wazero's checks).
func newRuntime(t testing.TB, instrumented bool) wazero.Runtime {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(!instrumented))
	t.Cleanup(func() { rt.Close(ctx) })
	if instrumented {
		if err := Instantiate(ctx, rt); err != nil {
			t.Fatal(err)
		}
	}
	return rt
}

func instantiate(t testing.TB, rt wazero.Runtime, wasm []byte, name string) api.Module {
	t.Helper()
	mod, err := rt.InstantiateWithConfig(context.Background(), wasm, wazero.NewModuleConfig().WithName(name))
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func instrument(t testing.TB, wasm []byte) []byte {
	t.Helper()
	out, err := Instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// semantics instantiates semantics.wat, instrumented or not, with what it
// imports.
func semantics(t *testing.T, instrumented bool) api.Module {
	t.Helper()
	wasm := wat(t, "semantics")
	if instrumented {
		wasm = instrument(t, wasm)
	}
	rt := newRuntime(t, instrumented)
	instantiate(t, rt, wat(t, "env"), "env")
	return instantiate(t, rt, wasm, "semantics")
}

// The instrumented module computes what the original does, through every
// construct whose function indices the rewrite renumbers.
func TestInstrumentedModuleKeepsItsMeaning(t *testing.T) {
	// Each call and its result, worked out by hand from semantics.wat.
	calls := []struct {
		fn   string
		args []uint64
		want uint32
	}{
		{"started", nil, 42},                        // the start function ran: base + 1
		{"sum", []uint64{10}, 90},                   // 2i for i < 10, through the import
		{"sum", []uint64{1}, 0},                     //
		{"indirect", []uint64{0, 6, 7}, 42},         // an active segment's $mul
		{"indirect", []uint64{1, 6, 7}, 0xFFFFFFFF}, // its $sub: -1
		{"passive", []uint64{6, 7}, 55},             // a passive segment: $add + $mul
		{"refs", []uint64{4}, 32},                   // ref.func in a global and in code
		{"classify", []uint64{0}, 100},              // br_table
		{"classify", []uint64{1}, 200},
		{"classify", []uint64{2}, 300},
		{"classify", []uint64{9}, 300},
		{"simd", nil, 136},         // 1 + ... + 16
		{"bulk", []uint64{7}, 150}, // 100 filled + 50 copied
		{"square_ref", nil, 0},     // a declared reference is not null
	}
	for _, instrumented := range []bool{false, true} {
		mod := semantics(t, instrumented)
		for _, c := range calls {
			res, err := mod.ExportedFunction(c.fn).Call(context.Background(), c.args...)
			if err != nil || len(res) != 1 || uint32(res[0]) != c.want {
				t.Errorf("instrumented %v: %s%v = %v, %v; want %d", instrumented, c.fn, c.args, res, err, c.want)
			}
		}
	}
}

// The name section follows the renumbering: a trap names the function
// that trapped, in the instrumented module as in the original.
func TestInstrumentedModuleKeepsItsNames(t *testing.T) {
	for _, instrumented := range []bool{false, true} {
		_, err := semantics(t, instrumented).ExportedFunction("crash").Call(context.Background())
		// $boom is named by the name section alone (it is not exported).
		if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), ".boom()\n") ||
			!strings.Contains(err.Error(), ".crash() i32") {
			t.Errorf("instrumented %v: the trap reads %v", instrumented, err)
		}
	}
}

// spinning instantiates spin.wat, instrumented, with an env.started that
// closes the returned channel when the guest is under way.
func spinning(t *testing.T) (api.Module, chan struct{}) {
	t.Helper()
	rt := newRuntime(t, true)
	started := make(chan struct{}, 1)
	if _, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func() { started <- struct{}{} }).Export("started").
		Instantiate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return instantiate(t, rt, instrument(t, wat(t, "spin")), "spin"), started
}

// A guest that loops forever, one that recurses 2^60 times without a loop
// (which wazero's own checks, at loop headers only, would not stop), by
// itself or through two functions, and one whose calls fan out 2^64 times
// without recursion are stopped at their deadline or when their context is
// cancelled, with the exit error wazero's checks give.
func TestRunawayCallsAreStopped(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		args []uint64
		stop string // "timeout", "deadline" (WithDeadline) or "cancel"
		code uint32
	}{
		{"spin", nil, "timeout", sys.ExitCodeDeadlineExceeded},
		{"fork", []uint64{60}, "timeout", sys.ExitCodeDeadlineExceeded},
		{"spin", nil, "deadline", sys.ExitCodeDeadlineExceeded},
		{"fork", []uint64{60}, "deadline", sys.ExitCodeDeadlineExceeded},
		{"spin", nil, "cancel", sys.ExitCodeContextCanceled},
		{"fork", []uint64{60}, "cancel", sys.ExitCodeContextCanceled},
		{"pingpong", []uint64{60}, "timeout", sys.ExitCodeDeadlineExceeded},
		{"pingpong", []uint64{60}, "cancel", sys.ExitCodeContextCanceled},
		{"fan", nil, "timeout", sys.ExitCodeDeadlineExceeded},
		{"fan", nil, "cancel", sys.ExitCodeContextCanceled},
	} {
		t.Run(tc.fn+"/"+tc.stop, func(t *testing.T) {
			mod, started := spinning(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			switch tc.stop {
			case "timeout":
				ctx, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
			case "deadline":
				ctx = WithDeadline(ctx, time.Now().Add(200*time.Millisecond))
			case "cancel":
				go func() { <-started; cancel() }()
			}
			done := make(chan error, 1)
			go func() {
				_, err := mod.ExportedFunction(tc.fn).Call(ctx, tc.args...)
				done <- err
			}()
			select {
			case err := <-done:
				var exit *sys.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
					t.Fatalf("got %v, want exit code %d", err, tc.code)
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("the call was not stopped")
			}
		})
	}
}

// While a guest loops, the garbage collector can still stop the world: the
// guest leaves compiled code at every tick. Without that a collection would
// wait for the loop forever, and this test would hang until its timeout.
func TestGarbageCollectionRunsWhileAGuestLoops(t *testing.T) {
	mod, started := spinning(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := mod.ExportedFunction("spin").Call(ctx)
		done <- err
	}()
	<-started
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	select {
	case err := <-done:
		t.Fatalf("the loop ended on its own: %v", err)
	default:
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled loop returned no error")
	}
}

// What the rewriter cannot read is an error, never a panic or a module
// that means something else.
func TestInstrumentRefuses(t *testing.T) {
	sem := wat(t, "semantics")
	header := []byte("\x00asm\x01\x00\x00\x00")
	// A function body holding opcode 0x06 (exception handling's try).
	try := append(append([]byte{}, header...),
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type: func [] -> []
		0x03, 0x02, 0x01, 0x00, // function 0 of type 0
		0x0A, 0x07, 0x01, 0x05, 0x00, 0x06, 0x40, 0x0B, 0x0B) // code: try end end
	imports := append(append([]byte{}, header...),
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
		0x02, 0x19, 0x01, 0x10)
	imports = append(imports, ImportModule...)
	imports = append(imports, 0x04)
	imports = append(imports, "tick"...)
	imports = append(imports, 0x00, 0x00)
	for _, tc := range []struct {
		name string
		wasm []byte
		want string
	}{
		{"empty", nil, "not a WebAssembly 1.0 module"},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"), "not a WebAssembly 1.0 module"},
		{"truncated", sem[:len(sem)/2], "runs past the end"},
		{"unknown section", append(append([]byte{}, header...), 0x20, 0x00), "unknown section id 32"},
		{"unknown opcode", try, "opcode 0x6"},
		{"own import", imports, "already imports " + ImportModule},
	} {
		out, err := Instrument(tc.wasm)
		if err == nil || !strings.Contains(err.Error(), tc.want) || out != nil {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// FuzzInstrument holds the rewriter to never panicking, whatever the
// bytes, and to giving wazero a module it accepts whenever it accepted the
// original.
func FuzzInstrument(f *testing.F) {
	for _, name := range []string{"semantics", "spin", "env"} {
		f.Add(wat(f, name))
	}
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, err := Instrument(wasm)
		if err != nil {
			return
		}
		ctx := context.Background()
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(false))
		defer rt.Close(ctx)
		if _, err := rt.CompileModule(ctx, wasm); err != nil {
			return
		}
		if _, err := rt.CompileModule(ctx, out); err != nil {
			t.Fatalf("the original compiles, the instrumented module does not: %v", err)
		}
	})
}
