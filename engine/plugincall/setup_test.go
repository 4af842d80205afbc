package plugincall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A setup plugin built with the Go SDK (testdata/setup) prepares a task:
// its actions become the sandbox steps the task-spec front-end runs,
// reading the task's files through read_asset.
func TestSetupSteps(t *testing.T) {
	wasm := filepath.Join(t.TempDir(), "setup.wasm")
	if err := pluginbuild.Build("./testdata/setup", wasm); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{CacheDir: filepath.Join(os.TempDir(), "wasmeval-host-test-cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	p, err := h.Load(context.Background(), wasm, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Describe(); !p.HasKind(abi.KindSetup) || !slices.Equal(d.Functions, []string{"refuse", "seed"}) {
		t.Fatalf("describe lists the setup package's functions: %+v", d)
	}

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "seed"), 0o755)
	os.WriteFile(filepath.Join(dir, "seed", "rows.csv"), []byte("id\n1\n2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "task.json"), []byte("{}"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "link"))
	task := SetupTask{ID: "t-7", Instruction: "count the rows", Dir: dir, Name: "config[0] seed"}

	steps, err := SetupSteps(context.Background(), p, "seed", map[string]any{"from": "seed/rows.csv"}, task)
	if err != nil {
		t.Fatal(err)
	}
	want := []cases.SetupStep{
		{Name: "config[0] seed actions[2]", Files: []cases.InputFile{
			{Path: "data/seed/rows.csv", Content: []byte("id\n1\n2\n")},
			{Path: "manifest.txt", Content: []byte("t-7: seed/rows.csv task.json")}},
			Command: []string{"sh", "-c", "wc -l data/seed/rows.csv"}},
		{Name: "config[0] seed actions[3]", Files: []cases.InputFile{{Path: "done.flag", Content: []byte{}}}},
	}
	if !reflect.DeepEqual(steps, want) {
		t.Fatalf("steps\n got %+v\nwant %+v", steps, want)
	}

	// The function's own refusal, and a name the plugin does not have,
	// are the plugin's answer, not a fault; the message says which.
	for fn, msg := range map[string]string{
		"refuse": "cannot seed task t-7",
		"nope":   `unknown setup function "nope" (functions: refuse, seed)`,
	} {
		_, err = SetupSteps(context.Background(), p, fn, nil, task)
		var se *SetupError
		if !errors.As(err, &se) || se.Message != msg || se.Function != fn || se.Plugin != p.Label() {
			t.Errorf("%s: got %v, want the plugin's error %q", fn, err, msg)
		}
	}
	// A file outside the task directory cannot be read.
	_, err = SetupSteps(context.Background(), p, "seed", map[string]any{"from": "../outside"}, task)
	if se := (*SetupError)(nil); !errors.As(err, &se) || se.Message != "no task file ../outside" {
		t.Errorf("got %v", err)
	}
}

// One step of files and a command, named after the function alone; a
// plugin that returns no actions gives no steps.
func TestSetupStepsGrouping(t *testing.T) {
	steps, err := setupSteps([]abi.SetupAction{
		{Write: &abi.SetupWrite{Path: "a/./b.bin", ContentBase64: "AAE="}},
		{Run: &abi.SetupRun{Command: []string{"true"}}},
	}, "prep")
	want := []cases.SetupStep{{Name: "prep", Files: []cases.InputFile{{Path: "a/b.bin", Content: []byte{0, 1}}}, Command: []string{"true"}}}
	if err != nil || !reflect.DeepEqual(steps, want) {
		t.Fatalf("got %+v %v", steps, err)
	}
	if steps, err := setupSteps(nil, "prep"); err != nil || len(steps) != 0 {
		t.Fatalf("no actions: %+v %v", steps, err)
	}
}
