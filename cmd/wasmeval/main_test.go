package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/callcache"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

var binary string

// TestMain builds the real binary once: these tests exercise exit codes,
// signals and process trees, which only a real process shows.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmeval-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "wasmeval")
	// The runs of these tests keep their verdicts apart from the user's.
	os.Setenv(callcache.EnvDir, filepath.Join(dir, "verdicts"))
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build wasmeval: " + err.Error())
	}
	// The example problem verifies with plugins built from this repository.
	if err := pluginbuild.BuildExamples(); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type cliResult struct {
	code   int
	stdout string
	stderr string
	maxRSS int64 // KiB
}

func wasmeval(t *testing.T, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.maxRSS = ru.Maxrss
	}
	if strings.Contains(res.stderr, "goroutine ") || strings.Contains(res.stderr, "panic:") {
		t.Fatalf("wasmeval printed a Go stack trace:\n%s", res.stderr)
	}
	return res
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readJournal(t *testing.T, dir string) []*result.CaseRecord {
	t.Helper()
	var recs []*result.CaseRecord
	if err := journal.Read(filepath.Join(dir, journal.FileName), func(r *result.CaseRecord) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

const example = "../../examples/inventory"

func TestRunExampleExitCodes(t *testing.T) {
	out := t.TempDir()
	r := wasmeval(t, "run", example, "--submission", example+"/submissions/reference", "--out", out, "--jobs", "3")
	if r.code != 0 {
		t.Fatalf("reference: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "checkpoint_1  (all)") || !strings.Contains(r.stdout, "PASS") {
		t.Errorf("summary table missing:\n%s", r.stdout)
	}
	// Not a terminal: plain progress lines.
	if !strings.Contains(r.stderr, "PASS    checkpoint_1/summary/basic") {
		t.Errorf("progress lines missing:\n%s", r.stderr)
	}
	var sum report.CheckpointSummary
	data, err := os.ReadFile(filepath.Join(out, "checkpoint_2", "evaluation.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil || !sum.Passed || sum.Cases != 12 {
		t.Errorf("checkpoint_2 summary: %+v (%v)", sum, err)
	}

	r = wasmeval(t, "run", example, "--submission", example+"/submissions/broken", "--out", t.TempDir())
	if r.code != 1 {
		t.Fatalf("broken: exit %d, want 1\n%s", r.code, r.stderr)
	}
	// The broken submission passes Functionality groups, so a policy that
	// only asks for any case to pass accepts it.
	r = wasmeval(t, "run", example, "--submission", example+"/submissions/broken", "--out", t.TempDir(), "--pass-policy", "any-case")
	if r.code != 0 {
		t.Fatalf("broken with any-case: exit %d\n%s", r.code, r.stderr)
	}
	r = wasmeval(t, "run", example, "--submission", example+"/submissions/reference", "--out", t.TempDir(), "--checkpoint", "checkpoint_2")
	if r.code != 0 || strings.Contains(r.stdout, "checkpoint_1  (all)") {
		t.Fatalf("--checkpoint selects one checkpoint: exit %d\n%s", r.code, r.stdout)
	}
}

func TestValidate(t *testing.T) {
	r := wasmeval(t, "validate", example)
	if r.code != 0 || !strings.Contains(r.stdout, "inventory: ok") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestUsageAndConfigErrors(t *testing.T) {
	good := example + "/submissions/reference"
	empty := t.TempDir()
	malformed := writeTree(t, map[string]string{"config.yaml": "name: x\ncheckpoints: [a\n"})
	unknown := writeTree(t, map[string]string{
		"config.yaml":      "name: x\nentry_file: main.sh\nflavour: mint\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g/a/case.yaml": "arguments: [hi]\nexpected: {output: hi}\n",
	})
	escape := writeTree(t, map[string]string{
		"config.yaml":      "name: x\nentry_file: main.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g/a/case.yaml": "input_files:\n  - path: ../../outside.txt\n    content: pwned\nexpected: {output: hi}\n",
		"c1/g/b/case.yaml": "tracked_files: [/etc/passwd]\nexpected: {output: hi}\n",
	})
	outs := t.TempDir() // where refused runs were told to write
	out := func(name string) string { return filepath.Join(outs, name) }
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no submission flag", []string{"run", example}, []string{"--submission DIR is required"}},
		{"missing submission", []string{"run", example, "--submission", "/nonexistent/sub", "--out", out("a")}, []string{"submission /nonexistent/sub"}},
		{"missing entry file", []string{"run", example, "--submission", empty, "--out", out("b")}, []string{`entry file "inventory" not found`}},
		{"malformed yaml", []string{"validate", malformed}, []string{"config.yaml:1", "malformed YAML"}},
		{"unknown key", []string{"validate", unknown}, []string{"config.yaml:3", `flavour: unknown key "flavour"`}},
		{"escaping paths", []string{"validate", escape}, []string{"input_files[0].path", "tracked_files[0]"}},
		{"bad policy", []string{"run", example, "--submission", good, "--pass-policy", "most", "--out", out("c")}, []string{`unknown pass policy "most"`}},
		{"bad checkpoint", []string{"run", example, "--submission", good, "--checkpoint", "checkpoint_9", "--out", out("d")}, []string{`no such checkpoint`}},
		{"unknown flag", []string{"run", example, "--frobnicate"}, []string{"unknown flag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wasmeval(t, tt.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(escape), "outside.txt")); err == nil {
		t.Error("an escaping input file was written")
	}
	// A refused run writes nothing.
	if entries, _ := os.ReadDir(outs); len(entries) != 0 {
		t.Errorf("output directories created for refused runs: %v", entries)
	}
}

// shProblem builds a problem whose submission is a shell script.
func shProblem(t *testing.T, script string, cases map[string]string, extra string) (problemDir, submission string) {
	t.Helper()
	files := map[string]string{
		"config.yaml": "name: sh\nentry_file: main.sh\ncommand: sh {entry_file}\n" + extra +
			"checkpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n        isolated: false\n",
	}
	for name, body := range cases {
		files["c1/g/"+name+"/case.yaml"] = body
	}
	problemDir = writeTree(t, files)
	submission = writeTree(t, map[string]string{"main.sh": script})
	return problemDir, submission
}

func processesWith(marker string) int {
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(data), "\x00", " "), marker) {
			n++
		}
	}
	return n
}

func TestHangingSubmissionIsKilledWithItsChildren(t *testing.T) {
	script := `case "$1" in
hang) sleep 317 & sleep 317 & (setsid sleep 317 &) ; wait ;;
*) echo ok ;;
esac
`
	prob, sub := shProblem(t, script, map[string]string{
		"a_hang": "order: 1\narguments: [hang]\ntimeout: 1\nexpected: {output: \"ok\\n\"}\n",
		"b_ok":   "order: 2\narguments: [fine]\nexpected: {output: \"ok\\n\"}\n",
	}, "")
	out := t.TempDir()
	start := time.Now()
	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("run took %v: the hung case was not killed at its timeout", took)
	}
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	recs := readJournal(t, out)
	if len(recs) != 2 || !recs[0].Result.TimedOut || recs[0].Passed || !recs[1].Passed {
		t.Fatalf("records: %+v", recs)
	}
	time.Sleep(200 * time.Millisecond)
	if n := processesWith("sleep 317"); n != 0 {
		t.Fatalf("%d child processes of the hung case survived", n)
	}
}

func TestFloodingSubmissionIsCapped(t *testing.T) {
	prob, sub := shProblem(t, "head -c 3000000000 /dev/zero | tr '\\0' x\necho done >&2\n", map[string]string{
		"flood": "expected: {status_code: 0}\n",
	}, "output_cap: 1048576\n")
	out := t.TempDir()
	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	recs := readJournal(t, out)
	res := recs[0].Result
	if res.OutputDropped != 3000000000-1048576 || !strings.Contains(res.Output, "output truncated") || res.Stderr != "done\n" {
		t.Fatalf("dropped=%d stderr=%q tail=%q", res.OutputDropped, res.Stderr, res.Output[len(res.Output)-80:])
	}
	if r.maxRSS > 200*1024 {
		t.Fatalf("wasmeval peak RSS %d KiB while the submission printed 3 GB", r.maxRSS)
	}
}

func TestInterruptKeepsFinishedCases(t *testing.T) {
	script := `if [ "$1" = slow ]; then sleep 2931; fi
echo ok
`
	prob, sub := shProblem(t, script, map[string]string{
		"a": "order: 1\narguments: [fast]\nexpected: {output: \"ok\\n\"}\n",
		"b": "order: 2\narguments: [fast]\nexpected: {output: \"ok\\n\"}\n",
		"c": "order: 3\narguments: [slow]\nexpected: {output: \"ok\\n\"}\n",
		"d": "order: 4\narguments: [fast]\nexpected: {output: \"ok\\n\"}\n",
	}, "")
	out := t.TempDir()
	cmd := exec.Command(binary, "run", prob, "--submission", sub, "--out", out)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	passed := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "PASS") {
			passed++
			if passed == 2 {
				break
			}
		}
	}
	time.Sleep(300 * time.Millisecond) // case c is running now
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	go func() {
		for sc.Scan() {
		}
	}()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("interrupt took %v", took)
	}
	recs := readJournal(t, out)
	if len(recs) != 2 || recs[0].ID != "a" || recs[1].ID != "b" {
		t.Fatalf("journal after interrupt: %+v", recs)
	}
	data, err := os.ReadFile(filepath.Join(out, "c1", "evaluation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum report.CheckpointSummary
	json.Unmarshal(data, &sum)
	if sum.Complete || sum.Passed || sum.Cases != 2 {
		t.Fatalf("summary after interrupt: %+v", sum)
	}
	if n := processesWith("sleep 2931"); n != 0 {
		t.Fatalf("the interrupted case's process survived")
	}
}
