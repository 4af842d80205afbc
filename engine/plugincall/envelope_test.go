package plugincall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/abi/abischema"
)

// An engine case, bare (nothing optional set, nil maps and lists) or full,
// becomes the envelope form the ABI's schemas describe: binary input files
// in base64, the request in its case-file form.
func TestCasesBecomeSchemaValidEnvelopes(t *testing.T) {
	stdin := "some input\n"
	req, err := cases.DecodeRequest(map[string]any{"method": "POST", "path": "/notes", "json": map[string]any{"title": "t"},
		"headers": map[string]any{"X-Trace": "1"}}, "case.yaml", "request")
	if err != nil {
		t.Fatal(err)
	}
	bare := &cases.Case{ID: "bare"}
	full := &cases.Case{ID: "full", Checkpoint: "c1", Group: "g", GroupType: "Core", Arguments: []string{"a", "b"},
		Stdin: &stdin, Env: map[string]string{"K": "v"}, TrackedFiles: []string{"out/*.csv"}, Reset: true, Timeout: 3 * time.Second,
		InputFiles: []cases.InputFile{{Path: "in.txt", Content: []byte("text")}, {Path: "in.bin", Content: []byte{0xff, 0x00, 0xfe}}},
		Expected:   map[string]any{"status_code": 0, "output": map[string]any{"total": 1.5}, "files": map[string]any{"out/a.csv": "x\n"}},
		Request:    req, Extra: map[string]any{"note": "kept"}}
	actuals := []verify.Actual{{}, {StatusCode: 1, Output: "out", Stderr: "err", TimedOut: true,
		Files: map[string]any{"out/a.csv": "x\n", "out/b.bin": []byte{1, 2}}, Headers: map[string]string{"content-type": "application/json"}}}

	check := func(schema string, v any) {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := abischema.ValidateJSON(schema, data); err != nil {
			t.Errorf("%s: %v\n%s", schema, err, data)
		}
	}
	for _, c := range []*cases.Case{bare, full} {
		for _, a := range actuals {
			in := must(VerifyInput(c, a, map[string]any{"tolerance": 0.1}))
			if in.Expected == nil {
				in.Expected = map[string]any{}
			}
			check("verify_input", in)
			ac, aa := must(CallCase(c)), a
			check("evaluate_input", abi.EvaluateInput{ABIVersion: abi.Version, Function: "f", Arguments: map[string]any{"path": "x"},
				Config: map[string]any{"k": 1}, Case: &ac, Actual: &aa, Expected: c.Expected})
			check("load_input", abi.LoadInput{ABIVersion: abi.Version, Config: map[string]any{}, Group: abi.GroupInfo{Checkpoint: "c1", Group: "g", GroupType: "Core"},
				History: []abi.Outcome{{Case: must(ABICase(c)), Actual: a}}})
		}
	}
	full2 := must(ABICase(full))
	if len(full2.InputFiles) != 2 || full2.InputFiles[1].Encoding != "base64" || full2.InputFiles[1].Content != "/wD+" ||
		full2.Request["method"] != "POST" || full2.TimeoutS != 3 || full2.Expected == nil {
		t.Errorf("the full case as plugins see it: %+v", full2)
	}
	if must(CallCase(full)).Expected != nil {
		t.Error("a verify call carries the expected values once, at the top level, not in its case too")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// An input file copied from a problem file at run time (not held by the
// case) still reaches a plugin's envelope with its content, read when the
// envelope is built; one that can no longer be read is an error naming
// it, never an envelope with the file silently empty.
func TestEnvelopeReadsProblemInputFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("from the problem\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := confine.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cases.FromProblem(tree, "data.txt", "data.txt")
	if err != nil {
		t.Fatal(err)
	}
	c := &cases.Case{ID: "a", InputFiles: []cases.InputFile{f}}
	in, err := VerifyInput(c, verify.Actual{}, nil)
	if err != nil || len(in.Case.InputFiles) != 1 || in.Case.InputFiles[0].Content != "from the problem\n" {
		t.Fatalf("envelope input files: %+v, %v", in.Case.InputFiles, err)
	}
	os.Remove(filepath.Join(dir, "data.txt"))
	if _, err := ABICase(c); err == nil || !strings.Contains(err.Error(), "input file data.txt") {
		t.Errorf("a problem file gone since loading: %v", err)
	}
}

// Problem assets are read-only files of the problem directory: no
// escapes, no absolute paths, no symbolic links out, none over the cap;
// an empty directory gives none.
func TestProblemAssets(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "golden.txt"), []byte("golden"), 0o644)
	os.WriteFile(filepath.Join(root, "big.bin"), make([]byte, 2048), 0o644)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o644)
	os.Symlink(secret, filepath.Join(root, "link"))
	assets := ProblemAssets(root)
	if data, err := assets.ReadAsset("golden.txt", 1024); err != nil || string(data) != "golden" {
		t.Errorf("golden.txt: %q %v", data, err)
	}
	for path, why := range map[string]string{"../secret": "", "/etc/passwd": "", "link": "", "big.bin": "big.bin is 2048 bytes, over the 1024 byte cap"} {
		data, err := assets.ReadAsset(path, 1024)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: read %q (%v), want a refusal (%q)", path, data, err, why)
		}
	}
	if ProblemAssets("") != nil {
		t.Error("no problem directory must mean no assets")
	}
}
