package distribute

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/run"
)

// Coordinator is a run.Executor that hands a run's group jobs to workers
// through JetStream and delivers the records they send back to the run,
// which alone writes the journal.
type Coordinator struct {
	Conn *nats.Conn
	JS   jetstream.JetStream
	// Config must be the workers' too (see Config).
	Config Config
	RunID  string
	// Version and ABI are this wasmeval's version and plugin ABI
	// version: a worker whose differ refuses the jobs.
	Version string
	ABI     int
	// ProblemDir and Submission are published as artifacts.
	ProblemDir, Submission string
	// Plugins are the plugins the problem binds from outside ProblemDir
	// (PluginsOutside), published by their sha256.
	Plugins []PluginFile
	// EnvSpec is the environment spec file the run uses ("" for none or
	// the problem's own): named by its path when it lies in ProblemDir,
	// else published by its sha256.
	EnvSpec string
	// Mounts are the sources of the environment spec's mounts, published
	// by their sha256 (a worker mounts its copy).
	Mounts []MountFile
	// Paths are what the problem named outside ProblemDir, under a
	// --mount-root (PathsOutside), published by their sha256: a worker
	// loads the problem with those paths leading to its copies.
	Paths []PathFile
	// Needs is what the run's groups need of a worker.
	Needs    Capability
	Settings Settings
	// Log hears of refused jobs, of groups given up and of objects of
	// the artifact store replaced (one line each); nil: nothing is said.
	Log io.Writer

	mu      sync.Mutex
	workers map[string][]string
}

// MountFile is the source of the environment spec's mount Index: a
// directory or a file at Path.
type MountFile struct {
	Index int
	Path  string
	Dir   bool
}

// Workers lists, by job (checkpoint/group/epoch), the workers that sent
// its records, in the order they first did.
func (c *Coordinator) Workers() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]string, len(c.workers))
	for k, v := range c.workers {
		out[k] = slices.Clone(v)
	}
	return out
}

func (c *Coordinator) ranOn(job, worker string) {
	if worker == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.workers == nil {
		c.workers = map[string][]string{}
	}
	if !slices.Contains(c.workers[job], worker) {
		c.workers[job] = append(c.workers[job], worker)
	}
}

// replaced says (when rep is not nil) that an object in the store was
// not the artifact its name says and was replaced: someone could write
// the store, or an upload was cut short, which the run's log keeps.
func (c *Coordinator) replaced(rep *Replaced) {
	if rep != nil {
		c.logf("warning: %s", rep)
	}
}

