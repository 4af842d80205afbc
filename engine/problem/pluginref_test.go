package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
)

// refsFrom resolves references from a table, as the CLI's lock-file
// resolver does from a lock: it records what it was asked.
type refsFrom struct {
	paths map[string]string
	asked []string
}

func (r *refsFrom) Resolve(ref, sha256 string) (string, error) {
	r.asked = append(r.asked, ref+"@"+sha256)
	if p, ok := r.paths[ref]; ok {
		return p, nil
	}
	return "", errors.New(ref + ": not in wasmeval.lock")
}

// A plugin bound by reference is found through the resolver, and its
// sha256 stays authoritative: a resolver that hands over other bytes is
// refused before anything runs, with the reference named.
func TestPluginByRef(t *testing.T) {
	module := "\x00asm\x01\x00\x00\x00shared"
	digest := pin.Digest([]byte(module))
	cached := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(cached, []byte(module), 0o644); err != nil {
		t.Fatal(err)
	}
	const ref = "oci://registry.example/team-a/verifier:1.4"
	config := func(binding string) string {
		return "name: p\nentry_file: main.py\nverifier: " + binding + "\ncheckpoints:\n  c1:\n    groups: {g: {type: Core}}\n"
	}
	load := func(binding string, refs RefResolver) (*Problem, error) {
		dir := writeTree(t, map[string]string{"config.yaml": config(binding), "c1/g/a/case.yaml": "{}\n"})
		opts := testOpts
		opts.Refs = refs
		return Load(dir, opts)
	}

	refs := &refsFrom{paths: map[string]string{ref: cached}}
	p, err := load("{ref: '"+ref+"', sha256: "+strings.ToUpper(digest)+", config: {output: json}}", refs)
	if err != nil {
		t.Fatal(err)
	}
	v := p.Checkpoints[0].Groups[0].Verifier
	if v.Path != cached || v.Ref != ref || v.SHA256 != digest || v.Config["output"] != "json" {
		t.Errorf("resolved binding: %+v", v)
	}
	if len(refs.asked) != 1 || refs.asked[0] != ref+"@"+digest {
		t.Errorf("the resolver was asked %v, want the reference with the lowercase pin", refs.asked)
	}

	other := strings.Repeat("a", 64)
	for _, tc := range []struct {
		name, binding string
		refs          RefResolver
		want          string
	}{
		{"digest mismatch", "{ref: '" + ref + "', sha256: " + other + "}", refs,
			"verifier.sha256: plugin " + ref + " has sha256 " + digest + ", not the pinned " + other + "; refusing to run it"},
		{"no pin", "{ref: '" + ref + "'}", refs,
			"verifier.sha256: required: plugins are pinned by digest; this file's is " + digest},
		{"no pin, with a config", "{ref: '" + ref + "', config: {output: json}}", refs,
			"verifier.sha256: required: plugins are pinned by digest; this file's is " + digest},
		{"malformed pin", "{ref: '" + ref + "', sha256: 'sha256:abc'}", refs,
			`verifier.sha256: expected 64 hexadecimal digits, got "sha256:abc"`},
		{"not locked", "{ref: 'oci://registry.example/team-a/other:2', sha256: " + digest + "}", refs,
			"verifier.ref: oci://registry.example/team-a/other:2: not in wasmeval.lock"},
		{"no resolver", "{ref: '" + ref + "', sha256: " + digest + "}", nil,
			"verifier.ref: plugin " + ref + " is bound by reference, which this command cannot resolve"},
		{"ref and path", "{ref: '" + ref + "', path: plugins/v.wasm, sha256: " + digest + "}", refs,
			"give the plugin's path, its name or its ref, only one of them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.binding, tc.refs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}

	// A resolver that hands over something that is not a module.
	notWasm := filepath.Join(t.TempDir(), "blob")
	os.WriteFile(notWasm, []byte("<html>login</html>"), 0o644)
	_, err = load("{ref: '"+ref+"', sha256: "+digest+"}", &refsFrom{paths: map[string]string{ref: notWasm}})
	if err == nil || !strings.Contains(err.Error(), "verifier.ref: ") || !strings.Contains(err.Error(), "not WebAssembly") {
		t.Errorf("not a module: %v", err)
	}
}
