package main

import (
	"context"
	"encoding/json"
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
)

// recordsSent counts the case records workers sent to the server at url,
// over every run it served.
func recordsSent(t *testing.T, url string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nc, js, err := distribute.Connect(ctx, url, "count")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cons, err := js.OrderedConsumer(ctx, distribute.ResultsStream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		batch, err := cons.FetchNoWait(100)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			var r distribute.Result
			if json.Unmarshal(m.Data(), &r) == nil && r.Kind == distribute.KindRecord {
				n++
			}
		}
		if got == 0 {
			return n
		}
	}
}

// A resumed run whose groups are handed out anew (the queue's server is
// another, so its jobs and results are not there) tells the worker which
// cases its journal holds: the worker skips them in isolated groups and
// runs them again without a record where the group shares its workspace,
// as a resume on one machine does, so no finished case is redone and
// sent again; every case is still recorded once.
func TestResumedGroupsSkipFinishedCasesOnWorkers(t *testing.T) {
	first := natstest.Start(t)
	startQueueWorker(t, first.URL(), "w1")
	out := filepath.Join(t.TempDir(), "run")
	if code, recs := runRecords(t, out, "run", "../../examples/inventory", "--submission", "../../examples/inventory/submissions/reference", "--queue", first.URL()); code != 0 || len(recs) != 20 {
		t.Fatalf("first run exited %d with %d cases, want 0 and 20", code, len(recs))
	}
	first.Stop()
	// Keep the journal's first 12 records: some groups finished, some
	// partly, some not begun.
	const kept = 12
	jpath := filepath.Join(out, journal.FileName)
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) < kept+1 {
		t.Fatalf("journal has %d lines", len(lines))
	}
	if err := os.WriteFile(jpath, []byte(strings.Join(lines[:kept], "")), 0o644); err != nil {
		t.Fatal(err)
	}

	second := natstest.Start(t)
	w := startQueueWorker(t, second.URL(), "w2")
	again := startProc(t, "run", "--resume", out, "--queue", second.URL(), "--progress", "none", "--no-history")
	if code := again.wait(t, "the resumed run"); code != 0 {
		t.Fatalf("run --resume exited %d:\n%s\nworker:\n%s", code, again.out, w.out)
	}
	eachCaseOnce(t, out, 20, result.OutcomePassed)
	if sent := recordsSent(t, second.URL()); sent != 20-kept {
		t.Errorf("workers sent %d records for the resumed run, want the %d cases not finished:\n%s", sent, 20-kept, w.out)
	}
	if !regexp.MustCompile(`\(delivery 1; \d+ case\(s\) finished already\)`).MatchString(w.out.String()) {
		t.Errorf("no group was handed out with its finished cases:\n%s", w.out)
	}
}
