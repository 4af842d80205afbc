package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// A run whose environment spec says runtime: docker hands its groups only
// to a worker that offers Docker, which runs them in containers of the
// real engine, against a real nats-server; a worker that offers only the
// local runtime, serving the same queue, gets none of them.
func TestDistributedDockerWorker(t *testing.T) {
	image := dockertest.Image(t, "python")
	srv := natstest.Start(t)
	spec := writeSpec(t, "runtime: docker\nimage: "+image+"\nmemory: 256MiB\n")

	local := startProc(t, "worker", "--queue", srv.URL(), "--slots", "2", "--name", "plain", "--runtime", "local", "--cache", t.TempDir())
	dock := startProc(t, "worker", "--queue", srv.URL(), "--slots", "2", "--name", "dock", "--runtime", "docker", "--cache", t.TempDir())
	for _, w := range []*proc{local, dock} {
		w := w
		waitUntil(t, "the workers serve", func() bool { return strings.Contains(w.out.String(), "serving") })
	}
	out := filepath.Join(t.TempDir(), "run")
	coord := startProc(t, "run", batchExample+"/problems/add", "--submission", batchExample+"/submissions/reference/add",
		"--env", spec, "--queue", srv.URL(), "--progress", "none", "--out", out, "--no-history")
	if code := coord.wait(t, "the coordinator"); code != 0 {
		t.Fatalf("run exited %d:\n%s\nDocker worker:\n%s\nlocal worker:\n%s", code, coord.out, dock.out, local.out)
	}
	eachCaseOnce(t, out, 0, result.OutcomePassed)
	if strings.Contains(local.out.String(), "running group") {
		t.Errorf("the local-only worker ran a group that needs Docker:\n%s", local.out)
	}
	var man struct {
		Runtime struct {
			Name string `json:"name"`
		} `json:"runtime"`
		Workers map[string][]string `json:"workers"`
	}
	data, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil || json.Unmarshal(data, &man) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if man.Runtime.Name != "docker" {
		t.Errorf("manifest runtime %q, want docker", man.Runtime.Name)
	}
	if len(man.Workers) == 0 {
		t.Error("the manifest lists no workers")
	}
	for group, ws := range man.Workers {
		for _, w := range ws {
			if w != "dock" {
				t.Errorf("group %s ran on %q, want only the Docker worker", group, w)
			}
		}
	}
}
