package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// startQueueWorker starts one `wasmeval worker` process on url with a
// cache of its own and no plugin directory, and waits until it serves.
func startQueueWorker(t *testing.T, url, name string) *proc {
	t.Helper()
	w := startProc(t, "worker", "--queue", url, "--slots", "2", "--name", name, "--cache", t.TempDir())
	waitUntil(t, "worker "+name+" serves", func() bool { return strings.Contains(w.out.String(), "serving") })
	return w
}

// runRecords runs wasmeval with args (a run whose --out is out) and
// returns its exit code and the journal's records by case key.
func runRecords(t *testing.T, out string, args ...string) (int, map[string]*result.CaseRecord) {
	t.Helper()
	p := startProc(t, append(args, "--out", out, "--progress", "none", "--no-history")...)
	code := p.wait(t, "wasmeval "+strings.Join(args, " "))
	recs := map[string]*result.CaseRecord{}
	err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		if recs[r.Key()] != nil {
			t.Errorf("%s: %s recorded twice", out, r.Key())
		}
		recs[r.Key()] = r
		return nil
	})
	if err != nil {
		t.Fatalf("%v; the run's output:\n%s", err, p.out)
	}
	if len(recs) == 0 {
		t.Fatalf("no records; the run's output:\n%s", p.out)
	}
	return code, recs
}

