package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/problem"
)

func TestTreeDigestChangesWithContentNotTime(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("beta"), 0o644)
	d1, n, err := TreeDigest(dir)
	if err != nil || n != 2 || len(d1) != 64 {
		t.Fatalf("digest %q files %d: %v", d1, n, err)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "a.txt"), later, later)
	if d, _, _ := TreeDigest(dir); d != d1 {
		t.Error("a timestamp change changed the digest")
	}
	os.Rename(filepath.Join(dir, "sub", "b.txt"), filepath.Join(dir, "sub", "c.txt"))
	d2, _, _ := TreeDigest(dir)
	if d2 == d1 {
		t.Error("a rename did not change the digest")
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alphA"), 0o644)
	if d, _, _ := TreeDigest(dir); d == d2 {
		t.Error("an edit did not change the digest")
	}
	if _, _, err := TreeDigest(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory has a digest")
	}
}

func TestChangesNamesWhatChanged(t *testing.T) {
	old := &Manifest{Problem: Problem{Name: "p", ConfigDigest: "c1", Digest: "d1"}, Submission: Submission{Digest: "s1"},
		Plugins: map[string]string{"plugins/v.wasm": "aaaaaaaaaaaaaaaa", "plugins/gone.wasm": "bb"}}
	same := *old
	if ch := Changes(old, &same); len(ch) != 0 {
		t.Fatalf("identical manifests: %v", ch)
	}
	cur := &Manifest{Problem: Problem{Name: "p", ConfigDigest: "c2", Digest: "d1"}, Submission: Submission{Digest: "s2"},
		Plugins: map[string]string{"plugins/v.wasm": "cccccccccccccccc", "plugins/new.wasm": "dd"},
		Host:    Host{Hostname: "elsewhere"}, Flags: Flags{Jobs: 8}}
	got := strings.Join(Changes(old, cur), "\n")
	for _, want := range []string{"problem config digest changed (was c1, now c2)", "plugin plugins/v.wasm digest changed (was aaaaaaaaaaaa, now cccccccccccc)",
		"plugin plugins/gone.wasm is no longer used", "plugin plugins/new.wasm was added", "submission digest changed"} {
		if !strings.Contains(got, want) {
			t.Errorf("changes lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "host") || strings.Contains(got, "jobs") || strings.Contains(got, "problem digest (") {
		t.Errorf("changes list what does not matter:\n%s", got)
	}
	// With the problem unchanged, a plugin the older manifest did not list
	// (one only case files bind) is not a change; one changed still is.
	listed := *old
	listed.Plugins = map[string]string{"plugins/v.wasm": "aaaaaaaaaaaaaaaa", "plugins/gone.wasm": "bb", "../shared/r.wasm": "ee"}
	if ch := Changes(old, &listed); len(ch) != 0 {
		t.Errorf("a plugin listed now, the problem unchanged: %v", ch)
	}
	listed.Plugins["plugins/v.wasm"] = "ffffffffffffffff"
	if ch := Changes(old, &listed); len(ch) != 1 || !strings.Contains(ch[0], "plugins/v.wasm digest changed") {
		t.Errorf("a changed plugin, the problem unchanged: %v", ch)
	}
}

// A run's epochs and their reducer decide how its records count: a resume
// may not change them.
func TestChangesOfEpochs(t *testing.T) {
	old := &Manifest{Flags: Flags{Epochs: 4, Reducer: "mean"}}
	for _, tc := range []struct {
		cur  Flags
		want string
	}{
		{Flags{Epochs: 4, Reducer: "mean"}, ""},
		{Flags{Epochs: 2, Reducer: "mean"}, "--epochs changed (was 4, now 2)"},
		{Flags{Epochs: 4, Reducer: "max"}, "--epoch-reducer changed (was mean, now max)"},
	} {
		got := strings.Join(Changes(old, &Manifest{Flags: tc.cur}), "\n")
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.cur, got, tc.want)
		}
	}
	if ch := Changes(&Manifest{}, &Manifest{Flags: Flags{Epochs: 1}}); len(ch) != 0 {
		t.Errorf("one epoch, said or not, is no change: %v", ch)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Schema: SchemaVersion, RunID: "r1", Status: StatusRunning, Runtime: Runtime{Name: "docker", Images: map[string]string{"img:1": "sha256:abc"}}}
	if err := Write(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil || got.RunID != "r1" || got.Runtime.Images["img:1"] != "sha256:abc" {
		t.Fatalf("read back: %+v %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"schema": 99}`), 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("future schema: %v", err)
	}
}

// A problem loaded from a file (an eval-case dataset) is recorded by that
// file, so a resume loads it again, and plugins its cases bind are pinned
// with the groups' ones.
func TestNewRecordsWhatWasLoaded(t *testing.T) {
	dir := t.TempDir()
	sub := t.TempDir()
	data := filepath.Join(dir, "data.json")
	os.WriteFile(data, []byte("[]"), 0o644)
	ref := &problem.PluginRef{Path: filepath.Join(dir, "plugins", "judge.wasm"), SHA256: strings.Repeat("AB", 32)}
	p := &problem.Problem{Name: "d", Dir: dir, Path: data, CasePlugins: []*problem.PluginRef{ref}}
	m, err := New(Input{Problem: p, Submission: sub, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if m.Problem.Path != data {
		t.Errorf("problem path %s, want %s", m.Problem.Path, data)
	}
	if got := m.Plugins["plugins/judge.wasm"]; got != strings.Repeat("ab", 32) {
		t.Errorf("plugins %v", m.Plugins)
	}
	p.Path = ""
	if m, _ := New(Input{Problem: p, Submission: sub, Start: time.Now()}); m.Problem.Path != dir {
		t.Errorf("without a path: %s, want the directory", m.Problem.Path)
	}
}
