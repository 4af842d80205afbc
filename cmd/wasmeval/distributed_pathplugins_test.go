package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// rankingCheck is the inventory example's evaluator check of group top
// (checkpoint_1), its plugin bound by path as written.
const rankingCheck = `      - kind: status
        weight: 0.2
      - kind: evaluator
        weight: 0.8
        plugin:
          path: %PATH%
          sha256: %SHA%
        function: top_by_value
        arguments: {catalog: static/catalog.csv}
`

// inventoryWithOutsideRanking is the inventory example with its ranking
// evaluator moved out of the problem into a directory of its own (the
// returned shared), bound by a path relative to the problem that leads
// there: by group top itself (inCases false), or by each of its case
// files, which only the cases' loader reads (inCases true).
func inventoryWithOutsideRanking(t *testing.T, inCases bool) (prob, shared string) {
	t.Helper()
	prob = copyTree(t, "../../examples/inventory")
	shared = t.TempDir()
	wasm := filepath.Join(shared, "inventory-ranking.wasm")
	if err := os.Rename(filepath.Join(prob, "plugins", "inventory-ranking.wasm"), wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(prob, wasm)
	if err != nil || !strings.HasPrefix(rel, "..") {
		t.Fatalf("the plugin's path from the problem is %q (%v), want one leading out of it", rel, err)
	}
	check := strings.NewReplacer("%PATH%", filepath.ToSlash(rel), "%SHA%", digest).Replace(rankingCheck)
	cfgFile := filepath.Join(prob, "checkpoint_1", "config.yaml")
	b, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	i := strings.Index(cfg, "    checks:\n      - kind: status\n")
	j := strings.Index(cfg, "  errors:\n")
	if i < 0 || j < i {
		t.Fatalf("%s no longer has group top's checks where this test expects them", cfgFile)
	}
	if inCases {
		cfg = cfg[:i] + cfg[j:]
		for _, c := range []string{"top_all", "top_two"} {
			file := filepath.Join(prob, "checkpoint_1", "top", c, "case.yaml")
			cb, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// The case file's own checks, at its top level.
			own := "checks:\n" + strings.ReplaceAll(strings.TrimRight(check, "\n"), "\n      ", "\n  ")[4:] + "\n"
			if err := os.WriteFile(file, append(cb, []byte(own)...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		cfg = cfg[:i] + "    checks:\n" + check + cfg[j:]
	}
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// The other plugins stay in the problem, pinned as built here.
	repin(t, prob, filepath.Join(prob, "plugins"))
	return prob, shared
}

// sameQueueVerdicts checks a distributed run's records against a local run's.
func sameQueueVerdicts(t *testing.T, local, dist map[string]*result.CaseRecord) {
	t.Helper()
	if len(dist) != len(local) || len(local) != 20 {
		t.Errorf("%d cases distributed, %d local; want the example's 20 in both", len(dist), len(local))
	}
	for k, l := range local {
		d := dist[k]
		if d == nil {
			t.Errorf("%s: not in the distributed run", k)
			continue
		}
		if result.OutcomeOf(d) != result.OutcomeOf(l) || d.Score != l.Score {
			t.Errorf("%s: distributed %s (score %v, error %q), local %s (score %v)", k, result.OutcomeOf(d), d.Score, d.Result.Error, result.OutcomeOf(l), l.Score)
		}
	}
}

// A plugin bound by path outside the problem, under the coordinator's
// --mount-root — by a group, or by case files, where it is known only
// once the cases are loaded — or bound by name by case files (found in
// the coordinator's --plugin-dir) travels by digest: a worker that has
// neither the plugin nor the mount root or plugin directory gives the
// verdicts of a run on one machine (the top group's cases are scored by
// the moved evaluator).
func TestDistributedRunSendsPluginsBoundByPathOutsideTheProblem(t *testing.T) {
	srv := natstest.Start(t)
	startQueueWorker(t, srv.URL(), "w1")
	for _, tc := range []struct {
		name    string
		inCases bool
		// byName binds the plugin in the case files by name, found in
		// --plugin-dir (not by path, under --mount-root).
		byName bool
	}{{"bound by the group", false, false}, {"bound by case files", true, false}, {"bound by name by case files", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			prob, shared := inventoryWithOutsideRanking(t, tc.inCases)
			allow := "--mount-root"
			if tc.byName {
				rebindCasePlugin(t, prob, "name: inventory-ranking")
				allow = "--plugin-dir"
			}
			sub := filepath.Join(prob, "submissions", "reference")
			localCode, local := runRecords(t, filepath.Join(t.TempDir(), "local"), "run", prob, "--submission", sub, allow, shared)
			distCode, dist := runRecords(t, filepath.Join(t.TempDir(), "dist"), "run", prob, "--submission", sub, allow, shared, "--queue", srv.URL())
			if localCode != 0 || distCode != 0 {
				t.Errorf("local run exited %d, distributed %d; want 0 (the reference submission)", localCode, distCode)
			}
			sameQueueVerdicts(t, local, dist)
			rankedByTheEvaluator(t, dist)
		})
	}
}

// A case that binds a plugin from outside the problem and every
// --mount-root cannot have it (nor could a run on one machine): the run is
// refused before any job is published, naming the case file, the key, the
// plugin and why.
func TestDistributedRunRefusesACasePluginOutsideTheMountRoots(t *testing.T) {
	srv := natstest.Start(t)
	prob, _ := inventoryWithOutsideRanking(t, true)
	p := startProc(t, "run", prob, "--submission", filepath.Join(prob, "submissions", "reference"), "--queue", srv.URL(),
		"--out", filepath.Join(t.TempDir(), "dist"), "--progress", "none", "--no-history")
	code := p.wait(t, "the distributed run")
	out := p.out.String()
	at := filepath.Join(prob, "checkpoint_1", "top", "top_all", "case.yaml") + `: checks[1].plugin.path: plugin file: path "../`
	if code != exitUsage || !strings.Contains(out, at) ||
		!strings.Contains(out, "inventory-ranking.wasm") || !strings.Contains(out, "is outside the problem directory") {
		t.Errorf("run exited %d, want %d and the plugin named with why:\n%s", code, exitUsage, out)
	}
}
