package distribute

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
)

// quickJS is a connection to url whose requests wait one second for an
// answer, not APITimeout, so a test sees attempts given up without
// waiting half a minute for each.
func quickJS(t *testing.T, url string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// A worker started while the server answers nothing (a real nats-server,
// paused: a loaded machine can leave one slower than a request waits)
// asks again, says so, and serves once the server answers. It used to
// exit on its first request given up ("results stream: context deadline
// exceeded"), so workers started together on a busy machine all ended.
func TestWorkerWaitsOutASlowServer(t *testing.T) {
	srv := natstest.Start(t)
	nc, js := quickJS(t, srv.URL())
	log := &syncBuffer{}
	ready := make(chan struct{})
	w := &Worker{Conn: nc, JS: js, Name: "patient", Slots: 1, Capabilities: []Capability{HostCapability("local")},
		Version: "test", ABI: 1, CacheDir: t.TempDir(), Log: log, Ready: func() { close(ready) },
		Prepare: func(context.Context, *Job, *Fetched) (GroupRunner, error) {
			return nil, errors.New("no job is expected")
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	srv.Pause()
	served := make(chan error, 1)
	go func() { served <- w.Serve(ctx) }()
	deadline := time.After(3 * time.Minute)
	for strings.Count(log.String(), "asking again") < 2 {
		select {
		case err := <-served:
			srv.Resume()
			t.Fatalf("the worker ended while the server was paused: %v\nits log:\n%s", err, log)
		case <-deadline:
			srv.Resume()
			t.Fatalf("the worker did not say it asks again; its log:\n%s", log)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !strings.Contains(log.String(), "worker patient: the NATS server did not answer") {
		t.Errorf("the log does not name the worker and the cause:\n%s", log)
	}
	srv.Resume()
	select {
	case <-ready:
	case err := <-served:
		t.Fatalf("the worker ended after the server came back: %v\nits log:\n%s", err, log)
	case <-time.After(3 * time.Minute):
		t.Fatalf("the worker was not ready 3 minutes after the server came back; its log:\n%s", log)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// What it set up is there.
	for _, name := range []string{WorkStream, ResultsStream, AdvisoryStream} {
		if _, err := js.Stream(context.Background(), name); err != nil {
			t.Errorf("stream %s: %v", name, err)
		}
	}
}

// An error that asking again cannot mend (here a work stream made by
// something else, with another retention, which JetStream will not
// change) is returned at once, naming the stream, not asked again.
func TestSetUpRefusalIsNotAskedAgain(t *testing.T) {
	e := embedded(t)
	ctx := context.Background()
	_, js := quickJS(t, e.URL())
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: WorkStream, Subjects: []string{workPrefix + ".>"},
		Retention: jetstream.LimitsPolicy}); err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	_, err := ensureStreams(ctx, js, DefaultConfig, func(format string, args ...any) { log.Write([]byte(format + "\n")) })
	if err == nil || !strings.Contains(err.Error(), "work stream "+WorkStream) {
		t.Fatalf("ensureStreams = %v, want an error naming the work stream", err)
	}
	if log.String() != "" {
		t.Errorf("a refusal was asked again:\n%s", log)
	}
}