func (c *Coordinator) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// Execute publishes the artifacts and one work message per job, then
// delivers results until every job is done or ctx ends. Interrupted, it
// leaves the jobs queued and the records in the results stream: a
// resumed run reads the run's results from their start again (what the
// journal holds already is dropped), so nothing sent meanwhile is lost.
func (c *Coordinator) Execute(ctx context.Context, jobs []*run.GroupJob, sink run.Sink) error {
	if err := c.Needs.check(); err != nil {
		return err
	}
	if !validToken(c.RunID) {
		return fmt.Errorf("run id %q cannot name a subject", c.RunID)
	}
	store, err := ensureStreams(ctx, c.JS, c.Config, c.logf)
	if err != nil {
		return err
	}
	if err := setUp(ctx, c.logf, func() error {
		_, err := ensureWorkConsumer(ctx, c.JS, c.Needs, c.Config)
		return err
	}); err != nil {
		return err
	}
	problemDigest, rep, err := Publish(ctx, store, c.ProblemDir)
	if err != nil {
		return fmt.Errorf("publish the problem: %w", err)
	}
	c.replaced(rep)
	subDigest, rep, err := Publish(ctx, store, c.Submission)
	if err != nil {
		return fmt.Errorf("publish the submission: %w", err)
	}
	c.replaced(rep)
	plugins, env, err := c.publishExtras(ctx, store)
	if err != nil {
		return err
	}
	mounts, err := c.publishMounts(ctx, store)
	if err != nil {
		return err
	}
	paths, err := c.publishPaths(ctx, store)
	if err != nil {
		return err
	}
	var origin string
	if len(paths) > 0 {
		abs, err := filepath.Abs(c.ProblemDir)
		if err != nil {
			return err
		}
		origin = filepath.ToSlash(abs)
	}

	pending := make(map[string]*run.GroupJob, len(jobs))
	for _, j := range jobs {
		pending[jobKey(j.Checkpoint, j.Group, j.Epoch)] = j
	}
	// Results are read in order from the run's first one: an ordered
	// consumer is recreated where it stopped when the server restarts.
	cons, err := c.JS.OrderedConsumer(ctx, ResultsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultsSubject(c.RunID)}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return fmt.Errorf("results of run %s: %w", c.RunID, err)
	}
	msgs, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("results of run %s: %w", c.RunID, err)
	}
	defer msgs.Stop()
	results := make(chan *Result)
	readErr := make(chan error, 1)
	go func() {
		for {
			m, err := msgs.Next()
			if err != nil {
				readErr <- err
				return
			}
			r, err := decodeResult(m.Data())
			if err != nil {
				c.logf("warning: a result message of run %s is not one: %v", c.RunID, err)
				continue
			}
			r.absoluteSource(c.ProblemDir)
			select {
			case results <- r:
			case <-ctx.Done():
				return
			}
		}
	}()

	// Published: the sequence each job's message has in the work stream
	// (a duplicate's is the message published before, by this run's
	// earlier coordinator).
	published := make(map[string]uint64, len(jobs))
	for _, j := range jobs {
		job := &Job{RunID: c.RunID, Checkpoint: j.Checkpoint, Group: j.Group, Epoch: j.Epoch, Version: c.Version, ABI: c.ABI,
			Problem: problemDigest, Submission: subDigest, Needs: c.Needs, Settings: c.Settings, Plugins: plugins, EnvSpec: env,
			Mounts: mounts, Origin: origin, Paths: paths, Finished: finishedFits(j.Finished)}
		seq, err := c.publishJob(ctx, job)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		published[job.Key()] = seq
	}

	// A job whose deliveries ran out is announced by the server, and the
	// announcement kept in the advisories stream: read from its start, a
	// coordinator learns of jobs given up while none was connected.
	exhausted := make(chan exhaustedJob, 16)
	stopAdvisories, err := c.readAdvisories(ctx, exhausted)
	if err != nil {
		return err
	}
	defer stopAdvisories()

	for len(pending) > 0 {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("results of run %s: %w", c.RunID, err)
		case e := <-exhausted:
			j := pending[e.key]
			if j == nil || published[e.key] != e.seq {
				// Not pending, or an older message of the job (one
				// published again once the duplicate window had passed).
				continue
			}
			reason := fmt.Sprintf("its work message was delivered %d times and no worker finished it (workers lost, or the group outlasts their heartbeats)", e.deliveries)
			c.logf("group %s of run %s given up: %s", e.key, c.RunID, reason)
			if err := sink.Abandon(ctx, j, reason); err != nil {
				return nil // the journal failed: the run stops and says why
			}
			sink.Done(j)
			delete(pending, e.key)
		case r := <-results:
			j := pending[r.Job]
			if j == nil {
				continue // done already, or not a job of this run's selection
			}
			switch r.Kind {
			case KindRecord:
				if r.Record == nil {
					continue
				}
				c.ranOn(r.Job, r.Worker)
				if err := sink.Record(j, r.Record, r.Retried); err != nil {
					return nil // the journal failed: the run stops and says why
				}
			case KindError:
				sink.GroupError(j, r.Message)
			case KindDone:
				c.ranOn(r.Job, r.Worker)
				if r.VerdictCache != nil {
					sink.CacheCounts(j, *r.VerdictCache)
				}
				sink.Done(j)
				delete(pending, r.Job)
			case KindRefused:
				c.logf("worker %s refused group %s of run %s: %s", r.Worker, r.Job, c.RunID, r.Message)
				if err := sink.Abandon(ctx, j, "worker "+r.Worker+" refused it: "+r.Message); err != nil {
					return nil
				}
				sink.Done(j)
				delete(pending, r.Job)
			}
		}
	}
	// The run's results stay in the stream until they expire (MaxAge):
	// a later --resume of this run publishes jobs the stream has seen
	// (dropped as duplicates), and learns they are done from their done
	// messages there.
	return nil
}

// publishExtras publishes the plugins from outside the problem and the
// environment spec, and says how jobs name them.
func (c *Coordinator) publishExtras(ctx context.Context, store jetstream.ObjectStore) ([]PluginArtifact, *EnvSpecArtifact, error) {
	var plugins []PluginArtifact
	for _, p := range c.Plugins {
		digest, rep, err := PublishFile(ctx, store, p.Path, p.SHA256)
		if err != nil {
			return nil, nil, fmt.Errorf("publish plugin %s: %w", p.Name+p.Ref+p.File, err)
		}
		c.replaced(rep)
		plugins = append(plugins, PluginArtifact{Name: p.Name, Ref: p.Ref, File: p.File, SHA256: digest})
	}
	if c.EnvSpec == "" {
		return plugins, nil, nil
	}
	if insideDir(c.ProblemDir, c.EnvSpec) {
		pd, _ := filepath.Abs(c.ProblemDir)
		file, _ := filepath.Abs(c.EnvSpec)
		rel, err := filepath.Rel(pd, file)
		if err != nil {
			return nil, nil, fmt.Errorf("environment spec %s: %w", c.EnvSpec, err)
		}
		return plugins, &EnvSpecArtifact{Path: filepath.ToSlash(rel)}, nil
	}
	digest, rep, err := PublishFile(ctx, store, c.EnvSpec, "")
	if err != nil {
		return nil, nil, fmt.Errorf("publish the environment spec: %w", err)
	}
	c.replaced(rep)
	return plugins, &EnvSpecArtifact{Name: filepath.Base(c.EnvSpec), SHA256: digest}, nil
}

