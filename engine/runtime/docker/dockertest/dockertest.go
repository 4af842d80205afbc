// Package dockertest gives tests a real Docker engine and locally built
// images. Outside CI a missing engine skips the test with a message; under
// CI=true it fails it, since CI installs and starts the engine.
package dockertest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/docker/docker/client"

	"github.com/wasmeval/wasmeval/engine/envspec"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/images"
)

var (
	once    sync.Once
	cli     *client.Client
	connErr error
	tags    sync.Map // builder name → tag
	buildMu sync.Mutex
)

// Client returns a client of a reachable engine, or skips (fails in CI).
func Client(t testing.TB) *client.Client {
	t.Helper()
	once.Do(func() {
		cli, connErr = docker.Connect()
		if connErr == nil {
			_, connErr = docker.Ping(context.Background(), cli)
		}
		if connErr == nil {
			_, connErr = docker.FindBusybox()
		}
	})
	if connErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("docker engine required under CI: %v", connErr)
		}
		t.Skipf("no usable docker engine: %v", connErr)
	}
	return cli
}

// Image returns the tag of a locally built image ("busybox", "python"),
// building it once.
func Image(t testing.TB, name string) string {
	t.Helper()
	c := Client(t)
	if tag, ok := tags.Load(name); ok {
		return tag.(string)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if tag, ok := tags.Load(name); ok {
		return tag.(string)
	}
	tag, err := images.Builders[name](context.Background(), c)
	if err != nil {
		t.Fatalf("build %s image: %v", name, err)
	}
	tags.Store(name, tag)
	return tag
}

// Spec returns a docker spec for the named image with the defaults a spec
// file without other keys would get.
func Spec(t testing.TB, image string) *envspec.Spec {
	t.Helper()
	dir := t.TempDir()
	file := dir + "/env.yaml"
	if err := os.WriteFile(file, []byte("image: "+image+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := envspec.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
