package distribute

import (
	"context"
	"testing"
)

// A worker joining the work consumer never changes one that exists: the
// coordinator's unacknowledged limit stays, whichever of the two comes
// first. A worker that finds none creates it.
func TestWorkerKeepsTheCoordinatorsConsumer(t *testing.T) {
	e := embedded(t)
	ctx := context.Background()
	_, js := connect(ctx, t, e.URL(), "test")
	if _, err := ensureStreams(ctx, js, DefaultConfig, nil); err != nil {
		t.Fatal(err)
	}
	limit := func(c Capability) int {
		t.Helper()
		cons, err := js.Consumer(ctx, WorkStream, c.consumer())
		if err != nil {
			t.Fatal(err)
		}
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.Config.MaxAckPending
	}

	coordinatorFirst := HostCapability("local")
	if _, err := ensureWorkConsumer(ctx, js, coordinatorFirst, Config{MaxAckPending: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := joinWorkConsumer(ctx, js, coordinatorFirst, DefaultConfig); err != nil {
		t.Fatal(err)
	}
	// A worker that looked a moment before the coordinator created it,
	// found none, and creates it now.
	if _, err := createWorkConsumer(ctx, js, coordinatorFirst, DefaultConfig); err != nil {
		t.Fatal(err)
	}
	if got := limit(coordinatorFirst); got != 4 {
		t.Fatalf("after workers joined: MaxAckPending %d, want the coordinator's 4", got)
	}

	workerFirst := HostCapability("docker")
	if _, err := joinWorkConsumer(ctx, js, workerFirst, DefaultConfig); err != nil {
		t.Fatal(err)
	}
	if got := limit(workerFirst); got != DefaultConfig.MaxAckPending {
		t.Fatalf("created by a worker: MaxAckPending %d, want the default %d", got, DefaultConfig.MaxAckPending)
	}
	if _, err := ensureWorkConsumer(ctx, js, workerFirst, Config{MaxAckPending: 6}); err != nil {
		t.Fatal(err)
	}
	if got := limit(workerFirst); got != 6 {
		t.Fatalf("then configured by the coordinator: MaxAckPending %d, want 6", got)
	}
}
