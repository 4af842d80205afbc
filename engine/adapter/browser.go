package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// launchTimeout bounds starting Chromium.
const launchTimeout = 30 * time.Second

// Browser drives headless Chromium through a case's steps against the
// submission's web app, served by the same server handling as the API
// adapter. One browser runs per group; every case gets a fresh browser
// context (no cookies, storage or cache from earlier cases), while the
// server — and its state — is shared by the group's cases in order.
//
// A case's output is a JSON object of its captures. A step that fails
// (nothing matches its locator within the step timeout, a page that does
// not load) ends the case with status 1, timed_out set and the step named
// in the error; a screenshot is kept.
type Browser struct {
	Server    Server
	Config    problem.Browser
	Artifacts Artifacts

	userDir     string
	allocCancel context.CancelFunc
	cancel      context.CancelFunc
	ctx         context.Context
	launchErr   string
}

// Begin implements GroupAdapter: it starts the server, then the browser.
func (b *Browser) Begin(ctx context.Context, sess runtime.Session) error {
	if err := b.Server.Start(ctx, sess); err != nil {
		return err
	}
	if b.Server.Down() != "" {
		return nil // every case reports the server; no browser needed
	}
	if err := b.launch(ctx); err != nil {
		b.launchErr = err.Error()
	}
	return ctx.Err()
}

// launch starts Chromium with the flags a closed network needs (no
// background traffic, no component updates) and a fresh profile.
func (b *Browser) launch(ctx context.Context) error {
	if _, err := os.Stat(b.Config.Executable); err != nil {
		return fmt.Errorf("browser %s not found (install Debian's chromium package): %v", b.Config.Executable, err)
	}
	dir, err := os.MkdirTemp("", "wasmeval-chromium-")
	if err != nil {
		return fmt.Errorf("browser profile: %w", err)
	}
	b.userDir = dir
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(b.Config.Executable),
		chromedp.UserDataDir(dir),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(b.Config.Width, b.Config.Height),
	}
	// The browser lives as long as the group, not as long as one call.
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.WithoutCancel(ctx), opts...)
	bctx, cancel := chromedp.NewContext(allocCtx)
	b.allocCancel, b.cancel, b.ctx = allocCancel, cancel, bctx
	started := make(chan error, 1)
	go func() { started <- chromedp.Run(bctx) }()
	select {
	case err := <-started:
		if err != nil {
			return fmt.Errorf("start browser %s: %w", b.Config.Executable, err)
		}
		return nil
	case <-time.After(launchTimeout):
		return fmt.Errorf("browser %s did not start within %s", b.Config.Executable, launchTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// End implements GroupAdapter: it closes the browser and stops the server.
func (b *Browser) End() error {
	if b.cancel != nil {
		b.cancel()
		b.allocCancel() // waits for the browser process to exit
	}
	if b.userDir != "" {
		// Chromium's helper processes can still be writing to the profile
		// for a moment after the browser has exited; retry briefly rather
		// than leave the directory behind.
		for i := 0; i < 20 && os.RemoveAll(b.userDir) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	return b.Server.Stop()
}

// Run implements Adapter.
func (b *Browser) Run(ctx context.Context, sess runtime.Session, c *cases.Case) (out result.Execution, _ error) {
	out = b.Server.execution()
	out.Command = []string{"browser", b.Server.BaseURL()}
	fail := func(format string, args ...any) (result.Execution, error) {
		out.AdapterError = true
		out.StatusCode = -1
		out.Error = fmt.Sprintf(format, args...)
		return out, nil
	}
	if c.Steps == nil {
		return fail("case has no steps: the browser adapter runs the case's `steps` (goto, click, fill, …)")
	}
	if err := workspace.WriteFiles(sess.Workdir(), c.InputFiles); err != nil {
		return fail("write input files: %v", err)
	}
	if down := b.Server.Down(); down != "" {
		return fail("%s", down)
	}
	if b.launchErr != "" {
		return fail("%s", b.launchErr)
	}
	started := time.Now()
	// Deferred before the tab's close, so the copies go once it is closed.
	up := &uploads{}
	defer func() {
		if err := up.remove(); err != nil {
			out.Error = joinErr(out.Error, err.Error())
		}
	}()
	tab, closeTab, err := b.newTab()
	if err != nil {
		return fail("open a browser tab: %v", err)
	}
	defer closeTab()
	// The case's own deadline and the run's cancellation both end the tab.
	caseTimeout := c.Timeout
	if caseTimeout <= 0 {
		caseTimeout = DefaultRequestTimeout
	}
	stop := context.AfterFunc(ctx, closeTab)
	defer stop()
	if err := chromedp.Run(tab, chromedp.EmulateViewport(int64(b.Config.Width), int64(b.Config.Height))); err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return fail("open a browser tab: %v", err)
	}
	run := &stepRunner{b: b, tab: tab, sess: sess, deadline: started.Add(caseTimeout), captures: map[string]any{}, caseID: c.ID, uploads: up}
	for i, st := range c.Steps {
		if err := run.step(st); err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			// A step that failed because the server went away is no
			// answer of the app's: the case is the server's error.
			if strings.Contains(err.Error(), "net::ERR_") {
				b.Server.awaitExit(exitGrace)
			}
			if down := b.Server.Down(); down != "" {
				b.screenshotOnFailure(run)
				out.Artifacts = append(out.Artifacts, run.artifacts...)
				return fail("step %d (%s): %v; %s", i+1, describeStep(st), err, down)
			}
			out.StatusCode = 1
			out.TimedOut = errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errStepTimeout)
			out.Error = fmt.Sprintf("step %d (%s): %v", i+1, describeStep(st), err)
			b.screenshotOnFailure(run)
			break
		}
	}
	if out.StatusCode == 0 && b.Config.Screenshots == problem.ScreenshotsAlways {
		run.screenshot("final")
	}
	out.Artifacts = append(out.Artifacts, run.artifacts...)
	if run.artifactErr != "" {
		out.Error = joinErr(out.Error, run.artifactErr)
	}
	data, _ := json.Marshal(run.captures)
	out.Output = string(data)
	out.Elapsed = time.Since(started).Seconds()
	return out, nil
}

