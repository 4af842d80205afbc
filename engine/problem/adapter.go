package problem

import (
	"math"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/shellwords"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// Adapter types.
const (
	AdapterCLI     = "cli"
	AdapterAPI     = "api"
	AdapterBrowser = "browser"
	AdapterAgent   = "agent"
)

// AdapterTypes lists the adapters a problem can name.
var AdapterTypes = []string{AdapterCLI, AdapterAPI, AdapterBrowser, AdapterAgent}

// AgentAdapter configures the agent adapter: how each case's request
// reaches the agent and where its result comes from (docs/agents.md).
type AgentAdapter struct {
	// Endpoint is the path on the submission's server (started once per
	// group, as for the api adapter) to which each case's request is
	// POSTed; empty: the submission's command runs once per case, the
	// request on its stdin and the result on its stdout.
	Endpoint string
	// Results, when set, is a directory of results another framework
	// recorded, one JSON file per case: nothing runs (see
	// adapter.Recorded). It is the run's to choose (--results), never
	// the problem's.
	Results string
}

// Response formats of the API adapter: how a response body becomes the
// case's output.
const (
	ResponseText    = "text"
	ResponseJSON    = "json"
	ResponseBinary  = "binary"
	ResponseArchive = "archive"
)

// ResponseFormats lists the accepted response formats.
var ResponseFormats = []string{ResponseText, ResponseJSON, ResponseBinary, ResponseArchive}

// Screenshot policies of the browser adapter.
const (
	ScreenshotsOnFailure = "on_failure"
	ScreenshotsAlways    = "always"
	ScreenshotsNever     = "never"
)

// Server says how the submission's server is started once per group (API
// and browser adapters) and how the engine knows it is up.
type Server struct {
	// Arguments are appended to the submission's command; {{host}} and
	// {{port}} are substituted here and in the command itself.
	Arguments []string
	// Env is added to the server's environment (over the problem's).
	Env    map[string]string
	Health HealthCheck
}

// HealthCheck polls the server until it answers any HTTP response.
type HealthCheck struct {
	Path string
	// Delay is the pause between polls (the poll interval).
	Delay time.Duration
	// StartupTimeout is how long the server has to answer, from its
	// start: the wait is a deadline, whatever the delay and however long
	// a poll takes.
	StartupTimeout time.Duration
}

// Browser configures the browser adapter.
type Browser struct {
	// Executable is the Chromium binary (default /usr/bin/chromium). It
	// is the run's to choose (run.Options.Browser), never the problem's.
	Executable string
	// Screenshots: on_failure (default), always, never.
	Screenshots string
	// StepTimeout bounds each step unless the step sets its own.
	StepTimeout time.Duration
	// Width and Height are the viewport size.
	Width, Height int
}

// Defaults of the server and browser settings.
const (
	DefaultHealthPath  = "/"
	DefaultHealthDelay = 100 * time.Millisecond
	// DefaultStartupTimeout is how long a server has to answer its health
	// check; docs/adapters.md states it (a test holds them together).
	DefaultStartupTimeout = 20 * time.Second
	DefaultStepTimeout    = 5 * time.Second
	DefaultBrowser        = "/usr/bin/chromium"
)

// rawServerAdapter is the strict form of `adapter:` for the api and
// browser adapters; unknown keys are errors.
type rawServerAdapter struct {
	Type         string            `yaml:"type"`
	TrackedFiles []string          `yaml:"tracked_files"`
	Arguments    *rawWords         `yaml:"arguments"`
	Env          map[string]string `yaml:"env"`
	HealthCheck  *rawHealthCheck   `yaml:"health_check"`
	// api only.
	Response string `yaml:"response"`
	// agent only: where the agent's server takes requests.
	Endpoint string `yaml:"endpoint"`
	// browser only.
	Executable  string   `yaml:"executable"`
	Screenshots string   `yaml:"screenshots"`
	StepTimeout *float64 `yaml:"step_timeout"`
	Viewport    *struct {
		Width  int `yaml:"width"`
		Height int `yaml:"height"`
	} `yaml:"viewport"`
}

type rawHealthCheck struct {
	Path *string `yaml:"path"`
	// Attempts is deprecated: the wait is startup_timeout. It is still
	// read, as a wait of attempts × delay (see HealthCheck), so problems
	// written when the wait was counted in attempts keep their wait.
	Attempts       *int     `yaml:"attempts"`
	Delay          *float64 `yaml:"delay"`
	StartupTimeout *float64 `yaml:"startup_timeout"`
}

// rawWords is a list of words or one string split shell-style.
type rawWords struct{ words []string }

func (w *rawWords) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.ScalarNode:
		words, err := shellwords.Split(n.Value)
		if err != nil {
			d.Errorf(n, path, "cannot split %q into words: %v", n.Value, err)
		}
		w.words = words
	case yaml.SequenceNode:
		for i, item := range strictyaml.Items(n) {
			if item.Kind != yaml.ScalarNode {
				d.Errorf(item, diag.IndexPath(path, i), "expected a string, got %s", strictyaml.Describe(item))
				continue
			}
			w.words = append(w.words, item.Value)
		}
	default:
		d.Errorf(n, path, "expected a string or a list of strings, got %s", strictyaml.Describe(n))
	}
}

