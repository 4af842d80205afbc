// Package executor is the Docker runtime's in-container executor: one
// process per group container, the container's PID 1, that runs the
// group's cases on the engine's behalf. The engine and the executor talk
// over one Unix stream socket (see RATIONALE.md beside the docker
// package): the Docker API stays the control plane (create, start,
// limits, inspect, events), the socket is the data plane.
//
// The executor is the engine's own binary, re-executed: a process started
// with Arg as its first argument never reaches the program's main (see
// init in serve_linux.go), so the CLI and every test binary that links the
// Docker runtime can serve.
package executor

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol's version. Both ends send it first; a peer
// speaking another version is refused, never guessed at.
const Version = 1

// Protocol names the protocol in the handshake, so a peer that is not an
// executor at all (or an engine) is told apart from one of another
// version.
const Protocol = "wasmeval-docker-executor"

// Arg is the first argument that makes a process an executor; the second
// is the socket to connect to.
const Arg = "--wasmeval-docker-executor"

// Frame kinds. A frame is a 4-byte big-endian length (of kind and
// payload), a kind byte and the payload.
const (
	kindJSON   = 'J' // a control message: Hello, Request or Reply
	kindStdout = 'O' // bytes the case wrote on stdout (kept ones only)
	kindStderr = 'E' // bytes the case wrote on stderr (kept ones only)
	kindStdin  = 'I' // bytes for the case's stdin
	kindEOF    = 'C' // the case's stdin ends
)

// maxFrame bounds a frame: a case's argv and environment together stay
// far below it, and data travels in chunks of at most chunkSize.
const maxFrame = 16 << 20

// chunkSize is the largest data frame either side sends.
const chunkSize = 256 << 10

// Hello is the first message each side sends.
type Hello struct {
	Protocol string `json:"protocol"`
	Version  int    `json:"version"`
	// PID is the executor's own PID (1); informational.
	PID int `json:"pid,omitempty"`
}

// Request is what the engine asks of the executor. One run is in progress
// at a time; "kill" may come while it runs.
type Request struct {
	// Op is "run", "kill" (end the running case: its tree and everything
	// it left), "sweep" (kill whatever the last case left; answered with
	// "swept"), "empty" (remove the contents of Dir; answered with
	// "emptied") or "forward" (listen on Listen and carry every
	// connection to the Unix socket To; answered with "forwarding" once
	// the listener is open, or "error"). A forward lasts as long as the
	// executor; it is served by goroutines of the executor, never by a
	// process, so no case's end touches it.
	Op   string   `json:"op"`
	Argv []string `json:"argv,omitempty"`
	// Env is the complete environment, KEY=VALUE.
	Env []string `json:"env,omitempty"`
	Dir string   `json:"dir,omitempty"`
	// Stdin says stdin frames follow, ended by an EOF frame; else the
	// case's stdin is /dev/null.
	Stdin bool `json:"stdin,omitempty"`
	// TimeoutMS bounds the case's wall time; 0 is none.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// OutputCap bounds the bytes kept (and sent) per stream.
	OutputCap int64 `json:"output_cap,omitempty"`
	// SpareExecs says processes started by `docker exec` (servers,
	// forwarders) may be running and must live on: leftovers are then
	// found by a scan instead of one kill(-1).
	SpareExecs bool `json:"spare_execs,omitempty"`
	// Listen is the TCP address a forward listens on inside the
	// container (127.0.0.1:PORT), and To the Unix socket, a path inside
	// the container, each of its connections is carried to.
	Listen string `json:"listen,omitempty"`
	To     string `json:"to,omitempty"`
}

// Reply is what the executor answers.
type Reply struct {
	// Op is "ready" (after the handshake), "exited" (a run is over, and
	// so is everything it started), "error" (a run could not start, or a
	// request was refused), "swept", "emptied" or "forwarding".
	Op    string `json:"op"`
	Error string `json:"error,omitempty"`
	// Code is the exit status as a shell reports it (128+n for signal n).
	Code   int  `json:"code,omitempty"`
	Signal int  `json:"signal,omitempty"`
	Timed  bool `json:"timed_out,omitempty"`
	// StdoutDropped and StderrDropped count bytes past OutputCap.
	StdoutDropped int64 `json:"stdout_dropped,omitempty"`
	StderrDropped int64 `json:"stderr_dropped,omitempty"`
	// Usage is what the case's process and the children it waited for
	// used (getrusage of the reaped root).
	Usage *Usage `json:"usage,omitempty"`
	// Killed counts processes the executor killed after the case's root
	// exited (leftovers) or at its timeout.
	Killed int `json:"killed,omitempty"`
	// Left counts processes still there when the executor gave up
	// killing them (0 when the container is clean).
	Left int `json:"left,omitempty"`
}

// Usage is a case's resource use.
type Usage struct {
	UserMicros   int64 `json:"user_us"`
	SystemMicros int64 `json:"system_us"`
	MaxRSSKiB    int64 `json:"max_rss_kib"`
}

// writeFrame writes one frame.
func writeFrame(w io.Writer, kind byte, payload []byte) error {
	if len(payload)+1 > maxFrame {
		return fmt.Errorf("executor frame of %d bytes exceeds %d", len(payload)+1, maxFrame)
	}
	buf := make([]byte, 5, 5+len(payload))
	binary.BigEndian.PutUint32(buf, uint32(len(payload)+1))
	buf[4] = kind
	_, err := w.Write(append(buf, payload...))
	return err
}

// writeJSON writes v as a control frame.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFrame(w, kindJSON, b)
}

// readFrame reads one frame. io.EOF means the peer closed the stream
// between frames.
func readFrame(r io.Reader) (kind byte, payload []byte, err error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:4]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[:4])
	if n == 0 || n > maxFrame {
		return 0, nil, fmt.Errorf("executor protocol: frame of %d bytes (expected 1 to %d)", n, maxFrame)
	}
	if _, err := io.ReadFull(r, head[4:5]); err != nil {
		return 0, nil, unexpected(err)
	}
	payload = make([]byte, n-1)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, unexpected(err)
	}
	return head[4], payload, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// checkHello decodes a peer's hello and refuses anything but this
// protocol at this version; peer names the other side for the message.
func checkHello(kind byte, payload []byte, peer string) (Hello, error) {
	var h Hello
	if kind != kindJSON || json.Unmarshal(payload, &h) != nil || h.Protocol != Protocol {
		return h, &VersionError{Peer: peer, Got: -1}
	}
	if h.Version != Version {
		return h, &VersionError{Peer: peer, Got: h.Version}
	}
	return h, nil
}

// VersionError is a handshake refused: the peer is no executor (or
// engine), or speaks another protocol version.
type VersionError struct {
	Peer string // "executor" or "engine"
	Got  int    // the peer's version, -1 when it sent no valid hello
}

func (e *VersionError) Error() string {
	if e.Got < 0 {
		return fmt.Sprintf("docker executor: the %s did not open with a %s hello (protocol version %d expected)", e.Peer, Protocol, Version)
	}
	return fmt.Sprintf("docker executor: the %s speaks protocol version %d, this side speaks %d: the binary serving as executor is from another wasmeval build", e.Peer, e.Got, Version)
}
