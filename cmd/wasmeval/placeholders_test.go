package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/journal"
)

// placeholderFormat writes a problem of one front-end format whose command
// template (or server argument) is tmpl, and says which file and key path
// a mistake in it is reported under.
type placeholderFormat struct {
	name string
	// server: the submission is a server, and gets {{host}} and {{port}}.
	server bool
	write  func(t *testing.T, tmpl string) (path, file, key string)
}

var emptyWasm = "\x00asm\x01\x00\x00\x00"

func emptyWasmPin() string { s := sha256.Sum256([]byte(emptyWasm)); return hex.EncodeToString(s[:]) }

var placeholderFormats = []placeholderFormat{
	{"checkpointed cli", false, func(t *testing.T, tmpl string) (string, string, string) {
		dir := writeTree(t, map[string]string{"config.yaml": fmt.Sprintf("name: p\nentry_file: app.py\ncommand: %q\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", tmpl), "c1/g/a/cmd": "x"})
		return dir, filepath.Join(dir, "config.yaml"), "command"
	}},
	{"checkpointed api", true, func(t *testing.T, tmpl string) (string, string, string) {
		dir := writeTree(t, map[string]string{"config.yaml": fmt.Sprintf("name: p\nentry_file: app.py\ncommand: %q\nadapter: {type: api}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", tmpl), "c1/g/a/cmd": "x"})
		return dir, filepath.Join(dir, "config.yaml"), "command"
	}},
	{"checkpointed browser arguments", true, func(t *testing.T, tmpl string) (string, string, string) {
		tmpl = strings.Replace(tmpl, "python3 {entry_file}", "--quiet", 1)
		dir := writeTree(t, map[string]string{"config.yaml": fmt.Sprintf("name: p\nentry_file: app.py\nadapter: {type: browser, arguments: [--log, %q]}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", tmpl), "c1/g/a/cmd": "x"})
		return dir, filepath.Join(dir, "config.yaml"), "adapter.arguments[1]"
	}},
	{"eval-case dataset", false, func(t *testing.T, tmpl string) (string, string, string) {
		dir := writeTree(t, map[string]string{"eval.yaml": fmt.Sprintf("name: e\ndataset: data.json\nagent:\n  entry_file: agent.py\n  command: %q\n", tmpl),
			"data.json": `[{"id": "a", "category": "happy_path", "query": "Hi?", "expected_output_contains": ["hello"]}]`})
		return filepath.Join(dir, "eval.yaml"), filepath.Join(dir, "eval.yaml"), "agent.command"
	}},
	{"eval-case dataset served over HTTP", true, func(t *testing.T, tmpl string) (string, string, string) {
		dir := writeTree(t, map[string]string{"eval.yaml": fmt.Sprintf("name: e\ndataset: data.json\nagent:\n  entry_file: agent.py\n  command: %q\n  endpoint: /run\n", tmpl),
			"data.json": `[{"id": "a", "category": "happy_path", "query": "Hi?", "expected_output_contains": ["hello"]}]`})
		return filepath.Join(dir, "eval.yaml"), filepath.Join(dir, "eval.yaml"), "agent.command"
	}},
	{"task directories", false, func(t *testing.T, tmpl string) (string, string, string) {
		dir := writeTree(t, map[string]string{"wasmeval.yaml": fmt.Sprintf("name: t\nagent:\n  entry_file: agent.py\n  command: %q\ntest: {path: check.wasm, sha256: %s}\n", tmpl, emptyWasmPin()),
			"hello/task.yaml": "instruction: Say hi.\n", "check.wasm": emptyWasm})
		return dir, filepath.Join(dir, "wasmeval.yaml"), "agent.command"
	}},
	{"task specs", false, func(t *testing.T, tmpl string) (string, string, string) {
		dir := writeTree(t, map[string]string{"wasmeval.yaml": fmt.Sprintf("name: nb\nvm_home: /home/user\nagent: {entry_file: agent.py, command: %q}\nevaluators:\n  - {path: stdlib.wasm, sha256: %s}\n", tmpl, emptyWasmPin()),
			"stdlib.wasm": emptyWasm, "sheets/t3/t3.json": `{"id": "t3", "instruction": "Do the impossible.", "evaluation": {"func": "infeasible"}}`})
		return dir, filepath.Join(dir, "wasmeval.yaml"), "agent.command"
	}},
}

