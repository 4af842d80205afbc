package scaffold_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSDKDocs runs each SDK guide's quick start as written, from an empty
// directory, as a new user would: its ```sh test blocks in order, with
// wasmeval on the PATH. A block ```LANG file=PATH shows a file the steps
// before it created: it must be that file, to the byte, so the guide
// shows the code the user gets.
func TestSDKDocs(t *testing.T) {
	for _, c := range []struct{ doc, lang string }{
		{"sdk-go.md", "go"}, {"sdk-rust.md", "rust"}, {"sdk-assemblyscript.md", "assemblyscript"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			need(t, toolsFor(c.lang)...)
			script, blocks, err := docScript(filepath.Join("../../docs", c.doc))
			if err != nil {
				t.Fatal(err)
			}
			if blocks.sh == 0 || blocks.files == 0 {
				t.Fatalf("%s: %d sh test blocks and %d file blocks, want some of each", c.doc, blocks.sh, blocks.files)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "quickstart.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			out := run(t, dir, "bash", "quickstart.sh")
			if !strings.Contains(out, "outputs agree") {
				t.Errorf("%s: the quick start ran no passing test:\n%s", c.doc, out)
			}
		})
	}
}

type blockCount struct{ sh, files int }

// docScript turns a guide's marked blocks into one bash script: sh test
// blocks as they are, file blocks as a diff against the file.
func docScript(doc string) (string, blockCount, error) {
	f, err := os.Open(doc)
	if err != nil {
		return "", blockCount{}, err
	}
	defer f.Close()
	var b strings.Builder
	var n blockCount
	b.WriteString("set -euxo pipefail\n")
	in := "" // "sh", "file" or "" (outside a marked block)
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		switch {
		case in == "" && strings.HasPrefix(l, "```"):
			info := strings.Fields(strings.TrimPrefix(l, "```"))
			if len(info) == 2 && info[0] == "sh" && info[1] == "test" {
				in = "sh"
				n.sh++
				fmt.Fprintf(&b, "# %s:%d\n", filepath.Base(doc), line)
			} else if len(info) == 2 && strings.HasPrefix(info[1], "file=") {
				in = "file"
				n.files++
				fmt.Fprintf(&b, "# %s:%d\ndiff -u %q - <<'WASMEVAL_DOC_EOF'\n", filepath.Base(doc), line, strings.TrimPrefix(info[1], "file="))
			} else {
				in = "other"
			}
		case in != "" && l == "```":
			if in == "file" {
				b.WriteString("WASMEVAL_DOC_EOF\n")
			}
			in = ""
		case in == "sh" || in == "file":
			b.WriteString(l + "\n")
		}
	}
	return b.String(), n, sc.Err()
}
