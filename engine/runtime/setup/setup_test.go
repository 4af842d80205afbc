package setup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

func open(t *testing.T, rt runtime.Runtime) (runtime.Session, error) {
	t.Helper()
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "main.sh"), []byte("echo hi\n"), 0o755)
	return rt.Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "cp/g"})
}

func TestSetupRunsOnceInTheWorkspaceWithItsOutputApart(t *testing.T) {
	logs := t.TempDir()
	rt := Wrap(local.New(local.Options{BaseDir: t.TempDir()}), map[string]string{"FROM_SPEC": "spec", "HOME": "/nowhere"},
		[]string{"echo built > built.txt; echo setup-out", "echo setup-err >&2"}, logs)
	s, err := open(t, rt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if b, err := os.ReadFile(filepath.Join(s.Workdir(), "built.txt")); err != nil || string(b) != "built\n" {
		t.Errorf("setup did not run in the workspace: %q %v", b, err)
	}
	res, err := s.Exec(context.Background(), runtime.ExecRequest{
		Argv: []string{"sh", "-c", "echo $FROM_SPEC $HOME"}, Env: adapter.ProcessEnv(s.Workdir(), nil), Timeout: 10 * time.Second})
	if err != nil || string(res.Stdout) != "spec /nowhere\n" {
		t.Errorf("case: %q %v (the spec's env applies over the base)", res.Stdout, err)
	}
	matches, _ := filepath.Glob(filepath.Join(logs, "cp_g-*.log"))
	if len(matches) != 1 {
		t.Fatalf("setup logs: %v", matches)
	}
	b, _ := os.ReadFile(matches[0])
	for _, want := range []string{"$ echo built", "setup-out", "setup-err", "[exit status 0]"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("setup log lacks %q:\n%s", want, b)
		}
	}
}

func TestFailingSetupFailsTheSession(t *testing.T) {
	base := t.TempDir()
	rt := Wrap(local.New(local.Options{BaseDir: base}), nil, []string{"true", "echo broken toolchain >&2; exit 4", "echo never > never.txt"}, t.TempDir())
	_, err := open(t, rt)
	if err == nil || !strings.Contains(err.Error(), `setup command 2`) || !strings.Contains(err.Error(), "exit status 4") || !strings.Contains(err.Error(), "broken toolchain") {
		t.Fatalf("got %v", err)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("workspace of a failed setup left behind: %v", ents)
	}
}

func TestNothingToAddKeepsTheRuntime(t *testing.T) {
	inner := local.New(local.Options{})
	if Wrap(inner, nil, nil, "") != runtime.Runtime(inner) {
		t.Error("wrapped for nothing")
	}
}
