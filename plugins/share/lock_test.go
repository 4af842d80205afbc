package share

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	goodHex      = "4f3c2a1b0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b"
	goodManifest = "sha256:0000000000000000000000000000000000000000000000000000000000000001"
)

func TestReadLockBadInputs(t *testing.T) {
	entry := `{"ref":"oci://r.example/t/v:1","manifest":"` + goodManifest + `","sha256":"` + goodHex + `","size":10,"abi_version":1,"kinds":["verifier"],"signer":""}`
	cases := []struct{ name, body, want string }{
		{"truncated", `{"version":1,"plugins":[{"ref":`, "line 1, column 31: the JSON ends early (the file is truncated)"},
		{"empty", ``, "the file is empty (truncated?)"},
		{"blank", " \n\n", "the file is empty (truncated?)"},
		{"syntax error", "{\n  \"version\": 1,\n  \"plugins\": [,]\n}", "line 3, column 15: invalid JSON: invalid character ','"},
		{"array", `[]`, "$: expected a JSON object"},
		{"trailing", `{"version":1,"plugins":[]} {}`, "after top-level value"},
		{"unknown top key", `{"version":1,"plugins":[],"extra":1}`, "extra: unknown key"},
		{"repeated key", `{"version":1,"version":1,"plugins":[]}`, "version: key repeated"},
		{"version type", `{"version":"1","plugins":[]}`, "version: expected an integer"},
		{"newer version", `{"version":2,"plugins":[]}`, "reads lock version 1"},
		{"missing version", `{"plugins":[]}`, `version: missing; expected "version": 1`},
		{"plugins type", `{"version":1,"plugins":{}}`, "plugins: expected an array"},
		{"entry type", `{"version":1,"plugins":[1]}`, "plugins[0]: expected a JSON object"},
		{"unknown entry key", `{"version":1,"plugins":[{"ref":"oci://r.example/t/v:1","x":1}]}`, "plugins[0].x: unknown key"},
		{"bad ref", `{"version":1,"plugins":[{"ref":"r.example","manifest":"` + goodManifest + `","sha256":"` + goodHex + `"}]}`, "plugins[0].ref"},
		{"ref type", `{"version":1,"plugins":[{"ref":5}]}`, "plugins[0].ref: expected a string"},
		{"bad manifest", `{"version":1,"plugins":[{"ref":"oci://r.example/t/v:1","manifest":"md5:ab","sha256":"` + goodHex + `"}]}`, "plugins[0].manifest: expected sha256:"},
		{"bad sha256", `{"version":1,"plugins":[{"ref":"oci://r.example/t/v:1","manifest":"` + goodManifest + `","sha256":"ABC"}]}`, "plugins[0].sha256: expected 64 lowercase hex"},
		{"bad size", `{"version":1,"plugins":[{"ref":"oci://r.example/t/v:1","manifest":"` + goodManifest + `","sha256":"` + goodHex + `","size":-1}]}`, "plugins[0].size: expected a positive integer"},
		{"bad kinds", `{"version":1,"plugins":[{"ref":"oci://r.example/t/v:1","manifest":"` + goodManifest + `","sha256":"` + goodHex + `","kinds":"verifier"}]}`, "plugins[0].kinds: expected an array"},
		{"missing sha256", `{"version":1,"plugins":[{"ref":"oci://r.example/t/v:1","manifest":"` + goodManifest + `"}]}`, "plugins[0].sha256: missing"},
		{"duplicate ref", `{"version":1,"plugins":[` + entry + `,` + strings.Replace(entry, "oci://", "", 1) + `]}`, "plugins[1].ref: oci://r.example/t/v:1 is listed twice"},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".lock")
			os.WriteFile(p, []byte(tc.body), 0o644)
			_, err := ReadLock(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), p+": ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v; want one line naming %s and containing %q", err, p, tc.want)
			}
		})
	}
	p := filepath.Join(dir, "good.lock")
	os.WriteFile(p, []byte(`{"version":1,"plugins":[`+entry+`]}`), 0o644)
	if _, err := ReadLock(p); err != nil {
		t.Fatal(err)
	}
}

