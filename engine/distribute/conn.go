package distribute

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config is how the work queue behaves. Coordinator and workers must
// agree on it; the coordinator sets the work consumers up with it.
type Config struct {
	// AckWait is how long a job may go without a sign of life (a
	// worker heartbeats every third of it) before it is redelivered.
	AckWait time.Duration
	// MaxDeliver is how many times a job is delivered before its cases
	// are recorded as errors of the harness.
	MaxDeliver int
	// MaxAckPending bounds the jobs in flight over all workers of one
	// capability (their slots together).
	MaxAckPending int
	// Duplicates is how long a job's message id is remembered, so a
	// coordinator that restarts within it publishes nothing twice.
	Duplicates time.Duration
}

// DefaultConfig is the work queue's default behaviour.
var DefaultConfig = Config{AckWait: 30 * time.Second, MaxDeliver: 3, MaxAckPending: 1024, Duplicates: time.Hour}

func (c Config) withDefaults() Config {
	d := DefaultConfig
	if c.AckWait > 0 {
		d.AckWait = c.AckWait
	}
	if c.MaxDeliver > 0 {
		d.MaxDeliver = c.MaxDeliver
	}
	if c.MaxAckPending > 0 {
		d.MaxAckPending = c.MaxAckPending
	}
	if c.Duplicates > 0 {
		d.Duplicates = c.Duplicates
	}
	return d
}

// Connect connects to the NATS server at addr (nats://host:port, with
// credentials in the URL when the server asks for them) and opens
// JetStream. A server that cannot be reached, that refuses the
// credentials or that has no JetStream is one line saying so. Once
// connected the connection reconnects for as long as it lives: a server
// that restarts does not end a run or a worker.
func Connect(ctx context.Context, addr, name string) (*nats.Conn, jetstream.JetStream, error) {
	u, err := url.Parse(addr)
	if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
		return nil, nil, fmt.Errorf("--queue %q: want nats://HOST:PORT", addr)
	}
	shown := u.Redacted()
	nc, err := nats.Connect(addr, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(500*time.Millisecond),
		nats.Timeout(5*time.Second), nats.RetryOnFailedConnect(false))
	switch {
	case errors.Is(err, nats.ErrAuthorization) || (err != nil && strings.Contains(strings.ToLower(err.Error()), "authorization")):
		return nil, nil, fmt.Errorf("NATS server %s refused the credentials (authorization violation): give user:password@ in the --queue URL", shown)
	case errors.Is(err, nats.ErrNoServers) || (err != nil && strings.Contains(err.Error(), "connection refused")):
		return nil, nil, fmt.Errorf("cannot reach the NATS server at %s: %v", shown, err)
	case err != nil:
		return nil, nil, fmt.Errorf("NATS server %s: %w", shown, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("NATS server %s: %w", shown, err)
	}
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(actx); err != nil {
		nc.Close()
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return nil, nil, fmt.Errorf("NATS server %s has no JetStream: start it with -js", shown)
		}
		return nil, nil, fmt.Errorf("NATS server %s: JetStream: %w", shown, err)
	}
	return nc, js, nil
}

// ensureStreams creates (or updates) the work stream, the results stream,
// the advisories stream and the artifact store. Both are kept on disk: a server that restarts
// keeps the jobs and the records not yet journaled.
func ensureStreams(ctx context.Context, js jetstream.JetStream, cfg Config) (jetstream.ObjectStore, error) {
	cfg = cfg.withDefaults()
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: WorkStream, Subjects: []string{workPrefix + ".>"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: cfg.Duplicates,
	}); err != nil {
		return nil, fmt.Errorf("work stream %s: %w", WorkStream, err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: ResultsStream, Subjects: []string{resultsPrefix + ".>"}, Retention: jetstream.LimitsPolicy,
		Storage: jetstream.FileStorage, Duplicates: cfg.Duplicates, MaxAge: 7 * 24 * time.Hour,
	}); err != nil {
		return nil, fmt.Errorf("results stream %s: %w", ResultsStream, err)
	}
	// Created before any job is: an advisory made while no stream
	// captured it is lost.
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: AdvisoryStream, Subjects: []string{maxDeliveriesSubject}, Retention: jetstream.LimitsPolicy,
		Storage: jetstream.FileStorage, MaxAge: 7 * 24 * time.Hour,
	}); err != nil {
		return nil, fmt.Errorf("advisories stream %s: %w", AdvisoryStream, err)
	}
	store, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: ArtifactBucket, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("artifact store %s: %w", ArtifactBucket, err)
	}
	return store, nil
}

// ensureWorkConsumer creates (or updates) the durable pull consumer of
// the jobs that need c.
func ensureWorkConsumer(ctx context.Context, js jetstream.JetStream, c Capability, cfg Config) (jetstream.Consumer, error) {
	cfg = cfg.withDefaults()
	cons, err := js.CreateOrUpdateConsumer(ctx, WorkStream, jetstream.ConsumerConfig{
		Durable: c.consumer(), FilterSubject: c.subject(), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: cfg.AckWait, MaxDeliver: cfg.MaxDeliver, MaxAckPending: cfg.MaxAckPending,
	})
	if err != nil {
		return nil, fmt.Errorf("work consumer %s: %w", c.consumer(), err)
	}
	return cons, nil
}
