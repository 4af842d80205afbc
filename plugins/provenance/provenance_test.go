package provenance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoundTripAndAnnotations(t *testing.T) {
	f := filepath.Join(t.TempDir(), "p.wasm"+Suffix)
	want := Provenance{Version: 1, Source: "a/b", Commit: "c0ffee", Dirty: true, Language: "go", Toolchain: "go version go1.26", ToolchainPath: "/usr/bin/go", SDK: "sdk/go", SDKVersion: "abi 1"}
	if err := Write(f, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(f)
	if err != nil || got != want {
		t.Fatalf("read back %+v %v", got, err)
	}
	back, ok := FromAnnotations(got.Annotations())
	if !ok || back != want {
		t.Fatalf("through annotations: %+v", back)
	}
	if _, ok := FromAnnotations(map[string]string{"org.opencontainers.image.title": "x"}); ok {
		t.Fatal("provenance found in unrelated annotations")
	}
}

func TestReadRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{`{"version":1,"commit":5}`, "commit: expected a string"},
		{`{"version":1,"dirty":"yes"}`, "dirty: expected a bool"},
		{`{"version":1,"builder":"x"}`, `unknown field "builder"`},
		{`{"source":"x"}`, "version: 0; expected 1"},
		{`{"version":1} {}`, "data after the JSON object"},
		{`[1]`, "expected a JSON object"},
		{`{"version":1,"commit":"` + strings.Repeat("a", 2000) + `"}`, "longer than 1024"},
	} {
		f := filepath.Join(dir, "x.json")
		os.WriteFile(f, []byte(tc.text), 0o644)
		_, err := Read(f)
		if err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want the file and %q", tc.text, err, tc.want)
		}
	}
}
