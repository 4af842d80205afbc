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
// not by a signal it sent itself or got from elsewhere. It also counts the
// container's kill events (the daemon was asked to signal it: docker
// kill, stop, restart, rm -f) and die events (it stopped), which say who
// stopped a container under a case.
type oomWatch struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	n      int
	ev     eventCount
	lost   bool          // the stream ended: the counts say nothing more
	bump   chan struct{} // closed and replaced on every event
}

// eventCount is how many events of each kind the container had.
type eventCount struct {
	kills, dies int
	signal      string // of the last kill event
}

func watchOOM(cli *client.Client, id string) *oomWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &oomWatch{cancel: cancel, bump: make(chan struct{})}
	msgs, errs := cli.Events(ctx, events.ListOptions{Filters: filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("container", id),
		filters.Arg("event", string(events.ActionOOM)),
		filters.Arg("event", string(events.ActionKill)),
		filters.Arg("event", string(events.ActionDie)),
	)})
	go func() {
		for {
			select {
			case m := <-msgs:
				w.mu.Lock()
				switch m.Action {
				case events.ActionOOM:
					w.n++
				case events.ActionKill:
					w.ev.kills++
					w.ev.signal = m.Actor.Attributes["signal"]
				case events.ActionDie:
					w.ev.dies++
				}
				close(w.bump)
				w.bump = make(chan struct{})
				w.mu.Unlock()
			case <-errs:
				w.mu.Lock()
				w.lost = true
				w.mu.Unlock()
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return w
}

// events is the count of kill and die events so far.
func (w *oomWatch) events() eventCount {
	if w == nil {
		return eventCount{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ev
}

// stopCause says why the container stopped after before was taken, once
// its die event is in (events arrive in order, so any kill event before
// it is too), waiting up to d for it: through the Docker API (a kill
// event came), at the memory limit (an OOM event came), or neither. It
// is "" when the events cannot tell (the stream ended, or the die event
// did not come).
func (w *oomWatch) stopCause(before eventCount, oomBefore int, d time.Duration) string {
	if w == nil {
		return ""
	}
	deadline := time.After(d)
	for {
		w.mu.Lock()
		ev, n, lost, bump := w.ev, w.n, w.lost, w.bump
		w.mu.Unlock()
		if ev.dies > before.dies {
			switch {
			case ev.kills > before.kills:
				return "through the Docker API with signal " + ev.signal + " (docker kill, stop, restart or rm)"
			case n > oomBefore:
				return "at its memory limit"
			}
			return causeInside
		}
		if lost {
			return ""
		}
		select {
		case <-bump:
		case <-deadline:
			return ""
		}
	}
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

// causeInside is the stop cause of a container that neither the Docker
// API nor its memory limit stopped: one of its own processes ended its
// main process (or something on the host did, which the daemon cannot
// tell apart). Exec counts it as the case's doing (see RATIONALE.md).
const causeInside = "not through the Docker API: a process in the container or on the host did it"
