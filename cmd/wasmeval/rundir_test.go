package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/journal/journaltest"
	"github.com/wasmeval/wasmeval/engine/manifest"
)

// gatedProblem is a problem of three isolated cases whose first one
// touches mark, then waits (at most two minutes) until gate exists.
func gatedProblem(t *testing.T, mark, gate string) (prob, sub string) {
	t.Helper()
	script := `case "$1" in
wait) touch ` + mark + `; i=0; while [ ! -e ` + gate + ` ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; echo ok ;;
*) echo ok ;;
esac
`
	prob = writeTree(t, map[string]string{
		"config.yaml":      "name: gated\nentry_file: main.sh\ncommand: sh {entry_file}\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g/a/case.yaml": "order: 1\narguments: [wait]\nexpected: {output: \"ok\\n\"}\n",
		"c1/g/b/case.yaml": "order: 2\narguments: [b]\nexpected: {output: \"ok\\n\"}\n",
		"c1/g/c/case.yaml": "order: 3\narguments: [c]\nexpected: {output: \"ok\\n\"}\n",
	})
	return prob, writeTree(t, map[string]string{"main.sh": script})
}

// startGated starts a run whose first case waits at its gate, and returns
// once that case is running (so the run holds its directory).
func startGated(t *testing.T, mark string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, args...)
	// A run killed here cannot remove its work directory: keep it where
	// the test's own cleanup removes it.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("the first case never started")
		}
	}
}

// waitExit waits (boundedly) for a started wasmeval and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(3 * time.Minute):
		t.Fatal("wasmeval did not finish")
	}
	return -1
}

func journalKeys(t *testing.T, dir string) []string {
	t.Helper()
	var keys []string
	for _, r := range readJournal(t, dir) {
		keys = append(keys, r.Key())
	}
	return keys
}

// Two runs into one --out, or two resumes of one directory, cannot both
// write it: the second is refused at once, naming the directory and the
// pid of the run that holds it, and the first finishes with one record
// per case. A report of the directory meanwhile says the run is in
// progress.
func TestSecondWriterOfARunDirectoryIsRefused(t *testing.T) {
	tmp := t.TempDir()
	mark, gate := filepath.Join(tmp, "mark"), filepath.Join(tmp, "gate")
	prob, sub := gatedProblem(t, mark, gate)
	out := filepath.Join(t.TempDir(), "out")
	first := startGated(t, mark, "run", prob, "--submission", sub, "--out", out, "--progress", "none")
	pid := "pid " + strconv.Itoa(first.Process.Pid)

	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out)
	if r.code != 2 || !strings.Contains(r.stderr, "run directory "+out+" is in use") || !strings.Contains(r.stderr, pid) {
		t.Fatalf("second run into the same --out: exit %d\n%s", r.code, r.stderr)
	}
	r = wasmeval(t, "run", "--resume", out)
	if r.code != 2 || !strings.Contains(r.stderr, "is in use") || !strings.Contains(r.stderr, pid) {
		t.Fatalf("resume of a directory being written: exit %d\n%s", r.code, r.stderr)
	}
	r = wasmeval(t, "report", out)
	if r.code != 0 || !strings.Contains(r.stderr, "is in progress ("+pid+" is writing it)") || !strings.Contains(r.stdout, "(running)") {
		t.Fatalf("report of a run in progress: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	os.WriteFile(gate, nil, 0o644)
	if code := waitExit(t, first); code != 0 {
		t.Fatalf("the first run: exit %d", code)
	}
	if got := strings.Join(journalKeys(t, out), " "); got != "c1/g/a c1/g/b c1/g/c" {
		t.Fatalf("journal: %s", got)
	}
	// Finished: nobody holds the directory, a resume (of nothing left) may run.
	if r := wasmeval(t, "run", "--resume", out, "--progress", "none"); r.code != 0 {
		t.Fatalf("resume after the run ended: exit %d\n%s", r.code, r.stderr)
	}

	// Two resumes at once: the second is refused.
	os.Remove(gate)
	os.Remove(mark)
	out2 := filepath.Join(t.TempDir(), "out")
	interrupted := exec.Command(binary, "run", prob, "--submission", sub, "--out", out2, "--progress", "none")
	if err := interrupted.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first case never started")
		}
	}
	interrupted.Process.Signal(os.Interrupt)
	if code := waitExit(t, interrupted); code != 130 {
		t.Fatalf("interrupted run: exit %d", code)
	}
	os.Remove(mark)
	resume := startGated(t, mark, "run", "--resume", out2, "--progress", "none")
	r = wasmeval(t, "run", "--resume", out2)
	if r.code != 2 || !strings.Contains(r.stderr, out2+" is in use") || !strings.Contains(r.stderr, "pid "+strconv.Itoa(resume.Process.Pid)) {
		t.Fatalf("second resume: exit %d\n%s", r.code, r.stderr)
	}
	os.WriteFile(gate, nil, 0o644)
	if code := waitExit(t, resume); code != 0 {
		t.Fatalf("resume: exit %d", code)
	}
	if got := strings.Join(journalKeys(t, out2), " "); got != "c1/g/a c1/g/b c1/g/c" {
		t.Fatalf("journal after two resumes at once: %s", got)
	}
}

