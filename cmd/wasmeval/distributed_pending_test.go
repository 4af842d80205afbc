package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// workConsumer is the state of the work consumer of local groups on the
// server at url (nil while there is none).
func workConsumer(t *testing.T, url string) *jetstream.ConsumerInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc, js, err := distribute.Connect(ctx, url, "probe")
	if err != nil {
		return nil
	}
	defer nc.Close()
	cons, err := js.Consumer(ctx, distribute.WorkStream, "work-local-"+goruntime.GOARCH)
	if err != nil {
		return nil
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil
	}
	return info
}

// gatedSubmission is the inventory example's reference submission made
// to wait, before it answers, until the file gate exists: a test sees
// every group that can be handed out handed out and running.
func gatedSubmission(t *testing.T, gate string) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/inventory/submissions/reference/inventory.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wait := "import csv\nimport os, time\nwhile not os.path.exists(" + strconvQuote(gate) + "):\n    time.sleep(0.05)\n"
	if err := os.WriteFile(filepath.Join(dir, "inventory.py"), []byte(strings.Replace(string(src), "import csv\n", wait, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func strconvQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

var servingOn = regexp.MustCompile(`serving \[local\] on (nats://\S+) with (\d+) slot`)

// With --workers N --slots S, each local worker runs S groups at once
// and the queue hands out at most N×S: its unacknowledged limit is the
// workers' slots together. With every group held (the submission waits),
// exactly that many are out; once released, every case is recorded once.
func TestLocalWorkersSlotsBoundTheGroupsInFlight(t *testing.T) {
	// Held cases must not time out: the example's timeouts are raised.
	prob := copyTree(t, "../../examples/inventory")
	for _, file := range []string{"config.yaml", "checkpoint_1/config.yaml", "checkpoint_2/config.yaml"} {
		b, err := os.ReadFile(filepath.Join(prob, file))
		if err != nil {
			t.Fatal(err)
		}
		raised := regexp.MustCompile(`(?m)^(\s*)timeout: \d+$`).ReplaceAllString(string(b), "${1}timeout: 600")
		if err := os.WriteFile(filepath.Join(prob, file), []byte(raised), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repin(t, prob, filepath.Join(prob, "plugins"))
	gate := filepath.Join(t.TempDir(), "go")
	out := filepath.Join(t.TempDir(), "run")
	p := startProc(t, "run", prob, "--submission", gatedSubmission(t, gate), "--workers", "2", "--slots", "2",
		"--out", out, "--progress", "none", "--no-history")
	var url string
	waitUntil(t, "both local workers serve with 2 slots", func() bool {
		b, _ := os.ReadFile(filepath.Join(out, "workers.log"))
		m := servingOn.FindAllStringSubmatch(string(b), -1)
		if len(m) < 2 {
			return false
		}
		for _, s := range m {
			if s[2] != "2" {
				t.Fatalf("a local worker serves with %s slots, want 2:\n%s", s[2], b)
			}
		}
		url = m[0][1]
		return true
	})
	var info *jetstream.ConsumerInfo
	waitUntil(t, "four groups are handed out", func() bool {
		info = workConsumer(t, url)
		return info != nil && info.NumAckPending == 4
	})
	if info.Config.MaxAckPending != 4 {
		t.Errorf("the work consumer's MaxAckPending is %d, want --workers × --slots = 4", info.Config.MaxAckPending)
	}
	// The groups out stay at the limit while they are held.
	time.Sleep(2 * time.Second)
	if info = workConsumer(t, url); info == nil || info.NumAckPending != 4 {
		t.Errorf("groups handed out: %+v, want 4 (no more than the slots)", info)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, "the run"); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, p.out)
	}
	eachCaseOnce(t, out, 20, result.OutcomePassed)
}

// With --queue the workers are elsewhere and their slots unknown here:
// --max-pending sets the queue's unacknowledged limit; --slots belongs to
// --workers, and is refused with --queue.
func TestQueueMaxPending(t *testing.T) {
	srv := natstest.Start(t)
	startQueueWorker(t, srv.URL(), "w1")
	out := filepath.Join(t.TempDir(), "run")
	code, recs := runRecords(t, out, "run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/reference",
		"--queue", srv.URL(), "--max-pending", "3")
	if code != 0 || len(recs) != 20 {
		t.Fatalf("run exited %d with %d cases, want 0 and 20", code, len(recs))
	}
	if info := workConsumer(t, srv.URL()); info == nil || info.Config.MaxAckPending != 3 {
		t.Errorf("work consumer %+v, want MaxAckPending 3", info)
	}
	p := startProc(t, "run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/reference",
		"--queue", srv.URL(), "--slots", "4", "--out", filepath.Join(t.TempDir(), "bad"), "--progress", "none", "--no-history")
	if code := p.wait(t, "run --queue --slots"); code != exitUsage || !strings.Contains(p.out.String(), "--slots is each local worker's (--workers)") {
		t.Errorf("run --queue --slots exited %d, want %d and why:\n%s", code, exitUsage, p.out)
	}
}
