package docker_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// BenchmarkExecVsContainerPerCase measures the per-case cost of the Docker
// runtime's paths on the same trivial case (`cat case.txt` from the
// workspace) in the same busybox image, each iteration running every
// path once so all see the same machine load:
//
//   - executor: a request to the group's container's executor (the
//     default);
//   - exec: an exec into the group's warm container (the fallback);
//   - container: a container per case (create, start, wait, read its
//     output, remove: what `docker run --rm` does);
//   - local: the local runtime's case (its launcher, namespaces where
//     the kernel allows them), and spawn: the same command started
//     directly on the host with its output collected, the least any
//     harness does.
//
// Targets: executor ≤ 10 ms a case, ≥ 5× faster than exec, within 3× of
// a local spawn; exec ≤ 1/4 of a container per case.
//
//	go test -run '^$' -bench ExecVsContainerPerCase -benchtime 20x ./engine/runtime/docker/
func BenchmarkExecVsContainerPerCase(b *testing.B) {
	cli := dockertest.Client(b)
	image := dockertest.Image(b, "busybox")
	spec := dockertest.Spec(b, image)
	sub := b.TempDir()
	os.WriteFile(sub+"/case.txt", []byte("hello\n"), 0o644)
	open := func(rt runtime.Runtime) runtime.Session {
		s, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	newDocker := func(execPerCase bool) runtime.Session {
		rt, err := docker.New(context.Background(), docker.Options{Spec: spec, BaseDir: b.TempDir(), Client: cli, ExecPerCase: execPerCase})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { rt.Close() })
		if !execPerCase && !rt.UsesExecutor() {
			b.Fatalf("no executor: %s", rt.Note())
		}
		return open(rt)
	}
	byExecutor, byExec := newDocker(false), newDocker(true)
	byLocal := open(local.New(local.Options{BaseDir: b.TempDir()}))
	req := runtime.ExecRequest{Argv: []string{"cat", "case.txt"}, Env: map[string]string{"PATH": "/bin:/usr/bin"}, Timeout: time.Minute}

	ctx := context.Background()
	perContainer := func() {
		resp, err := cli.ContainerCreate(ctx, &container.Config{Image: image, Cmd: req.Argv, WorkingDir: "/workspace", Env: []string{"PATH=/bin"}},
			&container.HostConfig{NetworkMode: "none", Mounts: []mount.Mount{{Type: mount.TypeBind, Source: byExec.Workdir(), Target: "/workspace"}}}, nil, nil, "")
		if err != nil {
			b.Fatal(err)
		}
		defer cli.ContainerRemove(ctx, resp.ID, container.RemoveOptions{Force: true})
		waitC, errC := cli.ContainerWait(ctx, resp.ID, container.WaitConditionNextExit)
		if err := cli.ContainerStart(ctx, resp.ID, container.StartOptions{}); err != nil {
			b.Fatal(err)
		}
		select {
		case w := <-waitC:
			if w.StatusCode != 0 {
				b.Fatalf("container case exited %d", w.StatusCode)
			}
		case err := <-errC:
			b.Fatal(err)
		}
		logs, err := cli.ContainerLogs(ctx, resp.ID, container.LogsOptions{ShowStdout: true, ShowStderr: true})
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, logs)
		logs.Close()
	}
	run := func(s runtime.Session) {
		if res, err := s.Exec(ctx, req); err != nil || string(res.Stdout) != "hello\n" {
			b.Fatalf("case: %q %q %v", res.Stdout, res.Stderr, err)
		}
	}
	spawn := func() {
		cmd := exec.Command("cat", "case.txt")
		cmd.Dir = sub
		if out, err := cmd.Output(); err != nil || string(out) != "hello\n" {
			b.Fatalf("spawn: %q %v", out, err)
		}
	}
	paths := []struct {
		name string
		do   func()
		t    time.Duration
	}{
		{"executor", func() { run(byExecutor) }, 0},
		{"exec", func() { run(byExec) }, 0},
		{"container", perContainer, 0},
		{"local", func() { run(byLocal) }, 0},
		{"spawn", spawn, 0},
	}
	for _, p := range paths { // warm every path once
		p.do()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range paths {
			t0 := time.Now()
			paths[j].do()
			paths[j].t += time.Since(t0)
		}
	}
	b.StopTimer()
	ms := map[string]float64{}
	for _, p := range paths {
		ms[p.name] = float64(p.t.Microseconds()) / 1000 / float64(b.N)
		b.ReportMetric(ms[p.name], p.name+"-ms/case")
	}
	b.ReportMetric(ms["exec"]/ms["executor"], "exec/executor")
	b.ReportMetric(ms["executor"]/ms["local"], "executor/local")
	b.ReportMetric(ms["executor"]/ms["spawn"], "executor/spawn")
	b.ReportMetric(ms["exec"]/ms["container"], "exec/container")
}
