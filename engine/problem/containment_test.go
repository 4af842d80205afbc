package problem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
)

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// loadErr loads dir and returns its diagnostics as text; the load must fail.
func loadErr(t *testing.T, dir string, opts Options) string {
	t.Helper()
	_, err := Load(dir, opts)
	if err == nil {
		t.Fatalf("%s loaded; expected it to be refused", dir)
	}
	diagsOf(t, err)
	return err.Error()
}

func wantAll(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in:\n%s", w, text)
		}
	}
}

// A secret next to the problem directory, which a hostile problem tries
// to reach in every way it can name a path.
func hostileBase(t *testing.T) (base, dir, secret string) {
	base = t.TempDir()
	dir = filepath.Join(base, "problem")
	secret = filepath.Join(base, "secret")
	if err := os.MkdirAll(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(secret, "shadow"), []byte("root:x:0:0\n"), 0o600)
	os.WriteFile(filepath.Join(secret, "config.yaml"), []byte("groups: {g: {type: Core}}\n"), 0o644)
	os.WriteFile(filepath.Join(secret, "spec.yaml"), []byte("image: x\n"), 0o644)
	return base, dir, secret
}

// Absolute paths and .. that leave the problem are refused wherever the
// configuration names a path, each at its file, key and line.
func TestPathsOutsideTheProblemAreRefused(t *testing.T) {
	_, dir, secret := hostileBase(t)
	files := map[string]string{
		"config.yaml": `name: p
entry_file: main.py
environment: ../secret/spec.yaml
static_assets:
  sock: {path: /var/run}
  up: {path: ../secret/shadow}
verifier: {type: plugin, path: /etc/passwd.wasm, sha256: ` + strings.Repeat("0", 64) + `}
checks:
  - {kind: file, path: out.txt, expected_file: ../secret/shadow}
checkpoints:
  c1:
    path: ../../../../etc
    groups: {g: {type: Core}}
  c2:
    path: ` + secret + `
    groups: {g: {type: Core}}
`,
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	cfg := filepath.Join(dir, "config.yaml")
	text := loadErr(t, dir, testOpts)
	wantAll(t, text,
		cfg+`:3: environment: environment spec: path "../secret/spec.yaml" is outside the problem directory`,
		cfg+`:5: static_assets.sock.path: static asset: path "/var/run" is outside the problem directory`,
		cfg+`:6: static_assets.up.path: static asset: path "../secret/shadow" is outside the problem directory`,
		cfg+`:7: verifier.path: plugin file: path "/etc/passwd.wasm" is outside the problem directory`,
		cfg+`:9: checks[0].expected_file: expected a path relative to the problem directory that stays inside it, got "../secret/shadow"`,
		cfg+`:12: checkpoints.c1.path: checkpoint directory: path "../../../../etc" is outside the problem directory`,
		cfg+`:15: checkpoints.c2.path: checkpoint directory: path "`+secret+`" is outside the problem directory`,
	)
}

// Symlinks in the problem directory are followed only while they stay
// inside it: a checkpoint directory, a list-form checkpoint's config, a
// group file, a constant file, a static asset, an environment spec, a
// plugin and a check's expected file that lead out are all refused.
func TestSymlinksLeavingTheProblemAreRefused(t *testing.T) {
	_, dir, secret := hostileBase(t)
	module := "\x00asm\x01\x00\x00\x00"
	os.WriteFile(filepath.Join(secret, "v.wasm"), []byte(module), 0o644)
	write := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	write("config.yaml", `name: p
entry_file: main.py
environment: env.yaml
static_assets:
  shadow: {path: static/shadow}
verifier: {type: plugin, path: plugins/v.wasm, sha256: `+pin.Digest([]byte(module))+`}
checks:
  - {kind: file, path: out.txt, expected_file: expected/shadow}
checkpoints: [c1, c2, c3]
`)
	link(t, filepath.Join(secret, "spec.yaml"), filepath.Join(dir, "env.yaml"))
	link(t, filepath.Join(secret, "shadow"), filepath.Join(dir, "static", "shadow"))
	link(t, filepath.Join(secret, "v.wasm"), filepath.Join(dir, "plugins", "v.wasm"))
	link(t, "../../secret/shadow", filepath.Join(dir, "expected", "shadow"))
	link(t, secret, filepath.Join(dir, "c1"))                                              // the whole checkpoint directory
	link(t, filepath.Join(secret, "config.yaml"), filepath.Join(dir, "c2", "config.yaml")) // its config
	write("c3/config.yaml", "constant_files: [shadow]\ngroups:\n  g:\n    type: Core\n    group_files: [passwd]\n")
	link(t, filepath.Join(secret, "shadow"), filepath.Join(dir, "c3", "shadow"))
	link(t, "/etc/passwd", filepath.Join(dir, "c3", "passwd"))

	cfg := filepath.Join(dir, "config.yaml")
	text := loadErr(t, dir, testOpts)
	through := "leads outside the problem directory through a symlink"
	wantAll(t, text,
		cfg+`:3: environment: environment spec: path "env.yaml" `+through,
		cfg+`:5: static_assets.shadow.path: static asset: path "static/shadow" `+through,
		cfg+`:6: verifier.path: plugin file: path "plugins/v.wasm" `+through,
		cfg+`:8: checks[0].expected_file: path "expected/shadow" `+through,
		cfg+`:9: checkpoints[0]: checkpoint "c1": path "`+filepath.Join(dir, "c1", "config.yaml")+`" `+through,
		cfg+`:9: checkpoints[1]: checkpoint "c2": path "`+filepath.Join(dir, "c2", "config.yaml")+`" `+through,
		filepath.Join(dir, "c3", "config.yaml")+`:1: constant_files[0]: path "`+filepath.Join(dir, "c3", "shadow")+`" `+through,
		filepath.Join(dir, "c3", "config.yaml")+`:5: groups.g.group_files[0]: path "`+filepath.Join(dir, "c3", "passwd")+`" `+through,
	)
	if strings.Contains(text, "root:x") {
		t.Errorf("the secret's content reached a message:\n%s", text)
	}
}

// Symlinks that stay inside the problem keep working, and a directory the
// user allowed with a mount root may be named — by an absolute path or a
// symlink — while the same problem without the mount root is refused.
func TestInsideLinksAndMountRoots(t *testing.T) {
	base, dir, _ := hostileBase(t)
	shared := filepath.Join(base, "shared")
	os.MkdirAll(filepath.Join(shared, "c2", "g", "a"), 0o755)
	os.WriteFile(filepath.Join(shared, "c2", "g", "a", "case.yaml"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(shared, "big.csv"), []byte("x\n"), 0o644)
	files := map[string]string{
		"config.yaml": `name: p
entry_file: main.py
static_assets:
  local: {path: static/alias.csv}
  big: {path: ` + filepath.Join(shared, "big.csv") + `}
  linked: {path: data/big.csv}
checkpoints:
  c1:
    path: cp1
    groups: {g: {type: Core, group_files: [alias.txt]}}
  c2:
    path: ` + filepath.Join(shared, "c2") + `
    groups: {g: {type: Core}}
`,
		"real/catalog.csv":    "sku\n",
		"real1/g/a/case.yaml": "{}\n",
		"real1/notes.txt":     "n\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	link(t, "../real/catalog.csv", filepath.Join(dir, "static", "alias.csv"))
	link(t, "real1", filepath.Join(dir, "cp1"))
	link(t, "notes.txt", filepath.Join(dir, "real1", "alias.txt"))
	link(t, shared, filepath.Join(dir, "data"))

	text := loadErr(t, dir, testOpts)
	wantAll(t, text, "static_assets.big.path", "static_assets.linked.path", "checkpoints.c2.path")
	if strings.Contains(text, "static_assets.local") || strings.Contains(text, "checkpoints.c1") {
		t.Errorf("links inside the problem were refused:\n%s", text)
	}

	opts := testOpts
	opts.MountRoots = []string{shared}
	p, err := Load(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.StaticAssets["local"].Path; got != filepath.Join(dir, "static", "alias.csv") {
		t.Errorf("an asset keeps the path it was named by: %s", got)
	}
	if got := p.Checkpoint("c2").Dir; got != filepath.Join(shared, "c2") {
		t.Errorf("checkpoint under a mount root: %s", got)
	}
	if got := p.Checkpoint("c1").Groups[0].GroupFiles; len(got) != 1 || got[0] != filepath.Join(dir, "cp1", "alias.txt") {
		t.Errorf("group files: %v", got)
	}
	if data, err := p.Files.ReadFile(filepath.Join(dir, "data", "big.csv")); err != nil || string(data) != "x\n" {
		t.Errorf("the problem's tree under a mount root: %q %v", data, err)
	}
}

// A static asset must be a file or a directory: a socket inside the
// problem (a daemon's API) is refused like one outside it.
func TestStaticAssetMustBeFileOrDirectory(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml":      "name: p\nentry_file: main.py\nstatic_assets:\n  s: {path: s.sock}\ncheckpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
		"c1/g/a/case.yaml": "{}\n",
	})
	if err := mkfifo(filepath.Join(dir, "s.sock")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	text := loadErr(t, dir, testOpts)
	wantAll(t, text, `config.yaml:4: static_assets.s.path: static asset: "s.sock" is neither a regular file nor a directory`)
}

// A problem named by a relative path is read from where the path leads,
// however deep the working directory is below it.
func TestRelativeProblemPath(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"p/config.yaml":      "name: p\nentry_file: main.py\ncheckpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
		"p/c1/g/a/case.yaml": "{}\n",
		"a/b/c/.keep":        "",
	})
	t.Chdir(filepath.Join(dir, "a", "b", "c"))
	p, err := Load("../../../p", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != filepath.Join(dir, "p") || p.File != "../../../p/config.yaml" {
		t.Fatalf("dir %s, file %s", p.Dir, p.File)
	}
}
