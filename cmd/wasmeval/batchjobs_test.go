package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/batch"
	"github.com/wasmeval/wasmeval/engine/result"
)

// pooledBatch is a problem of `groups` groups of one case and a batch of
// one slow submission and `fast` quick ones. Every case marks itself
// running (a directory under shared/running) while it runs and logs how
// many cases were running when it started, so the batch's concurrency is
// read from what actually ran. The slow submission's cases wait for one
// another in generations of `jobs` (shared/arrived numbers them): a
// generation ends only once `jobs` of the slow pair's groups have been
// running at the same time, which a pair given a fixed share of --jobs
// never reaches; the wait gives up after 90 s and says so in the log.
func pooledBatch(t *testing.T, groups, fast, jobs int) (problems, submissions, shared string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed:", err)
	}
	shared = t.TempDir()
	for _, d := range []string{"running", "arrived"} {
		if err := os.Mkdir(filepath.Join(shared, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "name: pool\nversion: 1\nentry_file: work\ncommand: python3 {entry_file}\nadapter: {type: cli}\ntimeout: 120\ncheckpoints:\n  c1:\n    groups:\n"
	files := map[string]string{}
	for g := range groups {
		name := fmt.Sprintf("g%d", g)
		cfg += fmt.Sprintf("      %s: {type: Core}\n", name)
		files["problems/pool/c1/"+name+".yaml"] = fmt.Sprintf("only:\n  arguments: [%s]\n  expected: {status_code: 0, output: \"ok\\n\"}\n", name)
	}
	files["problems/pool/config.yaml"] = cfg
	script := func(sub string, slow bool) string {
		return fmt.Sprintf(`import os, sys, time
shared, sub, jobs, slow = %q, %q, %d, %s
me = sub + "-" + sys.argv[1]
running = os.path.join(shared, "running")
os.mkdir(os.path.join(running, me))
n = len(os.listdir(running))
with open(os.path.join(shared, "log"), "a") as f:
    f.write("start %%s %%d\n" %% (me, n))
if slow:
    arrived = os.path.join(shared, "arrived")
    i = 1
    while True:
        try:
            os.mkdir(os.path.join(arrived, str(i)))
            break
        except FileExistsError:
            i += 1
    want = ((i - 1) // jobs + 1) * jobs
    deadline = time.time() + 90
    while len(os.listdir(arrived)) < want and time.time() < deadline:
        time.sleep(0.02)
    if len(os.listdir(arrived)) < want:
        with open(os.path.join(shared, "log"), "a") as f:
            f.write("gaveup %%s\n" %% me)
else:
    time.sleep(0.05)
os.rmdir(os.path.join(running, me))
print("ok")
`, shared, sub, jobs, map[bool]string{true: "True", false: "False"}[slow])
	}
	// The slow submission sorts first, so it starts with the batch.
	files["subs/a-slow/pool/work.py"] = script("a-slow", true)
	for i := range fast {
		name := fmt.Sprintf("b-fast%d", i)
		files["subs/"+name+"/pool/work.py"] = script(name, false)
	}
	root := writeTree(t, files)
	return filepath.Join(root, "problems"), filepath.Join(root, "subs"), shared
}

// --jobs is one pool for the whole batch: a pair's groups and the other
// pairs' draw from the same slots. The slow pair gets --jobs of its groups
// running at once (its generations complete) while other pairs run beside
// it, and no more than --jobs cases ever run at once across the batch.
func TestBatchJobsArePooled(t *testing.T) {
	const jobs, groups = 3, 6
	problems, subs, shared := pooledBatch(t, groups, 4, jobs)
	out := filepath.Join(t.TempDir(), "batch")
	r := wasmeval(t, "batch", problems+"/*", "--submissions", subs, "--out", out, "--jobs", strconv.Itoa(jobs), "--progress-every", "0")
	if r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readBatch(t, out)
	for _, p := range f.Pairs {
		if p.Status != batch.PairComplete || p.Verdict != result.VerdictPassed || p.Passed != groups {
			t.Errorf("pair %s/%s: %s %s, %d passed; want complete, passed, %d", p.Submission, p.Problem, p.Status, p.Verdict, p.Passed, groups)
		}
	}
	data, err := os.ReadFile(filepath.Join(shared, "log"))
	if err != nil {
		t.Fatal(err)
	}
	peak, starts, others := 0, 0, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 2 && fields[0] == "gaveup":
			t.Errorf("case %s waited 90 s for %d of the slow pair's groups to run at once: the pair did not get the batch's free slots", fields[1], jobs)
		case len(fields) == 3 && fields[0] == "start":
			n, err := strconv.Atoi(fields[2])
			if err != nil {
				t.Fatalf("log line %q", line)
			}
			starts++
			peak = max(peak, n)
			if !strings.HasPrefix(fields[1], "a-slow-") {
				others[fields[1]] = true
			}
		default:
			t.Fatalf("log line %q", line)
		}
	}
	if want := groups * 5; starts != want {
		t.Errorf("%d cases started, want %d", starts, want)
	}
	if peak > jobs {
		t.Errorf("%d cases ran at once with --jobs %d", peak, jobs)
	}
	if peak < jobs {
		t.Errorf("at most %d cases ran at once; --jobs %d slots were never all busy", peak, jobs)
	}
	if len(others) != groups*4 {
		t.Errorf("%d fast cases ran, want %d", len(others), groups*4)
	}
}
