package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

var misbehave struct {
	once sync.Once
	path string
	err  error
}

// misbehaveWasm builds the host's misbehaving test plugin once for the
// tests of this package that need a plugin doing the wrong thing.
func misbehaveWasm(t *testing.T) string {
	t.Helper()
	misbehave.once.Do(func() {
		dir, err := os.MkdirTemp("", "wasmeval-misbehave")
		if err != nil {
			misbehave.err = err
			return
		}
		misbehave.path = filepath.Join(dir, "misbehave.wasm")
		misbehave.err = pluginbuild.Build("../../plugins/host/testdata/misbehave", misbehave.path)
	})
	if misbehave.err != nil {
		t.Fatal(misbehave.err)
	}
	return misbehave.path
}

func verifyInput(mode string) string {
	return `{"abi_version":1,"config":{"mode":"` + mode + `"},"case":{"id":"a"},"actual":{"status_code":0,"output":"","stderr":""},"expected":{}}`
}

// An output that violates its envelope's schema fails plugin call, as its
// help says, with each violation worded for the author.
func TestPluginCallRefusesOutputOutsideItsEnvelope(t *testing.T) {
	r := wasmeval(t, "plugin", "call", misbehaveWasm(t), "verify", "--input", verifyInput("badenvelope"))
	want := "the verify output does not match the verify_output schema: at '/attributes/0': missing property 'weight'; " +
		"at '/attributes/0/attribute': is empty, expected a non-empty string; at '/attributes/0/is_correct': got string, want boolean"
	if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "warning") {
		t.Errorf("exit %d, stderr %q, want exit 1 and %q", r.code, r.stderr, want)
	}
	if !strings.Contains(r.stdout, `"is_correct": "yes"`) {
		t.Errorf("the output is not printed for the author to read: %q", r.stdout)
	}
}
