package docker

import (
	"context"
	"sync"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// oomGrace is how long a killed case waits for the engine's OOM event,
// which can trail the process's exit by a little.
const oomGrace = time.Second

// oomWatch counts the engine's OOM events for one container. A case
// killed by SIGKILL while the count rose was killed by the memory limit,
// not by a signal it sent itself or got from elsewhere.
type oomWatch struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	n      int
	bump   chan struct{} // closed and replaced on every event
}

func watchOOM(cli *client.Client, id string) *oomWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &oomWatch{cancel: cancel, bump: make(chan struct{})}
	msgs, errs := cli.Events(ctx, events.ListOptions{Filters: filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("container", id),
		filters.Arg("event", string(events.ActionOOM)),
	)})
	go func() {
		for {
			select {
			case <-msgs:
				w.mu.Lock()
				w.n++
				close(w.bump)
				w.bump = make(chan struct{})
				w.mu.Unlock()
			case <-errs:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return w
}

func (w *oomWatch) count() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// since reports whether an OOM event came after count() returned before,
// waiting up to oomGrace for one that is still on its way.
func (w *oomWatch) since(before int) bool {
	if w == nil {
		return false
	}
	deadline := time.After(oomGrace)
	for {
		w.mu.Lock()
		n, bump := w.n, w.bump
		w.mu.Unlock()
		if n > before {
			return true
		}
		select {
		case <-bump:
		case <-deadline:
			return false
		}
	}
}

func (w *oomWatch) close() {
	if w != nil {
		w.cancel()
	}
}
