package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// A container killed mid-case is an error of the harness, not the
// submission's answer: the case is retried in a new container and passes,
// every attempt is in the journal, and the summary counts the case once,
// passed.
func TestContainerKilledMidCaseIsRetried(t *testing.T) {
	spec := dockertest.Spec(t, dockertest.Image(t, "python"))
	base := t.TempDir()
	cli := dockertest.Client(t)
	drt, err := docker.New(context.Background(), docker.Options{Spec: spec, BaseDir: base, Client: cli})
	if err != nil {
		t.Fatal(err)
	}
	defer drt.Close()
	files := map[string]string{
		"config.yaml": "name: lost\ncommand: sh main.sh\ncheckpoints:\n  c1:\n    groups:\n      core: {type: Core, timeout: 300}\n",
		"c1/core.yaml": `victim: {order: 1, arguments: [victim], expected: {output: "ok\n"}}
after: {order: 2, arguments: [after], expected: {output: "ok\n"}}
`,
	}
	prob := writeFiles(t, files)
	sub := t.TempDir()
	// The victim says it started (with a token of this attempt's own),
	// then waits for the test's word.
	os.WriteFile(filepath.Join(sub, "main.sh"), []byte(`if [ "$1" = victim ]; then
  cat /proc/sys/kernel/random/uuid > victim-started
  while [ ! -e proceed ]; do sleep 0.1; done
fi
echo ok
`), 0o644)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}

	// The first time the victim starts, its container is killed through
	// the Docker API; the second time (in a new container, once the
	// marker is the new attempt's, not the first's before the workspace
	// was restored), it is told to go on.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	acted := make(chan error, 1)
	go func() {
		killed, token := "", ""
		deadline := time.Now().Add(5 * time.Minute)
		for ctx.Err() == nil {
			if time.Now().After(deadline) {
				acted <- errors.New("the victim did not start twice within 5 minutes")
				return
			}
			marker := findFile(base, "victim-started")
			var now string
			if marker != "" {
				data, _ := os.ReadFile(marker)
				now = strings.TrimSpace(string(data))
			}
			cs, _ := cli.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(filters.Arg("label", docker.LabelRun+"="+drt.RunID()))})
			switch {
			case now == "" || len(cs) != 1:
			case killed == "":
				killed, token = cs[0].ID, now
				if err := cli.ContainerKill(ctx, killed, "KILL"); err != nil {
					acted <- err
					return
				}
			case cs[0].ID != killed && now != token:
				acted <- os.WriteFile(filepath.Join(filepath.Dir(marker), "proceed"), nil, 0o644)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Runtime: drt, Loader: BuiltinLoader,
		RetryErrors: 1, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-acted; err != nil {
		t.Fatal(err)
	}
	var got []string
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		got = append(got, r.ID+":"+string(r.Outcome)+":"+string(r.ErrorKind))
		if r.Attempt <= 1 && r.ID == "victim" && !strings.Contains(r.Result.Error, "stopped during the case") {
			t.Errorf("the killed attempt's error: %q", r.Result.Error)
		}
		return nil
	})
	if strings.Join(got, " ") != "victim:error:adapter victim:passed: after:passed:" {
		t.Errorf("journal: %v", got)
	}
	if s := res.Summaries[0]; s.CasesPassed != 2 || s.CasesErrored != 0 || s.Verdict != result.VerdictPassed {
		t.Errorf("summary: %d passed, %d errors, %s", s.CasesPassed, s.CasesErrored, s.Verdict)
	}
}

// findFile is the path of the first file named name under dir, "" when
// there is none.
func findFile(dir, name string) string {
	found := ""
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && found == "" && d.Name() == name {
			found = path
		}
		return nil
	})
	return found
}
