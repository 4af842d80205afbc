package distribute

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
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

// Option adds to how Connect connects.
type Option func(*connectOptions)

type connectOptions struct{ creds string }

// WithCreds authenticates with a NATS credentials file (a user JWT and
// its NKey seed, as `nsc` writes them). An empty path adds nothing.
func WithCreds(path string) Option { return func(o *connectOptions) { o.creds = path } }

// Connect connects to the NATS server at addr and opens JetStream. addr
// is one server (nats://host:port) or a comma-separated list of the
// servers of one cluster, tried until one answers, as nats.go's Connect
// reads it. Credentials go in the URL (user:password@, or a token alone,
// TOKEN@) or in a credentials file (WithCreds). A server that cannot be
// reached, that refuses the credentials or that has no JetStream, and a
// credentials file that cannot be read, are one line saying so. Once
// connected the connection reconnects for as long as it lives, to any
// server of the list or of the cluster: a server that restarts does not
// end a run or a worker.
func Connect(ctx context.Context, addr, name string, opts ...Option) (*nats.Conn, jetstream.JetStream, error) {
	var o connectOptions
	for _, opt := range opts {
		opt(&o)
	}
	servers, shown, err := parseServers(addr)
	if err != nil {
		return nil, nil, err
	}
	natsOpts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(500 * time.Millisecond),
		nats.Timeout(5 * time.Second), nats.RetryOnFailedConnect(false)}
	if o.creds != "" {
		// nats.go reads the file only when it connects, and says little
		// about which file it was; read it here first to say so.
		if _, err := os.ReadFile(o.creds); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, nil, fmt.Errorf("--queue-creds %s: cannot read the credentials file: %v", o.creds, err)
		}
		natsOpts = append(natsOpts, nats.UserCredentials(o.creds))
	}
	nc, err := nats.Connect(strings.Join(servers, ","), natsOpts...)
	switch {
	case errors.Is(err, nats.ErrAuthorization) || (err != nil && strings.Contains(strings.ToLower(err.Error()), "authorization")):
		return nil, nil, fmt.Errorf("NATS server %s refused the credentials (authorization violation): give user:password@ or TOKEN@ in the --queue URL, or --queue-creds FILE", shown)
	case err != nil && o.creds != "" && (strings.Contains(err.Error(), "jwt") || strings.Contains(err.Error(), "nkey") || strings.Contains(err.Error(), "seed")):
		return nil, nil, fmt.Errorf("--queue-creds %s: not a usable NATS credentials file: %v", o.creds, err)
	case errors.Is(err, nats.ErrNoServers) || (err != nil && strings.Contains(err.Error(), "connection refused")):
		if len(servers) > 1 {
			return nil, nil, fmt.Errorf("cannot reach any of the NATS servers %s: %v", shown, err)
		}
		return nil, nil, fmt.Errorf("cannot reach the NATS server at %s: %v", shown, err)
	case err != nil:
		return nil, nil, fmt.Errorf("NATS server %s: %w", shown, err)
	}
	if len(servers) > 1 {
		// Errors from here on name the server that answered.
		if cu, perr := url.Parse(nc.ConnectedUrl()); perr == nil {
			shown = redact(cu)
		}
	}
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(APITimeout))
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("NATS server %s: %w", shown, err)
	}
	if _, err := js.AccountInfo(ctx); err != nil {
		nc.Close()
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return nil, nil, fmt.Errorf("NATS server %s has no JetStream: start it with -js", shown)
		}
		return nil, nil, fmt.Errorf("NATS server %s: JetStream: %w", shown, err)
	}
	return nc, js, nil
}

// parseServers checks each server of addr's comma-separated list and
// returns them, and the list as shown in messages: with passwords and
// tokens hidden.
func parseServers(addr string) (servers []string, shown string, err error) {
	var show []string
	for _, s := range strings.Split(addr, ",") {
		s = strings.TrimSpace(s)
		u, perr := url.Parse(s)
		if perr != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			what := s
			if perr == nil {
				what = redact(u)
			} else if strings.Contains(s, "@") {
				what = "(a URL with credentials)"
			}
			if strings.Contains(addr, ",") {
				return nil, "", fmt.Errorf("--queue: server %q: want nats://HOST:PORT (servers separated by commas)", what)
			}
			return nil, "", fmt.Errorf("--queue %q: want nats://HOST:PORT", what)
		}
		servers = append(servers, s)
		show = append(show, redact(u))
	}
	return servers, strings.Join(show, ","), nil
}

// Redacted is addr, a --queue list of servers, as shown in messages and
// logs: with passwords and tokens hidden.
func Redacted(addr string) string {
	var show []string
	for _, s := range strings.Split(addr, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil {
			show = append(show, "(not a URL)")
			continue
		}
		show = append(show, redact(u))
	}
	return strings.Join(show, ",")
}

// redact is u without its password or token. url.URL.Redacted hides a
// password but shows a token, which is the user part alone.
func redact(u *url.URL) string {
	if u.User == nil {
		return u.String()
	}
	c := *u
	if _, ok := u.User.Password(); ok {
		c.User = url.UserPassword(u.User.Username(), "xxxxx")
	} else {
		c.User = url.User("xxxxx")
	}
	return c.String()
}