func TestWriteLockIsDeterministic(t *testing.T) {
	a := LockEntry{Ref: "oci://r.example/t/a:1", Manifest: goodManifest, SHA256: goodHex, Size: 1, ABIVersion: 1, Kinds: []string{"verifier", "evaluator"}}
	b := a
	b.Ref = "oci://r.example/t/b:1"
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "1.lock"), filepath.Join(dir, "2.lock")
	if err := WriteLock(p1, &Lock{Plugins: []LockEntry{b, a}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteLock(p2, &Lock{Plugins: []LockEntry{a, b}}); err != nil {
		t.Fatal(err)
	}
	d1, _ := os.ReadFile(p1)
	d2, _ := os.ReadFile(p2)
	if string(d1) != string(d2) || !strings.Contains(string(d1), `"version": 1`) {
		t.Fatalf("not deterministic:\n%s\n%s", d1, d2)
	}
	l, err := ReadLock(p1)
	if err != nil || l.Plugins[0].Ref != a.Ref || l.Plugins[0].Kinds[0] != "evaluator" {
		t.Fatalf("read back %+v %v", l, err)
	}
	if err := WriteLock(p1, &Lock{Plugins: []LockEntry{{Ref: "bad"}}}); err == nil {
		t.Fatal("wrote an invalid lock")
	}
}

func TestParseRef(t *testing.T) {
	good := map[string]string{
		"oci://registry.example.com/team/verifier:1.4": "oci://registry.example.com/team/verifier:1.4",
		"localhost:5000/v:latest":                      "oci://localhost:5000/v:latest",
		"127.0.0.1:5000/a/b@" + goodManifest:           "oci://127.0.0.1:5000/a/b@" + goodManifest,
		"[::1]:5000/a:1":                               "oci://[::1]:5000/a:1",
		"LocalHost:65535/a:1":                          "oci://localhost:65535/a:1",
	}
	for in, want := range good {
		r, err := ParseRef(in)
		if err != nil || r.String() != want {
			t.Errorf("ParseRef(%q) = %v, %v; want %s", in, r, err, want)
		}
	}
	bad := map[string]string{
		"":                                    "empty",
		"oci://":                              "empty",
		"https://r.example/v:1":               "scheme",
		"oci://r.example":                     "expected HOST/REPO",
		"oci://r.example/v":                   "names no tag or digest",
		"oci://r.example/V:1":                 "repository",
		"oci://r.example/v:-bad":              "tag",
		"oci://r.example/v@sha256:abc":        "digest",
		"oci://r.example/v:1@" + goodManifest: "both a tag and a digest",
		"oci://r.ex ample/v:1":                "white space",
		"oci://localhost:99999/x:1":           `port "99999": expected 1 to 65535`,
		"oci://localhost:0/x:1":               `port "0"`,
		"oci://r.example/team/v:1.4:extra":    `tag "1.4:extra"`,
		"oci://[::1]:70000/x:1":               `port "70000"`,
	}
	for in, want := range bad {
		if _, err := ParseRef(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRef(%q) = %v; want an error containing %q", in, err, want)
		}
	}
	// Credentials are refused without being repeated.
	_, err := ParseRef("oci://alice:s3cret@localhost:5518/team/v:1")
	if want := `reference "oci://***@localhost:5518/team/v:1": a reference holds no credentials`; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("ParseRef with credentials = %v; want %q, without the password", err, want)
	}
	if !IsLoopback("localhost:5000") || !IsLoopback("127.0.0.2:80") || !IsLoopback("[::1]:5000") || IsLoopback("registry.example.com:5000") || IsLoopback("10.0.0.1") {
		t.Error("IsLoopback")
	}
}
