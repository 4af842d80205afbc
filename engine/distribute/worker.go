package distribute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
)

// GroupRunner runs single groups of one problem against one submission
// (run.Groups).
type GroupRunner interface {
	// Run runs one group's epoch; finished are the ids of its cases the
	// run's journal holds already (a resumed run's), see run.Groups.Run.
	Run(ctx context.Context, checkpoint, group string, epoch int, finished []string, emit func(rec *result.CaseRecord, retried bool) error) error
	Close()
}

// CountingRunner is a GroupRunner that also says how a group's plugin
// calls were answered, which the worker reports with the job's done
// message so the run's summary counts them (run.Groups is one).
type CountingRunner interface {
	RunCounted(ctx context.Context, checkpoint, group string, epoch int, finished []string, emit func(rec *result.CaseRecord, retried bool) error) (run.CacheCounts, error)
}

// Prepare makes the runner of a job's problem (loaded from
// a.ProblemDir, with a.PluginDir searched first for plugins bound by
// name, a.Refs resolving those bound by reference, and a.EnvSpec as the
// environment spec) and submission, with the job's settings; an error
// means the worker cannot run the job faithfully (the problem does not
// load here, the runtime is missing) and the job is refused.
type Prepare func(ctx context.Context, job *Job, a *Fetched) (GroupRunner, error)

// Worker pulls jobs for its capabilities and runs them, at most Slots at
// once.
type Worker struct {
	Conn *nats.Conn
	JS   jetstream.JetStream
	// Config is used when no coordinator has set the work consumers up
	// yet.
	Config Config
	// Name identifies the worker in the run's manifest.
	Name         string
	Slots        int
	Capabilities []Capability
	Version      string
	ABI          int
	// CacheDir holds the artifacts fetched (by digest).
	CacheDir string
	Prepare  Prepare
	// Log hears of each job taken and finished, refused or returned, and
	// of each request to set the queue up that the server left
	// unanswered.
	Log io.Writer
	// Ready, if set, is called once the streams and the work consumers
	// are set up, before the first job is asked for.
	Ready func()

	mu       sync.Mutex
	prepared map[string]*preparedRunner
	logMu    sync.Mutex
}

type preparedRunner struct {
	once   sync.Once
	runner GroupRunner
	// problemDir is where the job's problem was unpacked on this worker.
	problemDir string
	err        error
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log == nil {
		return
	}
	w.logMu.Lock()
	defer w.logMu.Unlock()
	fmt.Fprintf(w.Log, format+"\n", args...)
}

// Serve takes jobs until ctx ends, then returns the jobs it holds to the
// queue (not acknowledged: they are redelivered) and closes its runners.
func (w *Worker) Serve(ctx context.Context) error {
	if w.Slots < 1 {
		return fmt.Errorf("worker: --slots must be at least 1, got %d", w.Slots)
	}
	if len(w.Capabilities) == 0 {
		return errors.New("worker: no capability to serve")
	}
	for _, c := range w.Capabilities {
		if err := c.check(); err != nil {
			return err
		}
	}
	// A worker is a service: while the server is slow or away it asks
	// again, saying so, rather than exit.
	setUpLog := func(format string, args ...any) { w.logf("worker "+w.Name+": "+format, args...) }
	store, err := ensureStreams(ctx, w.JS, w.Config, setUpLog)
	if err != nil {
		return err
	}
	var consumers []jetstream.Consumer
	for _, c := range w.Capabilities {
		var cons jetstream.Consumer
		err := setUp(ctx, setUpLog, func() (err error) {
			cons, err = joinWorkConsumer(ctx, w.JS, c, w.Config)
			return err
		})
		if err != nil {
			return fmt.Errorf("work consumer %s: %w", c.consumer(), err)
		}
		consumers = append(consumers, cons)
	}
	if w.Ready != nil {
		w.Ready()
	}
	defer w.closeRunners()
	slots := make(chan struct{}, w.Slots)
	var wg sync.WaitGroup
	defer wg.Wait()
	for next := 0; ctx.Err() == nil; next++ {
		// Backpressure: no more jobs are asked for than slots are free.
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		free := 1
	more:
		for free < w.Slots {
			select {
			case slots <- struct{}{}:
				free++
			default:
				break more
			}
		}
		cons := consumers[next%len(consumers)]
		fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		batch, err := cons.Fetch(free, jetstream.FetchContext(fctx))
		taken := 0
		if err == nil {
			for m := range batch.Messages() {
				taken++
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-slots }()
					w.handle(ctx, store, m)
				}()
			}
			err = batch.Error()
		}
		cancel()
		for ; taken < free; taken++ {
			<-slots
		}
		if err != nil && ctx.Err() == nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			// The server is away (restarting): wait, then ask again.
			w.logf("worker %s: fetch: %v", w.Name, err)
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
		}
	}
	return nil
}

func (w *Worker) closeRunners() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.prepared {
		if p.runner != nil {
			p.runner.Close()
		}
	}
}

