package distribute

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a NATS server with JetStream run inside this process, on
// loopback, for a single machine's workers (run --workers N) and tests.
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts a server keeping its streams in storeDir, on a
// free loopback port.
func StartEmbedded(storeDir string) (*Embedded, error) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: storeDir, NoSigs: true, NoLog: true})
	if err != nil {
		return nil, fmt.Errorf("embedded NATS server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("embedded NATS server: not ready after 30s")
	}
	return &Embedded{srv: srv}, nil
}

// URL is where clients connect (nats://127.0.0.1:PORT).
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Stop shuts the server down and waits until it has.
func (e *Embedded) Stop() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