// APITimeout is how long a JetStream request given no deadline of its
// own waits for the server's answer. The client's default, 5 s, is
// shorter than a loaded server can take to create a file-backed stream
// (it writes and syncs the stream's files first): workers that started
// together on a busy machine each gave up on their first request and
// exited. A request that is asked again (setUp, retry) waits this long
// each time.
const APITimeout = 30 * time.Second

// setUp runs step, one request that sets the streams or consumers up,
// again while the server is only slow or away (see transient), until
// ctx ends; logf hears of each attempt given up. Any other error is
// returned at once: a stream set up another way, or a permission
// refused, does not change by asking again.
func setUp(ctx context.Context, logf func(format string, args ...any), step func() error) error {
	return askAgain(ctx, asking{first: 500 * time.Millisecond, most: 5 * time.Second, again: transient, logf: logf}, step)
}

// retry calls f until it succeeds or ctx ends, waiting a little longer
// each time (at most 2 s): a server restarting is waited for.
func retry(ctx context.Context, f func() error) error {
	return askAgain(ctx, asking{first: 100 * time.Millisecond, most: 2 * time.Second}, f)
}

// asking is how askAgain asks: the first wait, doubled after each
// attempt up to most; which errors are worth asking again for (nil: any
// but ctx's own cancellation); and logf, which hears of each attempt
// given up (nil: none).
type asking struct {
	first, most time.Duration
	again       func(error) bool
	logf        func(format string, args ...any)
}

// askAgain calls f until it succeeds, ctx ends, or it fails with an
// error a.again says will not change.
func askAgain(ctx context.Context, a asking, f func() error) error {
	wait := a.first
	for {
		err := f()
		if err == nil || ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return err
		}
		if a.again != nil && (ctx.Err() != nil || !a.again(err)) {
			return err
		}
		if a.logf != nil {
			a.logf("the NATS server did not answer (%v); asking again", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(wait*2, a.most)
	}
}

// transient reports whether err says the server did not answer in
// time, or that its JetStream is not there at the moment (restarting,
// or electing a leader): what a later attempt may not meet.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrDisconnected):
		return true
	case errors.As(err, &apiErr):
		return apiErr.Code == 503 || apiErr.Code == 408
	}
	return false
}

// ensureStreams creates (or updates) the work stream, the results stream,
// the advisories stream and the artifact store, each asked again while
// the server is slow or away (setUp). All are kept on disk: a server that
// restarts keeps the jobs and the records not yet journaled.
func ensureStreams(ctx context.Context, js jetstream.JetStream, cfg Config, logf func(string, ...any)) (jetstream.ObjectStore, error) {
	cfg = cfg.withDefaults()
	streams := []struct {
		what string
		cfg  jetstream.StreamConfig
	}{
		{"work stream", jetstream.StreamConfig{
			Name: WorkStream, Subjects: []string{workPrefix + ".>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: cfg.Duplicates,
		}},
		{"results stream", jetstream.StreamConfig{
			Name: ResultsStream, Subjects: []string{resultsPrefix + ".>"}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Duplicates: cfg.Duplicates, MaxAge: 7 * 24 * time.Hour,
		}},
		// Created before any job is: an advisory made while no stream
		// captured it is lost.
		{"advisories stream", jetstream.StreamConfig{
			Name: AdvisoryStream, Subjects: []string{maxDeliveriesSubject}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, MaxAge: 7 * 24 * time.Hour,
		}},
	}
	for _, st := range streams {
		err := setUp(ctx, logf, func() error {
			_, err := js.CreateOrUpdateStream(ctx, st.cfg)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", st.what, st.cfg.Name, err)
		}
	}
	var store jetstream.ObjectStore
	err := setUp(ctx, logf, func() (err error) {
		store, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: ArtifactBucket, Storage: jetstream.FileStorage})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("artifact store %s: %w", ArtifactBucket, err)
	}
	return store, nil
}

// joinWorkConsumer is a worker's way to the work consumer of c: the one
// there is, or, when there is none yet, one created with cfg. A worker
// never changes a consumer that exists: its coordinator configures it
// (ensureWorkConsumer), and a worker that found none a moment before
// its coordinator created one would otherwise put the default
// unacknowledged limit back over the coordinator's.
func joinWorkConsumer(ctx context.Context, js jetstream.JetStream, c Capability, cfg Config) (jetstream.Consumer, error) {
	cons, err := js.Consumer(ctx, WorkStream, c.consumer())
	if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return cons, err
	}
	return createWorkConsumer(ctx, js, c, cfg)
}

// createWorkConsumer creates the work consumer of c with cfg, for a
// worker that found none; one created meanwhile is taken as it is.
func createWorkConsumer(ctx context.Context, js jetstream.JetStream, c Capability, cfg Config) (jetstream.Consumer, error) {
	cfg = cfg.withDefaults()
	cons, err := js.CreateConsumer(ctx, WorkStream, jetstream.ConsumerConfig{
		Durable: c.consumer(), FilterSubject: c.subject(), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: cfg.AckWait, MaxDeliver: cfg.MaxDeliver, MaxAckPending: cfg.MaxAckPending,
	})
	if errors.Is(err, jetstream.ErrConsumerExists) {
		return js.Consumer(ctx, WorkStream, c.consumer()) // created meanwhile
	}
	return cons, err
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