// handle runs one work message's job and acknowledges it once every
// record and the done message are stored.
func (w *Worker) handle(ctx context.Context, store jetstream.ObjectStore, m jetstream.Msg) {
	delivery := uint64(1)
	if md, err := m.Metadata(); err == nil {
		delivery = md.NumDelivered
	}
	job, err := decodeJob(m.Data())
	if err != nil {
		w.logf("worker %s: dropped a malformed work message: %v", w.Name, err)
		_ = m.TermWithReason(err.Error())
		return
	}
	// Heartbeat: the job stays this worker's while it runs.
	hbCtx, stopHB := context.WithCancel(ctx)
	defer stopHB()
	go func() {
		t := time.NewTicker(max(w.Config.withDefaults().AckWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-hbCtx.Done():
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	pub := &resultPublisher{js: w.JS, job: job, worker: w.Name, delivery: delivery}
	refuse := func(reason string) {
		w.logf("worker %s: refused group %s of run %s: %s", w.Name, job.Key(), job.RunID, reason)
		if err := pub.send(ctx, &Result{Kind: KindRefused, Message: reason}); err != nil {
			_ = m.Nak()
			return
		}
		_ = m.TermWithReason(reason)
	}
	if job.Version != w.Version || job.ABI != w.ABI {
		refuse(fmt.Sprintf("this worker runs wasmeval %s (plugin ABI %d), the run's coordinator wasmeval %s (plugin ABI %d): run workers of the coordinator's version",
			w.Version, w.ABI, job.Version, job.ABI))
		return
	}
	if err := job.checkArtifacts(); err != nil {
		refuse(err.Error())
		return
	}
	runner, problemDir, err := w.runner(ctx, store, job)
	var de *DigestError
	switch {
	case errors.As(err, &de):
		refuse(err.Error())
		return
	case errors.Is(err, errPrepare):
		refuse(err.Error())
		return
	case err != nil:
		// The artifact could not be fetched (the server is away): another
		// delivery may do better.
		w.logf("worker %s: group %s of run %s returned to the queue: %v", w.Name, job.Key(), job.RunID, err)
		_ = m.NakWithDelay(2 * time.Second)
		return
	}
	if len(job.Finished) > 0 {
		w.logf("worker %s: running group %s of run %s (delivery %d; %d case(s) finished already)", w.Name, job.Key(), job.RunID, delivery, len(job.Finished))
	} else {
		w.logf("worker %s: running group %s of run %s (delivery %d)", w.Name, job.Key(), job.RunID, delivery)
	}
	emit := func(rec *result.CaseRecord, retried bool) error {
		r := &Result{Kind: KindRecord, Record: rec, Retried: retried}
		r.relativeSource(problemDir)
		return pub.send(ctx, r)
	}
	var counts *run.CacheCounts
	var runErr error
	if cr, ok := runner.(CountingRunner); ok {
		var c run.CacheCounts
		c, runErr = cr.RunCounted(ctx, job.Checkpoint, job.Group, job.Epoch, job.Finished, emit)
		counts = &c
	} else {
		runErr = runner.Run(ctx, job.Checkpoint, job.Group, job.Epoch, job.Finished, emit)
	}
	if ctx.Err() != nil {
		// Stopping: the job goes back to the queue for another worker.
		_ = m.Nak()
		return
	}
	if runErr != nil {
		if err := pub.send(ctx, &Result{Kind: KindError, Message: runErr.Error()}); err != nil {
			_ = m.Nak()
			return
		}
	}
	if err := pub.send(ctx, &Result{Kind: KindDone, VerdictCache: counts}); err != nil {
		_ = m.Nak()
		return
	}
	// Only now: every record of the job is stored.
	if err := retry(ctx, func() error { return m.DoubleAck(ctx) }); err != nil {
		w.logf("worker %s: acknowledge group %s of run %s: %v", w.Name, job.Key(), job.RunID, err)
		return
	}
	w.logf("worker %s: finished group %s of run %s", w.Name, job.Key(), job.RunID)
}

var errPrepare = errors.New("cannot run it here")

// runner is the job's prepared runner: the artifacts fetched once and
// the problem loaded once per problem, submission, plugins, environment
// spec and settings.
func (w *Worker) runner(ctx context.Context, store jetstream.ObjectStore, job *Job) (GroupRunner, string, error) {
	what, _ := json.Marshal([]any{job.Problem, job.Submission, job.Needs, job.Settings, job.Plugins, job.EnvSpec, job.Mounts, job.Origin, job.Paths})
	key := string(what)
	w.mu.Lock()
	if w.prepared == nil {
		w.prepared = map[string]*preparedRunner{}
	}
	p := w.prepared[key]
	if p == nil {
		p = &preparedRunner{}
		w.prepared[key] = p
	}
	w.mu.Unlock()
	p.once.Do(func() {
		fetched, err := fetchArtifacts(ctx, store, job, w.CacheDir)
		if err != nil {
			p.err = err
			return
		}
		r, err := w.Prepare(ctx, job, fetched)
		if err != nil {
			p.err = fmt.Errorf("%w: %v", errPrepare, err)
			return
		}
		p.runner, p.problemDir = r, fetched.ProblemDir
	})
	if p.err != nil {
		if !errors.Is(p.err, errPrepare) {
			// A failed fetch is tried again by the next job; so is one
			// that got the wrong bytes, which a coordinator replaces
			// when it next publishes the artifact.
			w.mu.Lock()
			if w.prepared[key] == p {
				delete(w.prepared, key)
			}
			w.mu.Unlock()
		}
		return nil, "", p.err
	}
	return p.runner, p.problemDir, nil
}

// resultPublisher sends one delivery's result messages, each until the
// results stream has stored it; the message id makes a resend after a
// lost acknowledgement a duplicate the stream drops.
type resultPublisher struct {
	js       jetstream.JetStream
	job      *Job
	worker   string
	delivery uint64
	mu       sync.Mutex
	n        int
}

func (p *resultPublisher) send(ctx context.Context, r *Result) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	r.Job, r.Worker, r.Delivery = p.job.Key(), p.worker, p.delivery
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	id := "wasmeval-result:" + p.job.RunID + ":" + p.job.Key() + ":" + strconv.FormatUint(p.delivery, 10) + ":" + strconv.Itoa(p.n)
	return retry(ctx, func() error {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := p.js.Publish(pctx, resultsSubject(p.job.RunID), data, jetstream.WithMsgID(id))
		return err
	})
}
