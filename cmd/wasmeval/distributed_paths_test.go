package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// assetsProblem is a problem that names, under the mount root shared,
// a static asset file (by a path relative to the problem that leads out
// of it), a static asset directory (by an absolute path) and its one
// checkpoint's directory (holding the group file): each case prints the
// sha256 of the bytes it reads through {{static:NAME}}, and expects the
// digest of what shared holds.
func assetsProblem(t *testing.T) (prob, sub, shared string) {
	t.Helper()
	root := t.TempDir()
	shared = filepath.Join(root, "shared")
	blob, inner := make([]byte, 4096), make([]byte, 1000)
	rand.Read(blob)
	rand.Read(inner)
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	files := map[string]string{
		"problem/config.yaml": "name: assets\nversion: 1\nentry_file: show.py\ncommand: python3 {entry_file}\nadapter: {type: cli}\ntimeout: 60\n" +
			"static_assets:\n  blob: {path: ../shared/blob.bin}\n  tree: {path: " + filepath.Join(shared, "tree") + "}\n" +
			"checkpoints:\n  c1:\n    path: ../shared/c1\n    groups:\n      g1: {type: Core}\n",
		"problem/spec.md": "assets\n",
		"shared/c1/g1.yaml": "blob:\n  arguments: [\"{{static:blob}}\"]\n  expected: {status_code: 0, output: \"" + sum(blob) + "\\n\"}\n" +
			"tree:\n  arguments: [\"{{static:tree}}\"]\n  expected: {status_code: 0, output: \"" + sum(inner) + "\\n\"}\n",
		"shared/blob.bin":           string(blob),
		"shared/tree/inner/x.bin":   string(inner),
		"shared/unrelated/note.txt": "not named by the problem\n",
		"sub/show.py": "import hashlib, os, sys\np = sys.argv[1]\nif os.path.isdir(p):\n    p = os.path.join(p, 'inner', 'x.bin')\n" +
			"print(hashlib.sha256(open(p, 'rb').read()).hexdigest())\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "problem"), filepath.Join(root, "sub"), shared
}

// What the problem names under the coordinator's --mount-root — a static
// asset file, a static asset directory, the checkpoint directory its
// cases come from — travels by digest: a worker without the mount root
// (or anything of shared) runs the cases on the same bytes as a run on
// one machine, and their outputs are the local run's.
func TestDistributedRunSendsPathsUnderTheMountRoot(t *testing.T) {
	srv := natstest.Start(t)
	w := startQueueWorker(t, srv.URL(), "w1")
	prob, sub, shared := assetsProblem(t)
	localCode, local := runRecords(t, filepath.Join(t.TempDir(), "local"), "run", prob, "--submission", sub, "--mount-root", shared)
	distCode, dist := runRecords(t, filepath.Join(t.TempDir(), "dist"), "run", prob, "--submission", sub, "--mount-root", shared, "--queue", srv.URL())
	if localCode != 0 || distCode != 0 {
		t.Errorf("local run exited %d, distributed %d; want 0\nworker:\n%s", localCode, distCode, w.out)
	}
	if len(local) != 2 || len(dist) != 2 {
		t.Fatalf("%d cases local, %d distributed; want 2 in each", len(local), len(dist))
	}
	for k, l := range local {
		d := dist[k]
		if d == nil {
			t.Errorf("%s: not in the distributed run", k)
			continue
		}
		if result.OutcomeOf(l) != result.OutcomePassed || result.OutcomeOf(d) != result.OutcomePassed {
			t.Errorf("%s: local %s (%q), distributed %s (%q, error %q); want both passed", k, result.OutcomeOf(l), l.Result.Output, result.OutcomeOf(d), d.Result.Output, d.Result.Error)
		}
		if d.Result.Output != l.Result.Output || len(strings.TrimSpace(l.Result.Output)) != 64 {
			t.Errorf("%s: the worker's case read bytes whose sha256 is %q, the local run's %q", k, d.Result.Output, l.Result.Output)
		}
	}
}

// A directory the problem names under --mount-root that holds a symlink
// cannot be sent as the local run reads it: the run is refused before any
// group is handed out, naming the link and why.
func TestDistributedRunRefusesASymlinkInAPathUnderTheMountRoot(t *testing.T) {
	srv := natstest.Start(t)
	prob, sub, shared := assetsProblem(t)
	link := filepath.Join(shared, "tree", "inner", "link.bin")
	if err := os.Symlink(filepath.Join(shared, "blob.bin"), link); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, "run", prob, "--submission", sub, "--mount-root", shared, "--queue", srv.URL(),
		"--out", filepath.Join(t.TempDir(), "dist"), "--progress", "none", "--no-history")
	code := p.wait(t, "the distributed run")
	out := p.out.String()
	if code != exitUsage || !strings.Contains(out, "a distributed run cannot send what the problem names under --mount-root: "+filepath.Join(shared, "tree")) ||
		!strings.Contains(out, link+" is a symlink") {
		t.Errorf("run exited %d, want %d and the symlink named with why:\n%s", code, exitUsage, out)
	}
}

// A path under --mount-root that holds the problem itself (a static asset
// "..") is refused before any group is handed out: the problem travels
// on its own, and the message says what to name instead.
func TestDistributedRunRefusesAPathHoldingTheProblem(t *testing.T) {
	srv := natstest.Start(t)
	prob, sub, _ := assetsProblem(t)
	cfg := filepath.Join(prob, "config.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(b), "static_assets:\n", "static_assets:\n  all: {path: ..}\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(prob)
	p := startProc(t, "run", prob, "--submission", sub, "--mount-root", root, "--queue", srv.URL(),
		"--out", filepath.Join(t.TempDir(), "dist"), "--progress", "none", "--no-history")
	code := p.wait(t, "the distributed run")
	if out := p.out.String(); code != exitUsage || !strings.Contains(out, root+" holds the problem directory "+prob) {
		t.Errorf("run exited %d, want %d and the path named with why:\n%s", code, exitUsage, out)
	}
}
