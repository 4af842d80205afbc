package adapter_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// uploadServer is a submission that attacks the upload step. The step
// first finds the file input by evaluating a locator in the page, which
// queries the document; the page has replaced document.querySelectorAll,
// so that query first asks the server (synchronously) to replace the file
// being uploaded, in the workspace, by a symlink to a host file. The swap
// thus lands after the step has started and before the browser is handed
// the file. Whatever the page reads from the input is posted back, and the
// server appends it to the file $RECEIVED, so the test sees exactly what
// reached the submission.
const uploadServer = `import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
PAGE = b"""<!doctype html><meta charset=utf-8>
<label for=f>Import file</label><input type=file id=f multiple><pre id=got></pre>
<script>
const query = document.querySelectorAll.bind(document);
let swapped = false;
document.querySelectorAll = (sel) => {
  if (!swapped) {
    swapped = true;
    const x = new XMLHttpRequest(); x.open("POST", "/swap", false); x.send();
  }
  return query(sel);
};
document.getElementById("f").addEventListener("change", async (e) => {
  let text = "";
  for (const f of e.target.files) {
    try { text += f.name + "=" + await f.text() + ";"; } catch (err) { text += f.name + "=read error " + err.name + ";"; }
  }
  await fetch("/received", {method: "POST", body: text});
  document.getElementById("got").textContent = "received " + text;
});
</script>"""
def point_at_secret(name):
    os.remove(name)
    os.symlink(os.environ["SECRET"], name)
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def answer(self, body, ctype="text/plain"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.answer(PAGE, "text/html")
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/swap" and os.path.isfile("swap.txt") and not os.path.islink("swap.txt"):
            point_at_secret("swap.txt")
        elif self.path == "/received":
            with open(os.environ["RECEIVED"], "ab") as f:
                f.write(body + b"\n")
        self.answer(b"ok")
ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
`

