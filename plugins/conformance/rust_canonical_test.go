package conformance

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// TestRustCanonical holds the Rust SDK's parse_canonical, which writes a
// JSON text's canonical encoding without parsing it into a tree, to
// parse_str on many generated texts, valid and broken
// (testdata/rust_canonical_check.rs): the same encoding or the same
// error, and the same compare_json answer. The conformance vectors hold
// the verifier's verdicts to the other SDKs'; this holds the pass itself
// to the parser on far more texts than vectors could.
func TestRustCanonical(t *testing.T) { runRustCheck(t, "testdata/rust_canonical_check.rs") }

// TestRustDecode holds the Rust SDK's two ways of decoding a verify input
// to each other (testdata/rust_decode_check.rs): an envelope read as
// members, without maps, and the same envelope parsed whole into maps,
// on many generated envelopes, valid and broken.
func TestRustDecode(t *testing.T) { runRustCheck(t, "testdata/rust_decode_check.rs") }

// runRustCheck builds a Rust check program natively, with the SDK, and
// runs it on 100,000 generated inputs; it fails the test on the first
// disagreement the program finds.
func runRustCheck(t *testing.T, src string) {
	if testing.Short() {
		t.Skip("builds a native Rust program")
	}
	bin := filepath.Join(t.TempDir(), "check")
	if err := pluginbuild.BuildRustNative(src, bin); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "100000").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("%s", out)
}