// A placeholder a field does not know — the other spelling of a known one,
// a misspelling, one only a server gets — is refused when the problem is
// loaded, in every front-end format that has command templates, with one
// line naming the file, the field, the placeholder and those the field
// knows; the right spellings load.
func TestPlaceholderMistakesAreRefusedInEveryFormat(t *testing.T) {
	opts := sourceOptions{functions: func(*checkspec.PluginRef) ([]string, error) { return []string{"compare_csv"}, nil }}
	for _, f := range placeholderFormats {
		known := "{entry_file}"
		good := "python3 {entry_file}"
		if f.server {
			known = "{entry_file}, {{host}}, {{port}}"
			good = "python3 {entry_file} --host {{host}} --port {{port}}"
			if strings.Contains(f.name, "arguments") {
				known = "{{host}}, {{port}}"
			}
		}
		for _, tc := range []struct{ tmpl, bad string }{
			{good, ""},
			{"python3 {entry_file} --port {port}", "{port}"},
			{"python3 {entry_file} --host {host}", "{host}"},
			{"python3 {{entry_file}}", "{{entry_file}}"},
			{"python3 {entry_file} {{bogus}}", "{{bogus}}"},
			{"python3 {entry-file}", "{entry-file}"},
			{`sh -c "awk '{print}' {entry_file}"`, ""}, // single braces of the command's own
		} {
			path, file, key := f.write(t, tc.tmpl)
			_, err := loadSource(path, opts)
			if tc.bad == "" {
				if err != nil {
					t.Errorf("%s, %q: %v", f.name, tc.tmpl, err)
				}
				continue
			}
			if err == nil {
				t.Errorf("%s, %q: loaded; want %s refused", f.name, tc.tmpl, tc.bad)
				continue
			}
			var line string
			for _, l := range strings.Split(err.Error(), "\n") {
				if strings.Contains(l, "placeholder") {
					line = l
				}
			}
			want := fmt.Sprintf("unknown placeholder %s (known here: %s", tc.bad, known)
			if !strings.HasPrefix(line, file) || !strings.Contains(line, ": "+key+": ") || !strings.Contains(line, want) {
				t.Errorf("%s, %q:\n got %q\nwant a line naming %s, %s and %q", f.name, tc.tmpl, err, file, key, want)
			}
		}
	}
}

// `wasmeval validate` refuses a problem whose command template misspells
// a placeholder, and `wasmeval run` a --command that does, before
// anything runs, each with one line.
func TestValidateAndRunRefuseAMisspelledPlaceholder(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": "name: p\nentry_file: app.py\ncommand: python3 {entry_file} --port {port}\nadapter: {type: api}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n",
		"c1/g/a/cmd":  "x",
	})
	res := wasmeval(t, "validate", dir)
	want := filepath.Join(dir, "config.yaml") + ":3: command: unknown placeholder {port} (known here: {entry_file}, {{host}}, {{port}}; did you mean {{port}}?)"
	if res.code == 0 || !strings.Contains(res.stderr, want) {
		t.Fatalf("validate: exit %d, stderr:\n%s\nwant the line %q", res.code, res.stderr, want)
	}

	good := writeTree(t, map[string]string{
		"config.yaml": "name: p\nentry_file: app.py\ncommand: python3 {entry_file} --port {{port}}\nadapter: {type: api}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n",
		"c1/g.yaml":   "a: {request: {path: /}, expected: {status_code: 200}}\n",
	})
	sub := writeTree(t, map[string]string{"app.py": "print('never run')\n"})
	out := filepath.Join(t.TempDir(), "out")
	res = wasmeval(t, "run", good, "--submission", sub, "--command", "python3 {entry_file} --host {host}", "-o", out)
	want = "--command: unknown placeholder {host} (known here: {entry_file}, {{host}}, {{port}}; did you mean {{host}}?)"
	if res.code != 2 || !strings.Contains(res.stderr, want) {
		t.Fatalf("run --command: exit %d, stderr:\n%s\nwant exit 2 and %q", res.code, res.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, journal.FileName)); err == nil {
		t.Errorf("a refused run wrote a journal in %s", out)
	}
}

// A server gets the env of the problem, its checkpoint and its group with
// every placeholder filled in: {{static:NAME}} as a case's env gets it,
// as well as {{host}} and {{port}}. It used to get {{static:NAME}} as
// written.
func TestServerEnvGetsStaticAssets(t *testing.T) {
	prob := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: server.py
command: python3 {entry_file}
adapter: {type: api, health_check: {path: /, startup_timeout: 120}}
static_assets: {greeting: {path: static/greeting.txt}}
env: {GREETING_FILE: "{{static:greeting}}", ADDR: "{{host}}:{{port}}"}
checkpoints:
  c1: {groups: {g: {type: Core}}}
`,
		"static/greeting.txt": "hello from the asset",
		"c1/g.yaml":           "a: {request: {path: /}, expected: {output: hello from the asset}}\n",
	})
	sub := writeTree(t, map[string]string{"server.py": `import os
from http.server import BaseHTTPRequestHandler, HTTPServer
host, port = os.environ["ADDR"].rsplit(":", 1)
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        b = open(os.environ["GREETING_FILE"], "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
HTTPServer((host, int(port)), H).serve_forever()
`})
	out := filepath.Join(t.TempDir(), "out")
	res := wasmeval(t, "run", prob, "--submission", sub, "-o", out, "--progress", "none")
	if res.code != 0 {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
}