// screenshotOnFailure keeps a screenshot of a failed case unless the
// problem asked for none.
func (b *Browser) screenshotOnFailure(run *stepRunner) {
	if b.Config.Screenshots != problem.ScreenshotsNever {
		run.screenshot("failure")
	}
}

// newTab opens a tab in a fresh browser context (no cookies, storage or
// cache from earlier cases); closing it disposes the context. The target is
// created in its own window: headless Chromium refuses a new context's
// first tab otherwise ("no browser is open"), which chromedp's
// WithNewBrowserContext runs into.
func (b *Browser) newTab() (context.Context, context.CancelFunc, error) {
	c := chromedp.FromContext(b.ctx)
	ex := cdp.WithExecutor(b.ctx, c.Browser)
	bcid, err := target.CreateBrowserContext().WithDisposeOnDetach(true).Do(ex)
	if err != nil {
		return nil, nil, fmt.Errorf("create browser context: %w", err)
	}
	tid, err := target.CreateTarget("about:blank").WithBrowserContextID(bcid).WithNewWindow(true).Do(ex)
	if err != nil {
		target.DisposeBrowserContext(bcid).Do(ex)
		return nil, nil, fmt.Errorf("create tab: %w", err)
	}
	tab, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(tid))
	return tab, func() {
		cancel()
		target.DisposeBrowserContext(bcid).Do(ex)
	}, nil
}

// describeStep names a step for error messages: its action and target.
func describeStep(st cases.Step) string {
	s := st.Action
	switch {
	case st.Locator != nil:
		s += " " + st.Locator.String()
	case st.URL != "":
		s += " " + st.URL
	case st.Key != "":
		s += " " + st.Key
	}
	return s
}

// safeName turns a case ID into a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// writeArtifact saves data as a case artifact and returns its reference.
func (a Artifacts) write(name string, data []byte) (string, error) {
	if a.Dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return "", err
	}
	host, rel := a.path(name)
	if err := os.WriteFile(host, data, 0o644); err != nil {
		return "", err
	}
	return rel, nil
}