// inventoryWithPluginDir is the inventory example with its verifier and
// its loader plugin bound by name and kept in a plugin directory of their
// own, outside the problem.
func inventoryWithPluginDir(t *testing.T) (prob, pluginDir string) {
	t.Helper()
	prob = copyTree(t, "../../examples/inventory")
	pluginDir = t.TempDir()
	for file, binding := range map[string][2]string{
		"config.yaml":              {"path: plugins/inventory-verifier.wasm", "name: inventory-verifier"},
		"checkpoint_2/config.yaml": {"path: plugins/inventory-loader.wasm", "name: inventory-loader"},
	} {
		b, err := os.ReadFile(filepath.Join(prob, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), binding[0]) {
			t.Fatalf("%s no longer binds %q", file, binding[0])
		}
		if err := os.WriteFile(filepath.Join(prob, file), []byte(strings.Replace(string(b), binding[0], binding[1], 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		wasm := strings.TrimPrefix(binding[0], "path: plugins/")
		if err := os.Rename(filepath.Join(prob, "plugins", wasm), filepath.Join(pluginDir, wasm)); err != nil {
			t.Fatal(err)
		}
	}
	repin(t, prob, filepath.Join(prob, "plugins"), pluginDir)
	return prob, pluginDir
}

// pinnedPlugin is a binding of a plugin by path or name and its pin.
var pinnedPlugin = regexp.MustCompile(`(?m)^(\s*)(path: plugins/|name: )([\w-]+?)(\.wasm)?\n(\s*)sha256: [0-9a-f]{64}`)

// repin rewrites the pins of the problem's config files to the digests
// of the modules as built here, found in dirs: what is tested is where
// plugins are found, not whether this checkout's build reproduces the
// committed pins.
func repin(t *testing.T, prob string, dirs ...string) {
	t.Helper()
	for _, file := range []string{"config.yaml", "checkpoint_1/config.yaml", "checkpoint_2/config.yaml"} {
		b, err := os.ReadFile(filepath.Join(prob, file))
		if err != nil {
			t.Fatal(err)
		}
		out := pinnedPlugin.ReplaceAllStringFunc(string(b), func(m string) string {
			g := pinnedPlugin.FindStringSubmatch(m)
			for _, d := range dirs {
				if digest, _, err := host.Digest(filepath.Join(d, g[3]+".wasm")); err == nil {
					return g[1] + g[2] + g[3] + g[4] + "\n" + g[5] + "sha256: " + digest
				}
			}
			t.Fatalf("%s: no module for %q in %v", file, g[3], dirs)
			return m
		})
		if err := os.WriteFile(filepath.Join(prob, file), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A problem whose verifier and loader are found through --plugin-dir
// (not under the problem) runs on a worker that has neither, with the
// verdicts of a run on one machine: the plugins travel by digest.
func TestDistributedRunSendsPluginsFromOutsideTheProblem(t *testing.T) {
	srv := natstest.Start(t)
	startQueueWorker(t, srv.URL(), "w1")
	prob, pluginDir := inventoryWithPluginDir(t)
	sub := filepath.Join(prob, "submissions", "broken")
	localCode, local := runRecords(t, filepath.Join(t.TempDir(), "local"), "run", prob, "--submission", sub, "--plugin-dir", pluginDir)
	distCode, dist := runRecords(t, filepath.Join(t.TempDir(), "dist"), "run", prob, "--submission", sub, "--plugin-dir", pluginDir, "--queue", srv.URL())
	if distCode != localCode {
		t.Errorf("distributed run exited %d, the local one %d", distCode, localCode)
	}
	if len(dist) != len(local) || len(local) != 20 {
		t.Errorf("%d cases distributed, %d local; want the example's 20 in both", len(dist), len(local))
	}
	seen := map[result.Outcome]int{}
	for k, l := range local {
		d := dist[k]
		if d == nil {
			t.Errorf("%s: not in the distributed run", k)
			continue
		}
		seen[result.OutcomeOf(l)]++
		if result.OutcomeOf(d) != result.OutcomeOf(l) || d.Score != l.Score {
			t.Errorf("%s: distributed %s (score %v, error %q), local %s (score %v)", k, result.OutcomeOf(d), d.Score, d.Result.Error, result.OutcomeOf(l), l.Score)
		}
	}
	if seen[result.OutcomePassed] == 0 || seen[result.OutcomeFailed] == 0 {
		t.Errorf("outcomes %v: the broken submission should pass some cases and fail others", seen)
	}
}

// The run's --seed reaches a loader plugin on a worker (the seedloader
// draws its cases from it), and the worker finds that loader, bound by
// name, only because the coordinator sent it.
func TestDistributedRunSendsTheSeed(t *testing.T) {
	srv := natstest.Start(t)
	startQueueWorker(t, srv.URL(), "w1")
	pluginDir := t.TempDir()
	wasm := filepath.Join(pluginDir, "seedloader.wasm")
	if err := pluginbuild.Build("../../engine/run/testdata/seedloader", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	prob := writeTree(t, map[string]string{
		"config.yaml": fmt.Sprintf("name: seeded\ncommand: sh echo.sh\ntimeout: 300\nloader: {type: plugin, name: seedloader, sha256: %s}\n"+
			"checkpoints:\n  c1:\n    groups:\n      core: {type: Core}\n", digest),
		"c1/.keep": "",
	})
	sub := writeTree(t, map[string]string{"echo.sh": `printf '%s' "$1"` + "\n"})
	_, local := runRecords(t, filepath.Join(t.TempDir(), "local"), "run", prob, "--submission", sub, "--plugin-dir", pluginDir, "--seed", "7")
	code, dist := runRecords(t, filepath.Join(t.TempDir(), "dist"), "run", prob, "--submission", sub, "--plugin-dir", pluginDir, "--seed", "7", "--queue", srv.URL())
	if code != 0 || len(dist) != 3 {
		t.Fatalf("distributed run exited %d with %d cases, want 0 and the loader's 3", code, len(dist))
	}
	for k, d := range dist {
		l := local[k]
		if d.Case == nil || l == nil || l.Case == nil {
			t.Fatalf("%s: no case in the distributed record, or not in the local run", k)
		}
		if d.Case.Env["SEED"] != "7" || d.Case.Env["WASMEVAL_SEED"] != "7" {
			t.Errorf("%s: the worker's loader saw seed %q, the case's environment WASMEVAL_SEED=%q; want 7 and 7", k, d.Case.Env["SEED"], d.Case.Env["WASMEVAL_SEED"])
		}
		if fmt.Sprint(d.Case.Arguments) != fmt.Sprint(l.Case.Arguments) || !d.Passed {
			t.Errorf("%s: distributed arguments %v (passed %v), local %v", k, d.Case.Arguments, d.Passed, l.Case.Arguments)
		}
	}
}

// tamperObject stores other bytes under the name digest in the artifact
// store of the server at url, as someone who can write the store could.
func tamperObject(t *testing.T, url, digest string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nc, js, err := distribute.Connect(ctx, url, "tamper")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	store, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: distribute.ArtifactBucket, Storage: jetstream.FileStorage})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutBytes(ctx, digest, []byte("\x00asm\x01\x00\x00\x00 not the verifier")); err != nil {
		t.Fatal(err)
	}
}

// A tampered object already in the store under a plugin's digest (the
// verifier's, here) is replaced by the coordinator, which says so in the
// run's log: the worker then fetches the right plugin and every case
// gets the verdict of a run on one machine.
func TestDistributedRunReplacesATamperedPlugin(t *testing.T) {
	srv := natstest.Start(t)
	prob, pluginDir := inventoryWithPluginDir(t)
	digest, _, err := host.Digest(filepath.Join(pluginDir, "inventory-verifier.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	tamperObject(t, srv.URL(), digest)
	startQueueWorker(t, srv.URL(), "w1")
	out := filepath.Join(t.TempDir(), "dist")
	code, dist := runRecords(t, out, "run", prob, "--submission", filepath.Join(prob, "submissions", "reference"),
		"--plugin-dir", pluginDir, "--queue", srv.URL())
	if code != 0 || len(dist) != 20 {
		t.Errorf("run exited %d with %d cases, want 0 and the example's 20", code, len(dist))
	}
	for k, r := range dist {
		if result.OutcomeOf(r) != result.OutcomePassed {
			t.Errorf("%s: %s (error %q), want passed", k, result.OutcomeOf(r), r.Result.Error)
		}
	}
	log, err := os.ReadFile(filepath.Join(out, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := "the object sha256:" + digest + " (" + filepath.Join(pluginDir, "inventory-verifier.wasm") + ") holds "
	if !strings.Contains(string(log), want) || !strings.Contains(string(log), "replaced it with the right bytes") {
		t.Errorf("the run's log does not say the tampered object was replaced (want %q):\n%s", want, log)
	}
}

// An object whose bytes are not the digest it is named by, put there
// after the coordinator published the run's artifacts (the verifier's,
// here), is refused by the worker: no case runs with it, each is an error
// of the harness naming the object and both digests.
func TestDistributedRunRefusesATamperedPlugin(t *testing.T) {
	srv := natstest.Start(t)
	prob, pluginDir := inventoryWithPluginDir(t)
	digest, _, err := host.Digest(filepath.Join(pluginDir, "inventory-verifier.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	run := startProc(t, "run", prob, "--submission", filepath.Join(prob, "submissions", "reference"),
		"--plugin-dir", pluginDir, "--queue", srv.URL(), "--out", out, "--progress", "none", "--no-history")
	// The jobs are published once the artifacts are: tamper with the
	// verifier's object then, before any worker fetches it.
	waitUntil(t, "the run's jobs are published", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		nc, js, err := distribute.Connect(ctx, srv.URL(), "probe")
		if err != nil {
			return false
		}
		defer nc.Close()
		st, err := js.Stream(ctx, distribute.WorkStream)
		if err != nil {
			return false
		}
		info, err := st.Info(ctx)
		return err == nil && info.State.Msgs > 0
	})
	tamperObject(t, srv.URL(), digest)
	w := startQueueWorker(t, srv.URL(), "w1")
	code := run.wait(t, "the distributed run")
	if code != exitInconclusive {
		t.Errorf("run exited %d, want %d (inconclusive: every case an error of the harness)\n%s", code, exitInconclusive, run.out)
	}
	count, _ := queueJournalCounts(t, out)
	if len(count) != 20 {
		t.Errorf("journal holds %d cases, want the example's 20", len(count))
	}
	got := sha256.Sum256([]byte("\x00asm\x01\x00\x00\x00 not the verifier"))
	want := "plugin inventory-verifier: artifact digest mismatch: the job names sha256:" + digest +
		", the object store " + distribute.ArtifactBucket + " gave sha256:" + hex.EncodeToString(got[:])
	err = journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		if result.OutcomeOf(r) != result.OutcomeError || !strings.Contains(r.Result.Error, want) {
			t.Errorf("%s: %s, error %q; want an error naming the mismatch", r.Key(), result.OutcomeOf(r), r.Result.Error)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.out.String(), "refused group") || !strings.Contains(w.out.String(), want) {
		t.Errorf("the worker did not say it refused the tampered plugin:\n%s", w.out)
	}
}
