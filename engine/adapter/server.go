package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/placeholder"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
)

// GroupAdapter is an Adapter with per-group state: the engine calls Begin
// once before a group's first case and End after its last. The API and
// browser adapters start the submission's server in Begin, so cases of a
// group share it (and its state) in order.
type GroupAdapter interface {
	Adapter
	// Begin prepares the group. A submission that fails to come up is not
	// an error here: every case of the group then reports it. The error
	// return is for cancellation of ctx and for the engine's own faults.
	Begin(ctx context.Context, sess runtime.Session) error
	// End stops whatever Begin started.
	End() error
}

// ServerDown is a GroupAdapter that can say its group's server is down
// (why, or "" while it is up): a case retried then would meet the same
// error, since the server's state cannot be rebuilt mid-group.
type ServerDown interface {
	ServerDown() string
}

// ServerDown implements ServerDown.
func (a *API) ServerDown() string { return a.Server.Down() }

// ServerDown implements ServerDown.
func (b *Browser) ServerDown() string { return b.Server.Down() }

// Artifacts says where an adapter keeps files for a group's cases.
type Artifacts struct {
	// Dir is the group's artifact directory on the host ("" keeps none).
	Dir string
	// Rel is Dir relative to the run's output directory, as case records
	// reference it.
	Rel string
}

// path returns the host path and the record reference of an artifact.
func (a Artifacts) path(name string) (string, string) {
	return filepath.Join(a.Dir, name), filepath.ToSlash(filepath.Join(a.Rel, name))
}

// LogTailBytes is how much of a server's output an error message quotes.
const LogTailBytes = 2048

// Server starts a submission's server once per group and knows whether it
// is still up.
type Server struct {
	// Command is the submission's resolved command; Config.Arguments are
	// appended and {{host}}/{{port}} substituted in both.
	Command   []string
	Config    problem.Server
	Env       map[string]string
	Artifacts Artifacts

	proc     runtime.Process
	endpoint runtime.Endpoint
	stdout   *logSink
	stderr   *logSink
	// down is set when the server never came up or has exited; every
	// case after that reports it.
	down string
	logs []string
	// startup is how long the server took from its start to its first
	// answer to the health check (0 until it answered).
	startup time.Duration
}

// Start launches the server and waits for its health check. A server that
// does not come up leaves Down set; the error return is only for ctx.
func (s *Server) Start(ctx context.Context, sess runtime.Session) error {
	var err error
	if s.stdout, err = s.newSink("server.stdout.log"); err != nil {
		s.down = err.Error()
		return nil
	}
	if s.stderr, err = s.newSink("server.stderr.log"); err != nil {
		s.down = err.Error()
		return nil
	}
	for attempt := 1; ; attempt++ {
		portTaken, err := s.start(ctx, sess)
		if err != nil {
			s.down = s.report("the server never answered", err)
		}
		if !portTaken || attempt == portAttempts || ctx.Err() != nil {
			return ctx.Err()
		}
		// The port was free when the runtime picked it but something took
		// it before the server could bind (another server, an outgoing
		// connection's ephemeral port): that is no fault of the
		// submission, so it gets a new port.
		s.down = ""
		for _, sink := range []*logSink{s.stdout, s.stderr} {
			fmt.Fprintf(sink, "\n[wasmeval: port %d was taken; starting the server again on a new port]\n", s.endpoint.Port)
			sink.resetTail() // error messages quote the attempt that counts
		}
	}
}

// portAttempts is how many ports a server is started on when its port turns
// out to be taken.
const portAttempts = 3