// A run killed with SIGKILL leaves no lock behind: the kernel dropped it.
// A report then says the run stopped without ending, and a resume
// finishes it.
func TestKilledRunDoesNotLockItsDirectory(t *testing.T) {
	tmp := t.TempDir()
	mark, gate := filepath.Join(tmp, "mark"), filepath.Join(tmp, "gate")
	prob, sub := gatedProblem(t, mark, gate)
	out := filepath.Join(t.TempDir(), "out")
	run := startGated(t, mark, "run", prob, "--submission", sub, "--out", out, "--progress", "none")
	run.Process.Signal(syscall.SIGKILL)
	waitExit(t, run)

	r := wasmeval(t, "report", out)
	if r.code != 0 || !strings.Contains(r.stderr, "stopped without ending") {
		t.Fatalf("report of a killed run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	os.WriteFile(gate, nil, 0o644)
	r = wasmeval(t, "run", "--resume", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("resume of a killed run: exit %d\n%s", r.code, r.stderr)
	}
	if got := strings.Join(journalKeys(t, out), " "); got != "c1/g/a c1/g/b c1/g/c" {
		t.Fatalf("journal: %s", got)
	}
}

// A run whose directory fills up stops at once, says why, what it kept
// and how to continue, and leaves a valid journal and a manifest saying
// it failed; once there is room, --resume finishes it with exactly one
// record per case.
func TestFullDiskRunStopsAndResumes(t *testing.T) {
	const n = 40
	files := map[string]string{
		"config.yaml": "name: full\nentry_file: main.sh\ncommand: sh {entry_file}\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
	}
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("c1/g/case%02d/case.yaml", i)] = fmt.Sprintf("order: %d\nexpected: {status_code: 0}\n", i)
	}
	prob := writeTree(t, files)
	sub := writeTree(t, map[string]string{"main.sh": "head -c 3000 /dev/zero | tr '\\0' x\n"})
	out, resize := journaltest.Tmpfs(t, "192k")

	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out, "--progress", "none")
	jpath := filepath.Join(out, journal.FileName)
	kept := len(readJournal(t, out))
	if r.code != 2 || kept == 0 || kept >= n {
		t.Fatalf("run on a full disk: exit %d, %d records kept\n%s", r.code, kept, r.stderr)
	}
	for _, want := range []string{"cannot write to the results journal " + jpath, "no space left on device",
		fmt.Sprintf("with %d finished results kept", kept), "wasmeval run --resume " + out} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if c, err := journal.Check(jpath); c != nil || err != nil {
		t.Fatalf("journal after the failed run: %v %v", c, err)
	}
	if m, err := manifest.Read(out); err != nil || m.Status != manifest.StatusFailed {
		t.Fatalf("manifest: %+v %v", m, err)
	}

	resize("8m")
	r = wasmeval(t, "run", "--resume", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	keys := journalKeys(t, out)
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k] = true
	}
	if len(keys) != n || len(seen) != n {
		t.Fatalf("after resume: %d records for %d cases", len(keys), len(seen))
	}
	if m, _ := manifest.Read(out); m.Status != manifest.StatusComplete {
		t.Fatalf("manifest after resume: %s", m.Status)
	}
}

