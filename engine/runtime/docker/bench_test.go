package docker_test

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// BenchmarkExecVsContainerPerCase measures the per-case overhead of the
// runtime's path — an exec into the group's warm container — against
// starting a container per case (create, start, wait, read its output,
// remove: what `docker run --rm` does), on the same trivial case in the
// same image, alternating so both see the same machine load. The target
// is exec/container ≤ 0.25.
func BenchmarkExecVsContainerPerCase(b *testing.B) {
	cli := dockertest.Client(b)
	image := dockertest.Image(b, "busybox")
	spec := dockertest.Spec(b, image)
	rt, err := docker.New(context.Background(), docker.Options{Spec: spec, BaseDir: b.TempDir(), Client: cli})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	sub := b.TempDir()
	os.WriteFile(sub+"/case.txt", []byte("hello\n"), 0o644)
	s, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	req := runtime.ExecRequest{Argv: []string{"cat", "case.txt"}, Env: map[string]string{"PATH": "/bin"}, Timeout: time.Minute}

	ctx := context.Background()
	perContainer := func() {
		resp, err := cli.ContainerCreate(ctx, &container.Config{Image: image, Cmd: req.Argv, WorkingDir: "/workspace", Env: []string{"PATH=/bin"}},
			&container.HostConfig{NetworkMode: "none", Mounts: []mount.Mount{{Type: mount.TypeBind, Source: s.Workdir(), Target: "/workspace"}}}, nil, nil, "")
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
	// Warm both paths once.
	if res, err := s.Exec(ctx, req); err != nil || string(res.Stdout) != "hello\n" {
		b.Fatalf("exec case: %q %v", res.Stdout, err)
	}
	perContainer()

	var execT, contT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := s.Exec(ctx, req); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		perContainer()
		execT += t1.Sub(t0)
		contT += time.Since(t1)
	}
	b.StopTimer()
	b.ReportMetric(float64(execT.Milliseconds())/float64(b.N), "exec-ms/case")
	b.ReportMetric(float64(contT.Milliseconds())/float64(b.N), "container-ms/case")
	b.ReportMetric(float64(execT)/float64(contT), "exec/container")
}