// start launches the server once on a fresh endpoint and waits for it. It
// reports whether the server exited complaining that its address was in
// use.
func (s *Server) start(ctx context.Context, sess runtime.Session) (portTaken bool, err error) {
	ep, err := sess.Endpoint(ctx)
	if err != nil {
		return false, fmt.Errorf("no address for the server: %v", err)
	}
	s.endpoint = ep
	values := map[string]string{placeholder.Host: ep.Host, placeholder.Port: strconv.Itoa(ep.Port)}
	var argv []string
	for _, a := range append(append([]string{}, s.Command...), s.Config.Arguments...) {
		argv = append(argv, placeholder.Expand(a, values))
	}
	env := map[string]string{}
	for k, v := range s.Env {
		// The env of the problem, a checkpoint or the group: a case's
		// {{static:NAME}} is resolved with the case, the server's here.
		v, _ = cases.ExpandStatic(v, sess.StaticPath)
		env[k] = placeholder.Expand(v, values)
	}
	for k, v := range s.Config.Env {
		env[k] = placeholder.Expand(v, values)
	}
	env["HOST"], env["PORT"] = ep.Host, strconv.Itoa(ep.Port)
	env = ProcessEnv(sess.Workdir(), env)

	started := time.Now()
	proc, err := sess.Start(ctx, runtime.StartRequest{Argv: argv, Env: env, Stdout: s.stdout, Stderr: s.stderr})
	if err != nil {
		return false, fmt.Errorf("server %q could not start: %v", strings.Join(argv, " "), err)
	}
	s.proc = proc
	err = s.waitHealthy(ctx, argv, started)
	if err == nil {
		return false, nil
	}
	select {
	case <-proc.Exited():
		tail := strings.ToLower(s.stdout.Tail() + s.stderr.Tail())
		return strings.Contains(tail, "address already in use") || strings.Contains(tail, "eaddrinuse"), err
	default:
		return false, err
	}
}

func (s *Server) newSink(name string) (*logSink, error) {
	sink := &logSink{}
	if s.Artifacts.Dir == "" {
		return sink, nil
	}
	if err := os.MkdirAll(s.Artifacts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("artifact directory: %w", err)
	}
	host, rel := s.Artifacts.path(name)
	f, err := os.Create(host)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	sink.file = f
	s.logs = append(s.logs, rel)
	return sink, nil
}

// pollTimeout bounds one health poll: a server that accepts connections
// but never answers cannot hold a poll open for long, and no poll outlasts
// the wait's deadline.
const pollTimeout = time.Second

// waitHealthy polls the health path, Delay apart, until any HTTP response
// comes back, the server exits or the startup timeout, counted from
// started, has passed. The wait is a deadline: however many polls fit.
func (s *Server) waitHealthy(ctx context.Context, argv []string, started time.Time) error {
	h := s.Config.Health
	deadline := started.Add(h.StartupTimeout)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, CheckRedirect: noRedirect}
	url := s.BaseURL() + h.Path
	var last error
	polls := 0
	for {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		polls++
		actx, cancel := context.WithTimeout(ctx, min(left, pollTimeout))
		req, _ := http.NewRequestWithContext(actx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		cancel()
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			// Another process may hold the port the server failed to
			// bind: a server that is already gone is not up.
			select {
			case <-s.proc.Exited():
				return s.exitedError("before it was up")
			default:
				s.startup = time.Since(started)
				return nil
			}
		}
		last = err
		if ctx.Err() != nil {
			return ctx.Err()
		}
		select {
		case <-s.proc.Exited():
			return s.exitedError("before it was up")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(h.Delay, max(time.Until(deadline), 0))):
		}
	}
	if last == nil {
		last = errors.New("no time was left to poll")
	}
	return fmt.Errorf("server %q did not answer GET %s within %s (%d polls %s apart; last error: %v)",
		strings.Join(argv, " "), h.Path, h.StartupTimeout, polls, h.Delay, last)
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Down says why cases cannot reach the server ("" while it is up).
func (s *Server) Down() string {
	if s.down != "" {
		return s.down
	}
	if s.proc != nil {
		select {
		case <-s.proc.Exited():
			s.down = s.report("the server stopped answering", s.exitedError("during the group"))
		default:
		}
	}
	return s.down
}

// awaitExit waits up to d for the server to exit.
func (s *Server) awaitExit(d time.Duration) {
	if s.proc == nil {
		return
	}
	select {
	case <-s.proc.Exited():
	case <-time.After(d):
	}
}