// publishMounts publishes the sources of the environment spec's mounts
// and says how jobs name them.
func (c *Coordinator) publishMounts(ctx context.Context, store jetstream.ObjectStore) ([]MountArtifact, error) {
	var out []MountArtifact
	for _, m := range c.Mounts {
		digest, err := c.publishEntry(ctx, store, m.Path, m.Dir)
		if err != nil {
			return nil, fmt.Errorf("publish the environment spec's mounts[%d].source: %w", m.Index, err)
		}
		out = append(out, MountArtifact{Index: m.Index, Dir: m.Dir, SHA256: digest})
	}
	return out, nil
}

// publishEntry publishes a directory (as a tar) or a file, and reports an
// object it replaced.
func (c *Coordinator) publishEntry(ctx context.Context, store jetstream.ObjectStore, path string, dir bool) (string, error) {
	publish := func() (string, *Replaced, error) { return PublishFile(ctx, store, path, "") }
	if dir {
		publish = func() (string, *Replaced, error) { return Publish(ctx, store, path) }
	}
	digest, rep, err := publish()
	if err != nil {
		return "", err
	}
	c.replaced(rep)
	return digest, nil
}

// publishJob publishes job until the server stores it (or says it has it
// already), through a server restart, and returns its sequence in the
// work stream (for a duplicate, the message stored before).
func (c *Coordinator) publishJob(ctx context.Context, job *Job) (uint64, error) {
	data, err := json.Marshal(job)
	if err != nil {
		return 0, err
	}
	var seq uint64
	err = retry(ctx, func() error {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		ack, err := c.JS.Publish(pctx, job.Needs.subject(), data, jetstream.WithMsgID(job.msgID()))
		if err == nil {
			seq = ack.Sequence
		}
		return err
	})
	return seq, err
}

type exhaustedJob struct {
	key        string
	seq        uint64
	deliveries uint64
}

// readAdvisories delivers the jobs of this run the advisories stream says
// were given up, from its first advisory on, until ctx ends or the
// returned func is called.
func (c *Coordinator) readAdvisories(ctx context.Context, out chan<- exhaustedJob) (func(), error) {
	cons, err := c.JS.OrderedConsumer(ctx, AdvisoryStream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, fmt.Errorf("advisories stream %s: %w", AdvisoryStream, err)
	}
	msgs, err := cons.Messages()
	if err != nil {
		return nil, fmt.Errorf("advisories stream %s: %w", AdvisoryStream, err)
	}
	// Stopped, the reader must not wait on out, which nobody reads then.
	actx, cancel := context.WithCancel(ctx)
	go func() {
		for {
			m, err := msgs.Next()
			if err != nil {
				return // stopped; a server away is reconnected by the consumer
			}
			c.onMaxDeliveries(actx, m.Data(), out)
		}
	}()
	return func() { cancel(); msgs.Stop() }, nil
}

// onMaxDeliveries reads the job an advisory names; one of this run is
// given up, and its message removed from the work stream.
func (c *Coordinator) onMaxDeliveries(ctx context.Context, data []byte, out chan<- exhaustedJob) {
	var adv struct {
		Stream     string `json:"stream"`
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if json.Unmarshal(data, &adv) != nil || adv.Stream != WorkStream {
		return
	}
	st, err := c.JS.Stream(ctx, WorkStream)
	if err != nil {
		return
	}
	raw, err := st.GetMsg(ctx, adv.StreamSeq)
	if err != nil {
		return // handled and removed already, or never this run's
	}
	job, err := decodeJob(raw.Data)
	if err != nil || job.RunID != c.RunID {
		return
	}
	_ = st.DeleteMsg(ctx, adv.StreamSeq)
	select {
	case out <- exhaustedJob{key: job.Key(), seq: adv.StreamSeq, deliveries: adv.Deliveries}:
	case <-ctx.Done():
	}
}
