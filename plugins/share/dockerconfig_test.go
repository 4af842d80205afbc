package share

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestBrokenDockerConfigOnlyWhenAsked: with a Docker config that is not
// JSON, a remote is still made and a registry that asks for no
// credentials is used; a registry that asks for them gets an error naming
// the file.
func TestBrokenDockerConfigOnlyWhenAsked(t *testing.T) {
	ctx := context.Background()
	open := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	locked := sharetest.StartRegistry(t, sharetest.RegistryOptions{Auth: true})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"auths":`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	r, err := NewRemote(RemoteOptions{})
	if err != nil {
		t.Fatalf("a broken Docker config stops a remote that may never need it: %v", err)
	}
	ref := mustRef(t, "oci://"+open.Host+"/team-a/v:1")
	if _, err := Push(ctx, writeModule(t, fakeModule("open")), ref, PushOptions{Remote: r, Describe: testDescribe}); err != nil {
		t.Fatalf("push to a registry without auth: %v", err)
	}
	if _, err := Pull(ctx, r, newCache(t), ref); err != nil {
		t.Fatalf("pull from a registry without auth: %v", err)
	}
	_, err = Pull(ctx, r, newCache(t), mustRef(t, "oci://"+locked.Host+"/team-a/v:1"))
	if err == nil || !strings.Contains(err.Error(), "read the Docker config "+cfg) || strings.Contains(err.Error(), "\n") || !IsInput(err) {
		t.Fatalf("a registry asking for credentials: %v", err)
	}
	// A config that parses but whose auth field is not base64.
	if err := os.WriteFile(cfg, []byte(`{"auths":{"`+locked.Host+`":{"auth":"%%%"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, _ = NewRemote(RemoteOptions{})
	_, err = Pull(ctx, r, newCache(t), mustRef(t, "oci://"+locked.Host+"/team-a/v:1"))
	if err == nil || !strings.Contains(err.Error(), cfg) || !IsInput(err) {
		t.Fatalf("a broken auth field: %v", err)
	}
}
