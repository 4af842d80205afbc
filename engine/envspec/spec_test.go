package envspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFullSpec(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "data"), 0o755)
	file := write(t, dir, "env.yaml", `image: wasmeval/python:1
workdir: /work
user: "1000:1000"
env: {A: "1"}
mounts:
  - {source: data, target: /data}
  - {source: data, target: /out, writable: true}
network: bridge
cpus: 1.5
memory: 512MiB
pids: 100
setup: ["pip --version"]
command: python3 -u {entry_file}
`)
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "data"))
	if s.Runtime != Docker || s.Workdir != "/work" || s.User != "1000:1000" || s.Env["A"] != "1" ||
		s.Network != "bridge" || s.NanoCPUs != 1_500_000_000 || s.Memory != 512<<20 || s.Pids != 100 ||
		len(s.Setup) != 1 || s.Command != "python3 -u {entry_file}" {
		t.Errorf("spec: %+v", s)
	}
	if len(s.Mounts) != 2 || s.Mounts[0] != (Mount{Source: real, Target: "/data"}) || !s.Mounts[1].Writable {
		t.Errorf("mounts: %+v", s.Mounts)
	}
}

func TestDefaults(t *testing.T) {
	s, err := Load(write(t, t.TempDir(), "env.yaml", "image: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Runtime != Docker || s.Workdir != DefaultWorkdir || s.Network != "none" || s.Pids != DefaultPids || s.Memory != 0 {
		t.Errorf("defaults: %+v", s)
	}
	s, err = Load(write(t, t.TempDir(), "env.yaml", "env: {A: b}\nsetup: [make]\n"))
	if err != nil || s.Runtime != Local {
		t.Errorf("a spec without image is local: %+v %v", s, err)
	}
}

// Every problem is reported at once, with file, key and line.
func TestBadSpecs(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	cases := []struct{ yaml, want string }{
		{"image: x\nmemroy: 1G\n", `env.yaml:2: memroy: unknown key "memroy"`},
		{"image: x\nmemory: lots\n", "env.yaml:2: memory: expected a size"},
		{"image: x\nmemory: 1k\n", "at least 6MiB"},
		{"image: x\ncpus: -1\n", "env.yaml:2: cpus: expected a positive number"},
		{"image: x\npids: 2\n", "env.yaml:2: pids: expected a limit of at least 8"},
		{"image: x\nworkdir: relative\n", "env.yaml:2: workdir: expected an absolute container path"},
		{"image: x\nuser: 'a b'\n", "env.yaml:2: user:"},
		{"image: x\nnetwork: container:abc\n", "env.yaml:2: network:"},
		{"runtime: podman\n", "env.yaml:1: runtime: unknown runtime"},
		{"runtime: docker\n", "image: required"},
		{"runtime: local\nimage: x\npids: 64\n", "pids: only applies to the docker runtime"},
		{"runtime: local\nmemory: 1k\n", "env.yaml:2: memory: expected at least 6MiB"},
		{"image: x\nmounts:\n  - source: " + outside + "\n    target: /d\n", "env.yaml:3: mounts[0].source: " + outside + " is outside the allowed mount roots"},
		{"image: x\nmounts:\n  - source: ../../../../../etc\n    target: /d\n", "is outside the allowed mount roots"},
		{"image: x\nmounts:\n  - source: missing\n    target: /d\n", "mounts[0].source: missing: no such file"},
		{"image: x\nmounts:\n  - source: .\n    target: /static/x\n", "mounts[0].target: expected an absolute container path"},
		{"image: x\nmounts:\n  - {source: ., target: /a}\n  - {source: ., target: /a/}\n", "mounts[1].target"},
		{"image: x\nenv: [a]\n", "env.yaml:2: env: expected a mapping"},
		{"image: [x\n", "malformed YAML"},
	}
	for _, c := range cases {
		_, err := Load(write(t, dir, "env.yaml", c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: want %q, got %v", c.yaml, c.want, err)
		}
	}
	// An extra allowed root admits a mount outside the spec's directory.
	if _, err := Load(write(t, dir, "env.yaml", "image: x\nmounts:\n  - {source: "+outside+", target: /d}\n"), outside); err != nil {
		t.Errorf("allowed root: %v", err)
	}
	// Two problems, both reported.
	_, err := Load(write(t, dir, "env.yaml", "image: x\ncpus: 0\npids: 1\n"))
	if err == nil || !strings.Contains(err.Error(), "cpus") || !strings.Contains(err.Error(), "pids") {
		t.Errorf("want both problems: %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512MiB": 512 << 20, "512M": 512 << 20, "2g": 2 << 30, "1.5GiB": 3 << 29, "64KB": 64 << 10} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("%s: %d %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "x", "1 parsec", "-1M"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