// TestUploadSendsWhatTheCaseWrote runs real Chromium against a server that
// swaps the uploaded file for a symlink to a host file while the page is
// about to read it, with such a symlink (or a FIFO) in place before the
// step, and with an ordinary upload. The host file's content must never reach
// the server; the case's own content must.
func TestUploadSendsWhatTheCaseWrote(t *testing.T) {
	if _, err := os.Stat(problem.DefaultBrowser); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("chromium is required (%s; .ci/run installs Debian's chromium package)", problem.DefaultBrowser)
		}
		t.Skipf("chromium not installed (%s)", problem.DefaultBrowser)
	}
	// The copies the engine uploads are made under TMPDIR; a directory of
	// the test's own shows that none is left behind.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	host := t.TempDir()
	secret := filepath.Join(host, "expected_output.txt")
	const secretText = "HOST-SECRET-never-to-be-uploaded"
	if err := os.WriteFile(secret, []byte(secretText), 0o644); err != nil {
		t.Fatal(err)
	}
	received := filepath.Join(host, "received.log")
	sub := t.TempDir()
	if err := os.WriteFile(filepath.Join(sub, "app.py"), []byte(uploadServer), 0o644); err != nil {
		t.Fatal(err)
	}

	rt := local.New(local.Options{BaseDir: t.TempDir()})
	sess, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "upload"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	b := &adapter.Browser{
		Server: adapter.Server{Command: []string{"python3", "app.py"}, Config: problem.Server{
			Env:    map[string]string{"SECRET": secret, "RECEIVED": received},
			Health: problem.HealthCheck{Path: "/", Delay: 50 * time.Millisecond, StartupTimeout: 60 * time.Second},
		}},
		Config: problem.Browser{Executable: problem.DefaultBrowser, Screenshots: problem.ScreenshotsNever,
			StepTimeout: 30 * time.Second, Width: 800, Height: 600},
	}
	if err := b.Begin(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	defer b.End()
	if down := b.Server.Down(); down != "" {
		t.Fatal(down)
	}

	input := &cases.Locator{Label: "Import file"}
	run := func(id string, files []cases.InputFile, steps ...cases.Step) (string, string) {
		t.Helper()
		c := &cases.Case{ID: id, InputFiles: files, Steps: steps, Timeout: 120 * time.Second}
		out, err := b.Run(context.Background(), sess, c)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if out.AdapterError {
			t.Fatalf("%s: adapter error: %s", id, out.Error)
		}
		// No copy outlives its case.
		if left, _ := filepath.Glob(filepath.Join(tmp, "wasmeval-upload-*")); len(left) != 0 {
			t.Errorf("%s: upload copies left behind: %v", id, left)
		}
		return out.Output, out.Error
	}
	receivedLines := func() []string {
		data, _ := os.ReadFile(received)
		return strings.Split(strings.TrimSpace(string(data)), "\n")
	}

	// An ordinary upload of two files with the same name in different
	// directories: the page gets both, by name, with the case's content.
	outp, errText := run("plain", []cases.InputFile{
		{Path: "a/todos.txt", Content: []byte("Call mum")},
		{Path: "b/todos.txt", Content: []byte("Pay rent")},
	},
		cases.Step{Action: "goto", URL: "/"},
		cases.Step{Action: "upload", Locator: input, Files: []string{"a/todos.txt", "b/todos.txt"}},
		cases.Step{Action: "wait", Locator: &cases.Locator{Text: "received"}, State: "visible"},
		cases.Step{Action: "capture", Locator: &cases.Locator{CSS: "#got"}, Get: "text", Name: "got"},
	)
	if errText != "" || outp != `{"got":"received todos.txt=Call mum;todos.txt=Pay rent;"}` {
		t.Fatalf("plain upload: output %s, error %q", outp, errText)
	}

	// The server swaps the file for a symlink to the host file once the
	// step has started, before the browser is handed the file.
	outp, errText = run("swapped", []cases.InputFile{{Path: "swap.txt", Content: []byte("the case's own content")}},
		cases.Step{Action: "goto", URL: "/"},
		cases.Step{Action: "upload", Locator: input, Files: []string{"swap.txt"}},
		cases.Step{Action: "wait", Locator: &cases.Locator{Text: "received"}, State: "visible"},
		cases.Step{Action: "capture", Locator: &cases.Locator{CSS: "#got"}, Get: "text", Name: "got"},
	)
	if errText != "" || outp != `{"got":"received swap.txt=the case's own content;"}` {
		t.Errorf("swapped upload: output %s, error %q", outp, errText)
	}
	if target, err := os.Readlink(filepath.Join(sess.Workdir(), "swap.txt")); err != nil || target != secret {
		t.Fatalf("the server did not swap the file (readlink: %q, %v): the test proves nothing", target, err)
	}

	// A symlink to the host file, a FIFO or a directory already in place
	// when the step runs (the server could plant any of them) is refused,
	// naming the file, and nothing is uploaded.
	if err := os.Symlink(secret, filepath.Join(sess.Workdir(), "planted.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(sess.Workdir(), "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(sess.Workdir(), "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"planted.txt", `upload planted.txt: path "planted.txt" leaves the workspace through a symlink`},
		{"adir", "upload adir: it is a directory, not a regular file"},
		{"pipe.txt", "upload pipe.txt: it is a named pipe, not a regular file"},
	} {
		outp, errText = run("planted_"+tc.file, nil,
			cases.Step{Action: "goto", URL: "/"},
			cases.Step{Action: "upload", Locator: input, Files: []string{tc.file}},
		)
		if !strings.Contains(errText, tc.want) {
			t.Errorf("%s: error %q, want it to contain %q (output %s)", tc.file, errText, tc.want, outp)
		}
	}

	for _, line := range receivedLines() {
		if strings.Contains(line, secretText) {
			t.Errorf("the host file reached the server: %q", line)
		}
	}
}
