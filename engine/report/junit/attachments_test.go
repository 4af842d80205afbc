package junit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report/reporttest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// attachmentLines are the [[ATTACHMENT|path]] lines of a text, each
// required to be a line of its own.
func attachmentLines(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "[[ATTACHMENT|") {
			if !strings.HasPrefix(l, "[[ATTACHMENT|") || !strings.HasSuffix(l, "]]") {
				t.Errorf("attachment not on a line of its own: %q", l)
			}
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(l, "[[ATTACHMENT|"), "]]"))
		}
	}
	return out
}

// A failing browser case carries its screenshot and its group's logs as
// attachments (absolute paths of files that exist), the server's stdout
// tail in <system-out> and its stderr tail in <system-err>, markup and
// "]]>" in them surviving as text.
func TestJUnitAttachesScreenshotsAndLogs(t *testing.T) {
	run := reporttest.BrowserRun(t, reporttest.PNG(t, 32, 24))
	cases, doc := parseCases(t, run)
	echo := cases["echo"]
	got := attachmentLines(t, echo.SystemOut)
	abs, _ := filepath.Abs(run.Dir)
	want := []string{filepath.Join(abs, reporttest.Screenshot), filepath.Join(abs, reporttest.StdoutLog), filepath.Join(abs, reporttest.StderrLog)}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("attachments of echo: %q, want %q\n%s", got, want, doc)
	}
	for _, p := range got {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			t.Errorf("attachment %s: %v", p, err)
		}
	}
	if !strings.Contains(cases["heading"].SystemOut, "GET /api/todos\nPOST /api/todos") {
		t.Errorf("server stdout tail missing from <system-out>: %q", cases["heading"].SystemOut)
	}
	if !strings.Contains(cases["heading"].SystemErr, "--- "+reporttest.StderrLog+" ---\nstarting on 127.0.0.1\n</pre><script>window.__pwned = 1</script> ]]> <![CDATA[ \uFFFD[31mred\uFFFD\nlast stderr line") {
		t.Errorf("server stderr tail in <system-err>: %q", cases["heading"].SystemErr)
	}
	// The tail is written once, under the group's first failing case;
	// later ones point there.
	heading := cases["heading"]
	if !strings.Contains(heading.SystemErr, "last stderr line") || strings.Contains(echo.SystemErr, "last stderr line") ||
		!strings.Contains(echo.SystemErr, "--- "+reporttest.StderrLog+": its last lines are under heading ---") {
		t.Errorf("the group's log tail: under heading %q, under echo %q", heading.SystemErr, echo.SystemErr)
	}
	// A passing case carries nothing; a failing one of a group without
	// artifacts carries no attachment.
	if c := cases["ok"]; c.SystemOut != "" || c.SystemErr != "" {
		t.Errorf("a passing case carries output: %+v", c)
	}
	if c := cases["slow"]; len(attachmentLines(t, c.SystemOut)) != 0 {
		t.Errorf("a case without artifacts has attachments: %q", c.SystemOut)
	}
}

// Hostile artifact references are not attached and not read: a path
// leading out of the run directory, a symlink, a file that is not an
// image; a 50 MB log costs its tail.
func TestJUnitContainsHostileArtifacts(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.png")
	os.WriteFile(outside, append([]byte("\x89PNG\r\n\x1a\n"), "root:x:0:0 SECRET"...), 0o644)
	run := reporttest.BrowserRun(t, reporttest.PNG(t, 8, 8), func(add func(*result.CaseRecord)) {
		add(&result.CaseRecord{Group: "evil", ID: "paths", Attributes: []verify.AttributeResult{{Attribute: "output", Weight: 1, Expected: "a", Actual: "b"}},
			Result: result.Execution{Artifacts: []string{"../../etc/passwd", "../../etc/passwd.png", "/etc/passwd.log",
				"artifacts/checkpoint_1/evil/link.png", "artifacts/checkpoint_1/evil/text.png", "artifacts/checkpoint_1/evil/huge.log",
				"artifacts/checkpoint_1/evil/x]]y.png"}}})
	})
	evil := filepath.Join(run.Dir, "artifacts/checkpoint_1/evil")
	os.MkdirAll(evil, 0o755)
	os.Symlink(outside, filepath.Join(evil, "link.png"))
	os.WriteFile(filepath.Join(evil, "text.png"), []byte("]]></system-out><injected/>"), 0o644)
	os.WriteFile(filepath.Join(evil, "x]]y.png"), reporttest.PNG(t, 4, 4), 0o644)
	f, _ := os.Create(filepath.Join(evil, "huge.log"))
	chunk := []byte(strings.Repeat("line of a big log\n", 1<<14))
	for n := 0; n < 50<<20; n += len(chunk) {
		f.Write(chunk)
	}
	f.WriteString("]]> </system-out><injected/>\n")
	f.Close()

	cases, doc := parseCases(t, run)
	if strings.Contains(doc, "root:x") || strings.Contains(doc, "SECRET") || strings.Contains(doc, "<injected/>") {
		t.Fatalf("the report holds a file from outside the run or unescaped markup:\n%s", doc)
	}
	c := cases["paths"]
	abs, _ := filepath.Abs(run.Dir)
	if got := attachmentLines(t, c.SystemOut); len(got) != 1 || got[0] != filepath.Join(abs, "artifacts/checkpoint_1/evil/huge.log") {
		t.Errorf("attachments: %q", got)
	}
	for _, want := range []string{
		`screenshot not attached: artifact not shown: "../../etc/passwd.png" is not a path under`,
		"screenshot not attached: artifact not shown: artifacts/checkpoint_1/evil/link.png is not a regular file (a symlink)",
		"screenshot not attached: artifact not shown: artifacts/checkpoint_1/evil/text.png is not a PNG or JPEG image",
		`log not attached: artifact not shown: "/etc/passwd.log" is not a path under`,
		"not attached (its path cannot be written as an attachment): artifacts/checkpoint_1/evil/x]]y.png",
		"]]> </system-out><injected/>",
	} {
		if !strings.Contains(c.SystemOut, want) {
			t.Errorf("<system-out> lacks %q:\n%s", want, c.SystemOut)
		}
	}
	if len(c.SystemOut) > FailureTextLimit+100 || len(doc) > 1<<20 {
		t.Errorf("a 50 MB log made a %d-byte <system-out>, a %d-byte report", len(c.SystemOut), len(doc))
	}
}
