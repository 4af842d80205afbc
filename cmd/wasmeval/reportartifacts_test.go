package main

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"html"
	"image"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// What a user sees after a browser run that fails, from a real run of
// the todo-web example's broken submission in Chromium: the console
// lists each failure with why (the timed-out step's own message), the
// HTML report embeds the failure screenshot Chromium took and shows the
// server's log, and the JUnit report attaches both and carries the
// server's start-up time.
func TestBrowserRunReportsSayWhy(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is required (/usr/bin/chromium; .ci/run installs Debian's chromium package)")
		}
		t.Skip("chromium not installed (/usr/bin/chromium)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed:", err)
	}
	out := filepath.Join(t.TempDir(), "run")
	r := wasmeval(t, "run", "../../examples/todo-web", "--submission", "../../examples/todo-web/submissions/broken", "--out", out,
		"--progress", "none", "--failures", "5")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	timeoutLine := regexp.MustCompile(`(?m)^TIMEOUT checkpoint_1/ui/clear_completed - timed out: step 3 \(click role="button" name="Clear completed"\): step timed out: .* within 5s$`)
	if !strings.Contains(r.stdout, "\nfailures: 3\n") || !timeoutLine.MatchString(r.stdout) ||
		!strings.Contains(r.stdout, `FAILED  checkpoint_1/ui/heading - output (json): $.heading: expected "Todos", got "Todo"`) {
		t.Errorf("run's failure list:\n%s", r.stdout)
	}
	if r := wasmeval(t, "report", out, "--failures", "1"); r.code != 0 || !strings.Contains(r.stdout, "failures: 3 (1 shown)") ||
		!strings.Contains(r.stdout, "… and 2 more not shown") {
		t.Errorf("report --failures 1: exit %d\n%s", r.code, r.stdout)
	}
	shot := filepath.Join(out, "artifacts/checkpoint_1/ui/clear_completed.failure.png")
	if _, err := os.Stat(shot); err != nil {
		t.Fatalf("the run left no failure screenshot: %v", err)
	}

	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<img class="thumb" src="data:image/png;base64,([A-Za-z0-9+/=&#;]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("report.html embeds no screenshot: %s", regexp.MustCompile(`<div class="shots">.*`).Find(page))
	}
	// The page escapes "+" in attributes as &#43;.
	png, err := base64.StdEncoding.DecodeString(html.UnescapeString(string(m[1])))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(png)); err != nil || cfg.Width == 0 {
		t.Errorf("the embedded screenshot is not an image: %v", err)
	}
	for _, want := range []string{`href="artifacts/checkpoint_1/ui/clear_completed.failure.png"`, `href="artifacts/checkpoint_1/ui/server.stdout.log"`,
		"GET /api/todos", `class="startup"`, "timed out: step 3 (click role=&#34;button&#34;"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	junitFile := filepath.Join(t.TempDir(), "junit.xml")
	if r := wasmeval(t, "report", out, "--format", "junit", "-o", junitFile); r.code != 0 {
		t.Fatalf("report --format junit: exit %d\n%s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(junitFile)
	var doc struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Time    string `xml:"time,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
			SystemOut string `xml:"system-out"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, c := range doc.Cases {
		switch c.Name {
		case "(server start-up)":
			found++
			if s, err := strconv.ParseFloat(c.Time, 64); err != nil || s <= 0 {
				t.Errorf("server start-up time %q", c.Time)
			}
		case "clear_completed":
			found++
			abs, _ := filepath.Abs(shot)
			if c.Failure == nil || c.Failure.Type != "timeout" || !strings.HasPrefix(c.Failure.Message, "timed out: step 3 (click") ||
				!strings.Contains(c.SystemOut, "[[ATTACHMENT|"+abs+"]]\n") {
				t.Errorf("clear_completed: %+v", c)
			}
		}
	}
	if found != 2 {
		t.Errorf("JUnit lacks the start-up or the timed-out case:\n%s", data)
	}
}
