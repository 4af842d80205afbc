package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mock response's body_file is read from the problem directory only: a
// problem that names a file outside it — by a path leading out, an
// absolute path, or a symlink out — is refused before anything runs, by
// validate and by run alike, with one line naming the file and the field,
// and without a byte of the file in the message.
func TestMockBodyFileOutsideProblemIsRefused(t *testing.T) {
	mocks := func(indent, bodyFile string) string {
		p := strings.Repeat(" ", len(indent))
		return p + "mocks:\n" +
			p + "  payments:\n" +
			p + "    routes:\n" +
			p + "      - method: POST\n" +
			p + "        path: /v1/charges\n" +
			p + "        responses:\n" +
			p + "          - status: 201\n" +
			p + "            body_file: " + bodyFile + "\n"
	}
	problem := func(top, group string) string {
		return "name: x\nentry_file: main.sh\ncommand: sh {entry_file}\n" + top +
			"checkpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n" + group
	}
	const topKey = "mocks.payments.routes[0].responses[0].body_file"
	const groupKey = "checkpoints.c1.groups.g.mocks.payments.routes[0].responses[0].body_file"
	for _, c := range []struct {
		name, top, group, key string
		link                  bool
	}{
		{"leads out", mocks("", "../../etc/passwd"), "", topKey, false},
		{"absolute", mocks("", "/etc/passwd"), "", topKey, false},
		{"symlink out", mocks("", "responses/passwd"), "", topKey, true},
		{"group's, leads out", "", mocks("        ", "../../../etc/passwd"), groupKey, false},
		{"group's, symlink out", "", mocks("        ", "responses/passwd"), groupKey, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{
				"config.yaml":      problem(c.top, c.group),
				"c1/g/a/case.yaml": "arguments: [hi]\nexpected: {output: hi}\n",
			})
			if c.link {
				// responses/ is the host's /etc: inside the problem by
				// name, outside it in fact.
				if err := os.Symlink("/etc", filepath.Join(dir, "responses")); err != nil {
					t.Fatal(err)
				}
			}
			sub := writeTree(t, map[string]string{"main.sh": "echo hi\n"})
			out := filepath.Join(t.TempDir(), "run")
			for _, args := range [][]string{
				{"validate", dir},
				{"run", dir, "--submission", sub, "--out", out},
			} {
				r := wasmeval(t, args...)
				if r.code != 2 {
					t.Fatalf("%s: exit %d, want 2\n%s%s", args[0], r.code, r.stdout, r.stderr)
				}
				msg := strings.TrimSpace(r.stderr)
				for _, want := range []string{filepath.Join(dir, "config.yaml"), c.key} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: the refusal does not name %q:\n%s", args[0], want, msg)
					}
				}
				if strings.Contains(msg, "root:") {
					t.Errorf("%s: the refusal shows the file's content:\n%s", args[0], msg)
				}
				// One error line (after the summary line run and
				// validate print above the errors).
				var lines []string
				for _, l := range strings.Split(msg, "\n") {
					if strings.Contains(l, "body_file") {
						lines = append(lines, l)
					}
				}
				if len(lines) != 1 {
					t.Errorf("%s: %d lines name body_file, want 1:\n%s", args[0], len(lines), msg)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused run created %s", out)
			}
		})
	}
}