// report says once, plainly, why the cases of the group cannot reach the
// server: what happened (err), where the server's logs are, and the end
// of its output.
func (s *Server) report(what string, err error) string {
	return what + ": " + err.Error() + s.LogsNote() + s.tail()
}

// LogsNote names the server's log files for a message ("" when none are
// kept).
func (s *Server) LogsNote() string {
	if len(s.logs) == 0 {
		return ""
	}
	return "; server logs: " + strings.Join(s.logs, ", ")
}

// exitedError describes a server that exited.
func (s *Server) exitedError(when string) error {
	st := s.proc.State()
	how := fmt.Sprintf("exit status %d", st.ExitCode)
	if st.Signal != "" {
		how = "signal: " + st.Signal
	}
	return fmt.Errorf("server exited %s (%s)", when, how)
}

// tail quotes the end of the server's output for error messages.
func (s *Server) tail() string {
	var b strings.Builder
	for _, part := range []struct {
		name string
		sink *logSink
	}{{"stdout", s.stdout}, {"stderr", s.stderr}} {
		if part.sink == nil {
			continue
		}
		if t := strings.TrimSpace(part.sink.Tail()); t != "" {
			fmt.Fprintf(&b, "\n--- server %s (last %d bytes) ---\n%s", part.name, LogTailBytes, t)
		}
	}
	if b.Len() == 0 {
		return "; the server printed nothing"
	}
	return b.String()
}

// BaseURL is where the engine reaches the server.
func (s *Server) BaseURL() string { return "http://" + s.endpoint.Dial }

// Logs are the server's log artifacts (record references), a fresh slice
// for each case record to extend.
func (s *Server) Logs() []string { return slices.Clone(s.logs) }

// Startup is how long the server took from its start to its first answer
// to the health check; 0 when it never answered. After a restart on a new
// port (see Start) it is the start that answered.
func (s *Server) Startup() time.Duration { return s.startup }

// execution is a case's result as the server's cases begin it: the
// server's logs and start-up time, which every case of the group carries.
func (s *Server) execution() result.Execution {
	return result.Execution{Artifacts: s.Logs(), ServerStartup: s.startup.Seconds()}
}

// Stop stops the server and closes its logs.
func (s *Server) Stop() error {
	var err error
	if s.proc != nil {
		err = s.proc.Stop()
	}
	for _, sink := range []*logSink{s.stdout, s.stderr} {
		if sink != nil {
			sink.Close()
		}
	}
	return err
}

// MaxLogBytes caps each server log artifact, so a server that floods its
// output cannot fill the disk; the tail is kept whatever the cap.
const MaxLogBytes = 64 << 20

// logSink writes a server stream to its artifact file and keeps its tail.
type logSink struct {
	mu      sync.Mutex
	file    *os.File
	written int64
	tail    []byte
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil && l.written < MaxLogBytes {
		keep := p
		if left := MaxLogBytes - l.written; int64(len(keep)) > left {
			keep = keep[:left]
		}
		l.file.Write(keep) // a full disk must not stop the server
		l.written += int64(len(keep))
		if l.written >= MaxLogBytes {
			fmt.Fprintf(l.file, "\n[wasmeval: log truncated at %d bytes]\n", MaxLogBytes)
		}
	}
	l.tail = append(l.tail, p...)
	if len(l.tail) > 2*LogTailBytes {
		l.tail = append(l.tail[:0], l.tail[len(l.tail)-LogTailBytes:]...)
	}
	return len(p), nil
}

// resetTail forgets the tail kept so far (the file keeps everything).
func (l *logSink) resetTail() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tail = l.tail[:0]
}

// Tail returns the last LogTailBytes written.
func (l *logSink) Tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tail
	if len(t) > LogTailBytes {
		t = t[len(t)-LogTailBytes:]
	}
	return strings.ToValidUTF8(string(t), "\uFFFD")
}

func (l *logSink) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}
