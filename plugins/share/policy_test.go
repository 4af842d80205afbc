package share

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		glob, repo string
		want       bool
	}{
		{"*", "localhost:5000/team-a/verifier", true},
		{"localhost:5000/team-a/*", "localhost:5000/team-a/verifier", true},
		{"localhost:5000/team-a/*", "localhost:5000/team-a/sub/verifier", true},
		{"localhost:5000/team-a/*", "localhost:5000/team-ab/verifier", false},
		{"localhost:5000/team-a/*", "localhost:5001/team-a/verifier", false},
		{"localhost:5000/team-a/verifier", "localhost:5000/team-a/verifier", true},
		{"localhost:5000/team-a/verifier", "localhost:5000/team-a/verifier2", false},
		{"*/team-a/*", "registry.example.com/team-a/x", true},
		{"*/team-a/*", "registry.example.com/team-b/x", false},
		{"Registry.Example.com/team-?/x", "registry.example.com/team-b/x", true},
		{"registry.example.com/team-?/x", "registry.example.com/team-bb/x", false},
		{"[::1]:5000/*", "[::1]:5000/x", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
	} {
		if got := globMatch(tc.glob, tc.repo); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v", tc.glob, tc.repo, got)
		}
	}
}

func TestPolicyFirstMatchWins(t *testing.T) {
	dir := t.TempDir()
	genKey(t, dir, "a")
	p := writePolicy(t, dir, `version: 1
keys:
  a: a.pub
policies:
  - repositories: ["reg.example/team-a/*"]
    signed_by: [a]
  - repositories: ["*"]
    signed_by: []
`)
	if !p.Requires(Ref{Host: "reg.example", Repository: "team-a/x"}) || p.Requires(Ref{Host: "reg.example", Repository: "team-b/x"}) {
		t.Fatal("first match does not decide")
	}
	if r := p.RuleFor("reg.example/team-b/x"); r == nil || r.Index != 1 {
		t.Fatalf("rule for team-b: %+v", r)
	}
}

// TestBadPolicyFiles: each error is one line naming the file, the key
// path and what was expected.
func TestBadPolicyFiles(t *testing.T) {
	dir := t.TempDir()
	genKey(t, dir, "a")
	os.WriteFile(filepath.Join(dir, "priv-as-pub.pub"), mustRead(t, filepath.Join(dir, "a.key")), 0o600)
	for _, tc := range []struct{ name, text, key, want string }{
		{"not yaml", "version: [1\n", "", "not valid YAML"},
		{"a list", "- 1\n", "", "expected a mapping"},
		{"no version", "policies: []\n", "version", "missing"},
		{"version 2", "version: 2\npolicies: []\n", "version", "expected 1"},
		{"version string", "version: \"1\"\npolicies: []\n", "version", "expected 1"},
		{"unknown top key", "version: 1\npolicy: []\n", "policy", "unknown field"},
		{"no policies", "version: 1\n", "policies", "missing"},
		{"keys a list", "version: 1\nkeys: [a.pub]\npolicies: []\n", "keys", "expected a mapping"},
		{"key not a string", "version: 1\nkeys:\n  a: [a.pub]\npolicies: []\n", "keys.a", "PEM public key file"},
		{"missing key file", "version: 1\nkeys:\n  b: nothere.pub\npolicies: []\n", "keys.b", "no such file"},
		{"private key as public", "version: 1\nkeys:\n  b: priv-as-pub.pub\npolicies: []\n", "keys.b", `expected "PUBLIC KEY"`},
		{"bad key name", "version: 1\nkeys:\n  \"a b\": a.pub\npolicies: []\n", "keys.a b", "key name"},
		{"policies a mapping", "version: 1\npolicies:\n  x: 1\n", "policies", "expected a list"},
		{"policy a string", "version: 1\npolicies:\n  - x\n", "policies[0]", "expected a mapping"},
		{"unknown policy key", "version: 1\npolicies:\n  - repositories: [\"*\"]\n    signedby: []\n", "policies[0].signedby", "unknown field"},
		{"no repositories", "version: 1\npolicies:\n  - signed_by: []\n", "policies[0].repositories", "missing"},
		{"repositories a string", "version: 1\npolicies:\n  - repositories: \"*\"\n    signed_by: []\n", "policies[0].repositories", "expected a list of strings"},
		{"repositories empty", "version: 1\npolicies:\n  - repositories: []\n    signed_by: []\n", "policies[0].repositories", "at least one"},
		{"repository a number", "version: 1\npolicies:\n  - repositories: [5]\n    signed_by: []\n", "policies[0].repositories[0]", "non-empty string"},
		{"bad glob", "version: 1\npolicies:\n  - repositories: [\"reg/team a\"]\n    signed_by: []\n", "policies[0].repositories[0]", "expected HOST/REPOSITORY"},
		{"glob with a tag", "version: 1\npolicies:\n  - repositories: [\"reg/x@sha256:00\"]\n    signed_by: []\n", "policies[0].repositories[0]", "no tag or digest"},
		{"uppercase repository", "version: 1\npolicies:\n  - repositories: [\"localhost:5391/Team-A/*\"]\n    signed_by: []\n", "policies[0].repositories[0]", "lowercase"},
		{"glob with a tag after a star", "version: 1\npolicies:\n  - repositories: [\"oci://localhost:5391/team-a/*:1.4\"]\n    signed_by: []\n", "policies[0].repositories[0]", "a repository has no tag"},
		{"empty file", "", "", "the file is empty"},
		{"only a comment", "# nothing yet\n", "", "the file is empty"},
		{"no signed_by", "version: 1\npolicies:\n  - repositories: [\"*\"]\n", "policies[0].signed_by", "missing"},
		{"signed_by a string", "version: 1\nkeys:\n  a: a.pub\npolicies:\n  - repositories: [\"*\"]\n    signed_by: a\n", "policies[0].signed_by", "expected a list"},
		{"unknown key", "version: 1\nkeys:\n  a: a.pub\npolicies:\n  - repositories: [\"*\"]\n    signed_by: [a, team-b]\n", "policies[0].signed_by[1]", `key "team-b" is not defined under keys (defined: a)`},
		{"two documents", "version: 1\npolicies: []\n---\nversion: 1\n", "", "more than one YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, "policy.yaml")
			if err := os.WriteFile(f, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadPolicy(f)
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.text)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, f) || !strings.Contains(msg, tc.want) ||
				tc.key != "" && !strings.Contains(msg, ": "+tc.key+": ") {
				t.Fatalf("error %q; want one line naming %s, key %q and %q", msg, f, tc.key, tc.want)
			}
		})
	}
	if _, err := LoadPolicy(filepath.Join(dir, "none.yaml")); err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Fatalf("missing policy file: %v", err)
	}
}

func TestFindPolicy(t *testing.T) {
	dir := t.TempDir()
	if p, err := FindPolicy("", dir); p != nil || err != nil {
		t.Fatalf("no policy file: %v %v", p, err)
	}
	writePolicy(t, dir, "version: 1\npolicies:\n  - repositories: [\"*\"]\n    signed_by: []\n")
	if p, err := FindPolicy("", dir); p == nil || err != nil {
		t.Fatalf("policy next to the problem: %v %v", p, err)
	}
	if _, err := FindPolicy(filepath.Join(dir, "other.yaml"), dir); err == nil {
		t.Fatal("a --trust-policy that does not exist was accepted")
	}
}

func mustRead(t *testing.T, f string) []byte {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
