package problem

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestServerAdapterConfig(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: app.py
adapter:
  type: browser
  arguments: --port {{port}} --quiet
  env: {MODE: test}
  health_check: {path: /up, delay: 0.2, startup_timeout: 3}
  screenshots: always
  step_timeout: 2.5
  viewport: {width: 800, height: 600}
checkpoints:
  c1: {groups: {g: {type: Core}}}
`, "c1/x": "",
	})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	a := p.Adapter
	if a.Type != AdapterBrowser || strings.Join(a.Server.Arguments, "|") != "--port|{{port}}|--quiet" || a.Server.Env["MODE"] != "test" {
		t.Errorf("server: %+v", a.Server)
	}
	if h := a.Server.Health; h.Path != "/up" || h.Delay != 200*time.Millisecond || h.StartupTimeout != 3*time.Second {
		t.Errorf("health check: %+v", h)
	}
	if b := a.Browser; b.Screenshots != ScreenshotsAlways || b.StepTimeout != 2500*time.Millisecond || b.Width != 800 || b.Height != 600 || b.Executable != DefaultBrowser {
		t.Errorf("browser: %+v", b)
	}
}

func TestServerAdapterDefaults(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": "name: p\nentry_file: app.py\nadapter: {type: api}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", "c1/x": "",
	})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := HealthCheck{Path: "/", Delay: DefaultHealthDelay, StartupTimeout: DefaultStartupTimeout}
	if p.Adapter.Server.Health != want || p.Adapter.Response != ResponseText || p.Adapter.Browser != nil {
		t.Errorf("defaults: %+v %q %+v", p.Adapter.Server.Health, p.Adapter.Response, p.Adapter.Browser)
	}
}

// TestHealthCheckAttemptsConverted: the deprecated attempts key is read as
// the wait it stood for, attempts × delay, never beyond startup_timeout;
// without it the wait is startup_timeout alone.
func TestHealthCheckAttemptsConverted(t *testing.T) {
	for _, tc := range []struct {
		health string
		want   time.Duration
	}{
		{"{startup_timeout: 30}", 30 * time.Second},
		{"{attempts: 5, delay: 0.2, startup_timeout: 3}", time.Second},
		{"{attempts: 100, delay: 0.1}", 10 * time.Second},
		{"{attempts: 1000, delay: 0.1}", DefaultStartupTimeout},
		{"{attempts: 1000, delay: 0.1, startup_timeout: 7}", 7 * time.Second},
		{"{attempts: 50}", 5 * time.Second},
		{"{attempts: 5, delay: 0}", DefaultStartupTimeout},
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml": "name: p\nentry_file: app.py\nadapter: {type: api, health_check: " + tc.health + "}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", "c1/x": "",
		})
		p, err := Load(dir, testOpts)
		if err != nil {
			t.Fatalf("%s: %v", tc.health, err)
		}
		if got := p.Adapter.Server.Health.StartupTimeout; got != tc.want {
			t.Errorf("%s: wait %s, want %s", tc.health, got, tc.want)
		}
	}
}

func TestAgentAdapter(t *testing.T) {
	for _, tc := range []struct {
		adapter  string
		endpoint string
		server   bool
	}{
		{"{type: agent}", "", false},
		{"{type: agent, endpoint: /run, arguments: [--port, '{{port}}'], health_check: {path: /health}}", "/run", true},
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml": "name: p\nentry_file: agent.py\nadapter: " + tc.adapter + "\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", "c1/x": "",
		})
		p, err := Load(dir, testOpts)
		if err != nil {
			t.Fatalf("%s: %v", tc.adapter, err)
		}
		a := p.Adapter
		if a.Type != AdapterAgent || a.Agent == nil || a.Agent.Endpoint != tc.endpoint || (a.Server != nil) != tc.server || a.Agent.Results != "" {
			t.Errorf("%s: %+v %+v", tc.adapter, a, a.Agent)
		}
		if tc.server && (a.Server.Health.Path != "/health" || len(a.Server.Arguments) != 2) {
			t.Errorf("%s: server %+v", tc.adapter, a.Server)
		}
	}
}

func TestServerAdapterErrors(t *testing.T) {
	for _, tc := range []struct {
		adapter string
		path    string
		line    int
		msg     string
	}{
		{"{type: grpc}", "adapter.type", 3, `unknown adapter "grpc" (expected cli, api, browser, agent)`},
		{"{type: api, colour: red}", "adapter.colour", 3, `unknown key "colour" (known keys: type, tracked_files, arguments`},
		{"{type: api, screenshots: always}", "adapter.screenshots", 3, "screenshots applies to the browser adapter only, not api"},
		{"{type: browser, response: json}", "adapter.response", 3, "response applies to the api adapter only, not browser"},
		{"{type: api, response: xml}", "adapter.response", 3, `unknown response format "xml" (expected text, json, binary, archive)`},
		{"{type: api, health_check: {path: health}}", "adapter.health_check.path", 3, `expected a path starting with /, got "health"`},
		{"{type: api, health_check: {attempts: 0}}", "adapter.health_check.attempts", 3, "expected at least 1 attempt"},
		{"{type: api, health_check: {startup_timeout: soon}}", "adapter.health_check.startup_timeout", 3, "expected a number"},
		{"{type: api, health_check: {retries: 3}}", "adapter.health_check.retries", 3, `unknown key "retries"`},
		{"{type: browser, screenshots: sometimes}", "adapter.screenshots", 3, `unknown screenshot policy "sometimes"`},
		{"{type: browser, step_timeout: 0}", "adapter.step_timeout", 3, "expected a positive number of seconds"},
		{"{type: browser, viewport: {width: 0, height: 10}}", "adapter.viewport", 3, "expected a positive width and height"},
		{"{type: api, arguments: {a: b}}", "adapter.arguments", 3, "expected a string or a list of strings"},
		{"{type: api, endpoint: /run}", "adapter.endpoint", 3, "endpoint applies to the agent adapter only, not api"},
		{"{type: agent, endpoint: run}", "adapter.endpoint", 3, `expected a path starting with /, got "run"`},
		{"{type: agent, arguments: [--port, '{{port}}']}", "adapter.arguments", 3, "arguments configures an agent served over HTTP; set endpoint"},
		{"{type: agent, health_check: {path: /}}", "adapter.health_check", 3, "health_check configures an agent served over HTTP"},
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml": "name: p\nentry_file: app.py\nadapter: " + tc.adapter + "\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", "c1/x": "",
		})
		_, err := Load(dir, testOpts)
		if err == nil {
			t.Errorf("%s: no error", tc.adapter)
			continue
		}
		found := false
		for _, d := range diagsOf(t, err) {
			if d.Path == tc.path && d.Line == tc.line && strings.Contains(d.Msg, tc.msg) && strings.HasSuffix(d.File, "config.yaml") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want %s:%d %q, got:\n%v", tc.adapter, tc.path, tc.line, tc.msg, err)
		}
	}
}

// The default wait is stated in docs/adapters.md: the example's
// startup_timeout line says it, and it must be the constant's.
func TestDocumentedStartupTimeoutIsTheDefault(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "adapters.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`startup_timeout: (\d+) +# seconds, default (\d+)`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/adapters.md has no `startup_timeout: N  # seconds, default N` line")
	}
	want := strconv.Itoa(int(DefaultStartupTimeout / time.Second))
	if string(m[1]) != want || string(m[2]) != want {
		t.Errorf("docs/adapters.md says startup_timeout %s, default %s; the default is %s", m[1], m[2], DefaultStartupTimeout)
	}
}

// A server's environment values take {{host}} and {{port}}; a misspelt
// {port} there is refused, while other single-brace text (a log format)
// is the value as written.
func TestServerEnvPlaceholders(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": "name: p\nentry_file: app.py\nadapter:\n  type: api\n  env: {LOG: '{asctime} {message}', URL: 'http://{host}:{{port}}/', OK: '{{host}}'}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n", "c1/x": "",
	})
	_, err := Load(dir, testOpts)
	if err == nil {
		t.Fatal("loaded; want {host} in adapter.env.URL refused")
	}
	want := filepath.Join(dir, "config.yaml") + ":5: adapter.env.URL: unknown placeholder {host} (known here: {{host}}, {{port}}; did you mean {{host}}?)"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}
