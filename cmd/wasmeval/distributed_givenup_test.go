package main

import (
	"context"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// A group whose deliveries run out while no coordinator is connected is
// given up by the next `run --resume`: its cases are recorded as errors of
// the harness, saying why, and the resumed run ends rather than waiting
// for a group nobody will run. The server's announcement was made while
// the coordinator was away (killed), and its jobs' messages are still in
// the stream's duplicate window, so the resume publishes nothing new.
func TestResumeGivesUpGroupsExhaustedWhileNoCoordinatorRan(t *testing.T) {
	srv := natstest.Start(t)
	prob := writeTree(t, map[string]string{
		"config.yaml":            "name: tiny\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g1: {type: Core}\n      g2: {type: Core}\n",
		"c1/g1/case_1/case.yaml": "expected: {status_code: 0}\n",
		"c1/g1/case_2/case.yaml": "expected: {status_code: 0}\n",
		"c1/g2/case_1/case.yaml": "expected: {status_code: 0}\n",
	})
	sub := writeTree(t, map[string]string{"echo.sh": "echo ok\n"})
	out := filepath.Join(t.TempDir(), "run")
	queue := []string{"--queue", srv.URL(), "--ack-wait", "1s", "--max-deliver", "2", "--progress", "none", "--no-history"}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	nc, js, err := distribute.Connect(ctx, srv.URL(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var advisories atomic.Int32
	sub2, err := nc.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+distribute.WorkStream+".*", func(*nats.Msg) { advisories.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Unsubscribe()

	// The coordinator publishes the two groups' jobs, and is killed
	// before any worker takes them.
	coord := startProc(t, append([]string{"run", prob, "--submission", sub, "--out", out}, queue...)...)
	waitUntil(t, "the coordinator published both jobs", func() bool {
		st, err := js.Stream(ctx, distribute.WorkStream)
		if err != nil {
			return false
		}
		info, err := st.Info(ctx)
		return err == nil && info.State.Msgs >= 2
	})
	if err := coord.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	coord.wait(t, "the killed coordinator")

	// A worker that takes every job and never answers: each runs out of
	// deliveries while no coordinator is connected.
	cons, err := js.Consumer(ctx, distribute.WorkStream, "work-local-"+goruntime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	silent, stopSilent := context.WithCancel(ctx)
	defer stopSilent()
	go func() {
		for silent.Err() == nil {
			fctx, cancel := context.WithTimeout(silent, time.Second)
			if batch, err := cons.Fetch(10, jetstream.FetchContext(fctx)); err == nil {
				for range batch.Messages() {
				}
			}
			cancel()
		}
	}()
	waitUntil(t, "both jobs ran out of deliveries", func() bool { return advisories.Load() >= 2 })
	stopSilent()

	again := startProc(t, append([]string{"run", "--resume", out}, queue...)...)
	if code := again.wait(t, "the resumed coordinator (it waits for groups nobody runs)"); code != exitInconclusive {
		t.Fatalf("run --resume exited %d, want %d (inconclusive: every case an error of the harness):\n%s", code, exitInconclusive, again.out)
	}
	eachCaseOnce(t, out, 3, result.OutcomeError) // errors of the harness
	if !strings.Contains(again.out.String(), "given up: its work message was delivered 2 times") {
		t.Errorf("the resumed coordinator did not say it gave the groups up:\n%s", again.out)
	}
}