// decodeServerAdapter reads the api/browser keys of an adapter mapping,
// reporting every key that is unknown, of the wrong type, or belongs to
// the other adapter.
func decodeServerAdapter(d *strictyaml.Decoder, n *yaml.Node, path string, a *rawAdapter) {
	var r rawServerAdapter
	d.StructValue(n, path, reflectOf(&r))
	at := func(key string) (*yaml.Node, string) {
		for _, kv := range strictyaml.MappingPairs(n) {
			if kv[0].Value == key {
				return kv[0], path + "." + key
			}
		}
		return n, path + "." + key
	}
	onlyFor := func(key, typ string, given bool) {
		if given && a.Type != typ {
			kn, kp := at(key)
			d.Errorf(kn, kp, "%s applies to the %s adapter only, not %s", key, typ, a.Type)
		}
	}
	onlyFor("response", AdapterAPI, r.Response != "")
	onlyFor("endpoint", AdapterAgent, r.Endpoint != "")
	if a.Type == AdapterAgent {
		a.Agent = &AgentAdapter{Endpoint: r.Endpoint}
		if r.Endpoint == "" {
			// A command agent has no server: keys that configure one
			// would be silently ignored.
			for _, key := range []string{"arguments", "env", "health_check"} {
				if kn, kp := at(key); kn != n {
					d.Errorf(kn, kp, "%s configures an agent served over HTTP; set endpoint (the path requests are POSTed to), or drop %s for an agent run as a command", key, key)
				}
			}
			return
		}
		if !strings.HasPrefix(r.Endpoint, "/") {
			kn, kp := at("endpoint")
			d.Errorf(kn, kp, "expected a path starting with /, got %q", r.Endpoint)
		}
	}
	if r.Executable != "" {
		// Whatever a problem names here would run on the host, outside any
		// sandbox, as soon as a group starts: a shared problem must not
		// choose a program to start.
		kn, kp := at("executable")
		d.Errorf(kn, kp, "a problem cannot choose the browser program wasmeval starts on the host (expected no executable key; whoever runs wasmeval sets it with --browser PATH or WASMEVAL_BROWSER, default %s)", DefaultBrowser)
	}
	onlyFor("screenshots", AdapterBrowser, r.Screenshots != "")
	onlyFor("step_timeout", AdapterBrowser, r.StepTimeout != nil)
	onlyFor("viewport", AdapterBrowser, r.Viewport != nil)

	s := &Server{Env: r.Env, Health: HealthCheck{Path: DefaultHealthPath,
		Delay: DefaultHealthDelay, StartupTimeout: DefaultStartupTimeout}}
	if r.Arguments != nil {
		s.Arguments = r.Arguments.words
	}
	if h := r.HealthCheck; h != nil {
		if h.Path != nil {
			if !strings.HasPrefix(*h.Path, "/") {
				kn, kp := at("health_check")
				d.Errorf(kn, kp+".path", "expected a path starting with /, got %q", *h.Path)
			}
			s.Health.Path = *h.Path
		}
		if h.Delay != nil {
			if *h.Delay < 0 {
				kn, kp := at("health_check")
				d.Errorf(kn, kp+".delay", "expected a non-negative number of seconds, got %v", *h.Delay)
			}
			s.Health.Delay = seconds(*h.Delay)
		}
		if h.StartupTimeout != nil {
			if *h.StartupTimeout <= 0 {
				kn, kp := at("health_check")
				d.Errorf(kn, kp+".startup_timeout", "expected a positive number of seconds, got %v", *h.StartupTimeout)
			}
			s.Health.StartupTimeout = seconds(*h.StartupTimeout)
		}
		if h.Attempts != nil {
			if *h.Attempts < 1 {
				kn, kp := at("health_check")
				d.Errorf(kn, kp+".attempts", "expected at least 1 attempt, got %d", *h.Attempts)
			}
			s.Health.StartupTimeout = AttemptsWait(*h.Attempts, s.Health.Delay, s.Health.StartupTimeout)
		}
	}
	a.Server = s
	switch a.Type {
	case AdapterAPI:
		a.Response = ResponseText
		if r.Response != "" {
			if !slices.Contains(ResponseFormats, r.Response) {
				kn, kp := at("response")
				d.Errorf(kn, kp, "unknown response format %q (expected %s)", r.Response, strings.Join(ResponseFormats, ", "))
			}
			a.Response = r.Response
		}
	case AdapterBrowser:
		b := &Browser{Executable: DefaultBrowser, Screenshots: ScreenshotsOnFailure, StepTimeout: DefaultStepTimeout, Width: 1280, Height: 800}
		if r.Screenshots != "" {
			valid := []string{ScreenshotsOnFailure, ScreenshotsAlways, ScreenshotsNever}
			if !slices.Contains(valid, r.Screenshots) {
				kn, kp := at("screenshots")
				d.Errorf(kn, kp, "unknown screenshot policy %q (expected %s)", r.Screenshots, strings.Join(valid, ", "))
			}
			b.Screenshots = r.Screenshots
		}
		if r.StepTimeout != nil {
			if *r.StepTimeout <= 0 {
				kn, kp := at("step_timeout")
				d.Errorf(kn, kp, "expected a positive number of seconds, got %v", *r.StepTimeout)
			}
			b.StepTimeout = seconds(*r.StepTimeout)
		}
		if v := r.Viewport; v != nil {
			if v.Width <= 0 || v.Height <= 0 {
				kn, kp := at("viewport")
				d.Errorf(kn, kp, "expected a positive width and height, got %dx%d", v.Width, v.Height)
			}
			b.Width, b.Height = v.Width, v.Height
		}
		a.Browser = b
	}
}

// AttemptsWait converts the deprecated health_check.attempts to the wait
// it stood for: attempts polls delay apart, and never longer than the
// startup timeout, which bounded the wait then too. A delay of 0 gives
// attempts no duration to stand for; the startup timeout is the wait.
func AttemptsWait(attempts int, delay, startupTimeout time.Duration) time.Duration {
	if delay <= 0 || attempts < 1 {
		return startupTimeout
	}
	return min(time.Duration(attempts)*delay, startupTimeout)
}

func seconds(s float64) time.Duration { return Seconds(s) }

// Seconds converts a number of seconds as written to a duration. One past
// what a duration holds (about 292 years) is the longest duration, not
// the negative number the conversion would overflow into: a timeout of
// 1e30 seconds is no timeout, not one that has passed.
func Seconds(s float64) time.Duration {
	const longest = float64(math.MaxInt64)
	if d := s * float64(time.Second); d >= longest {
		return math.MaxInt64
	} else if d <= -longest {
		return math.MinInt64
	} else {
		return time.Duration(d)
	}
}