// A corrupt line in the middle of the journal: report refuses, naming the
// file and line; report --salvage sets it aside and reports the rest as
// interrupted; run --resume runs that case again. A resume salvages by
// itself too.
func TestCorruptJournalLineIsSalvaged(t *testing.T) {
	prob, sub := gatedProblem(t, filepath.Join(t.TempDir(), "mark"), "/")
	out := filepath.Join(t.TempDir(), "out")
	if r := wasmeval(t, "run", prob, "--submission", sub, "--out", out, "--progress", "none"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	jpath := filepath.Join(out, journal.FileName)
	corrupt := func(line int) string {
		data, _ := os.ReadFile(jpath)
		lines := strings.SplitAfter(string(data), "\n")
		bad := lines[line-1]
		lines[line-1] = bad[:len(bad)/2] + "\n"
		os.WriteFile(jpath, []byte(strings.Join(lines, "")), 0o644)
		return lines[line-1]
	}
	bad := corrupt(2)

	r := wasmeval(t, "report", out)
	if r.code != 2 || !strings.Contains(r.stderr, jpath+":2: corrupt journal line") || !strings.Contains(r.stderr, "report --salvage") {
		t.Fatalf("report of a corrupt journal: exit %d\n%s", r.code, r.stderr)
	}
	r = wasmeval(t, "report", out, "--salvage")
	if r.code != 0 || !strings.Contains(r.stderr, jpath+":2: corrupt journal line") || !strings.Contains(r.stdout, "(interrupted)") || !strings.Contains(r.stdout, "INCOMPLETE") {
		t.Fatalf("report --salvage: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if aside, _ := os.ReadFile(filepath.Join(out, journal.SetAsideName)); string(aside) != bad {
		t.Fatalf("set aside: %q, want %q", aside, bad)
	}
	if got := strings.Join(journalKeys(t, out), " "); got != "c1/g/a c1/g/c" {
		t.Fatalf("journal after salvage: %s", got)
	}
	r = wasmeval(t, "run", "--resume", out, "--progress", "none")
	if got := strings.Join(journalKeys(t, out), " "); r.code != 0 || got != "c1/g/a c1/g/c c1/g/b" {
		t.Fatalf("resume after salvage: exit %d, journal %s\n%s", r.code, got, r.stderr)
	}

	corrupt(1)
	r = wasmeval(t, "run", "--resume", out, "--progress", "none")
	if r.code != 0 || !strings.Contains(r.stderr, jpath+":1: corrupt journal line") || !strings.Contains(r.stderr, "their cases run again") {
		t.Fatalf("resume of a corrupt journal: exit %d\n%s", r.code, r.stderr)
	}
	if got := strings.Join(journalKeys(t, out), " "); got != "c1/g/c c1/g/b c1/g/a" {
		t.Fatalf("journal after resume: %s", got)
	}
	if r := wasmeval(t, "report", out); r.code != 0 || !strings.Contains(r.stdout, "(complete)") {
		t.Fatalf("report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// report --output on a full disk fails and leaves the previous file whole,
// not a cut-off report that CI would read as the whole run.
func TestReportOutputOnAFullDiskKeepsThePreviousFile(t *testing.T) {
	prob, sub := gatedProblem(t, filepath.Join(t.TempDir(), "mark"), "/")
	out := filepath.Join(t.TempDir(), "out")
	if r := wasmeval(t, "run", prob, "--submission", sub, "--out", out, "--progress", "none"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	disk, _ := journaltest.Tmpfs(t, "64k")
	junit := filepath.Join(disk, "junit.xml")
	if r := wasmeval(t, "report", out, "--format", "junit", "-o", junit); r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	before, _ := os.ReadFile(junit)
	filler, _ := os.Create(filepath.Join(disk, "filler"))
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	filler.Close()
	r := wasmeval(t, "report", out, "--format", "html", "-o", junit)
	if r.code != 2 || !strings.Contains(r.stderr, "no space left on device") {
		t.Fatalf("report on a full disk: exit %d\n%s", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(junit); string(after) != string(before) || !strings.Contains(string(before), "</testsuites>") {
		t.Fatalf("the previous report was damaged (%d bytes, was %d)", len(after), len(before))
	}
	if entries, _ := os.ReadDir(disk); len(entries) != 2 {
		t.Fatalf("files left behind: %v", entries)
	}
}
