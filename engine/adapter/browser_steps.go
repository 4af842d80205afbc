package adapter

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/runtime"
)

//go:embed locate.js
var locateJS string

// errStepTimeout marks a step that ran out of time waiting for its target.
var errStepTimeout = errors.New("step timed out")

// pollInterval is how often a waiting step looks at the page again.
const pollInterval = 50 * time.Millisecond

// stepRunner runs one case's steps in one tab.
type stepRunner struct {
	b           *Browser
	tab         context.Context
	sess        runtime.Session
	deadline    time.Time
	captures    map[string]any
	caseID      string
	artifacts   []string
	artifactErr string
	tags        int
	uploads     *uploads
}

// stepContext bounds one step by its own timeout and the case's deadline.
func (r *stepRunner) stepContext(st cases.Step) (context.Context, context.CancelFunc, time.Duration) {
	timeout := st.Timeout
	if timeout <= 0 {
		timeout = r.b.Config.StepTimeout
	}
	if left := time.Until(r.deadline); left < timeout {
		timeout = max(left, 0)
	}
	ctx, cancel := context.WithTimeout(r.tab, timeout)
	return ctx, cancel, timeout
}

func (r *stepRunner) step(st cases.Step) error {
	ctx, cancel, timeout := r.stepContext(st)
	defer cancel()
	timedOut := func(err error, what string) error {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %s within %s", errStepTimeout, what, timeout)
		}
		return err
	}
	switch st.Action {
	case "goto":
		url := st.URL
		if strings.HasPrefix(url, "/") {
			url = r.b.Server.BaseURL() + url
		}
		if err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
			return timedOut(fmt.Errorf("navigate to %s: %w", url, err), "page "+url+" did not load")
		}
		return nil
	case "click":
		sel, err := r.locate(ctx, st.Locator, true, timeout)
		if err != nil {
			return err
		}
		return timedOut(chromedp.Run(ctx, chromedp.Click(sel, chromedp.ByQuery)), "click did not complete")
	case "fill":
		sel, err := r.locate(ctx, st.Locator, true, timeout)
		if err != nil {
			return err
		}
		// A select takes its value; other controls are cleared and typed
		// into, so the page sees the key and input events a user causes.
		var isSelect bool
		clear := fmt.Sprintf(`(() => { const el = document.querySelector(%s); if (el.tagName === "SELECT") { el.value = %s; el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true; } el.focus(); el.value = ""; el.dispatchEvent(new Event("input", {bubbles: true})); return false; })()`, jsString(sel), jsString(st.Value))
		if err := chromedp.Run(ctx, chromedp.Evaluate(clear, &isSelect)); err != nil {
			return timedOut(err, "fill did not complete")
		}
		if isSelect || st.Value == "" {
			return nil
		}
		return timedOut(chromedp.Run(ctx, chromedp.SendKeys(sel, st.Value, chromedp.ByQuery)), "fill did not complete")
	case "press":
		key := keyOf(st.Key)
		if st.Locator == nil {
			return timedOut(chromedp.Run(ctx, chromedp.KeyEvent(key)), "key press did not complete")
		}
		sel, err := r.locate(ctx, st.Locator, true, timeout)
		if err != nil {
			return err
		}
		return timedOut(chromedp.Run(ctx, chromedp.SendKeys(sel, key, chromedp.ByQuery)), "key press did not complete")
	case "upload":
		// The browser gets private copies, taken now: what the workspace
		// holds at this name later (a symlink the submission swapped in)
		// never reaches it.
		var files []string
		for _, f := range st.Files {
			p, err := r.uploads.copy(r.sess.Workdir(), f)
			if err != nil {
				return err
			}
			files = append(files, p)
		}
		sel, err := r.locate(ctx, st.Locator, false, timeout)
		if err != nil {
			return err
		}
		return timedOut(chromedp.Run(ctx, chromedp.SetUploadFiles(sel, files, chromedp.ByQuery)), "upload did not complete")
	case "wait":
		return r.wait(ctx, st, timeout)
	case "capture":
		return r.capture(ctx, st, timeout)
	case "screenshot":
		if err := r.screenshot(st.Name); err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("unknown action %q", st.Action)
}

// probe is what the page reports about a locator.
type probe struct {
	Count   int  `json:"count"`
	Visible bool `json:"visible"`
}

// probeLocator evaluates a locator once; the element it picks (the nth
// match) is tagged so chromedp's CSS queries can act on it.
func (r *stepRunner) probeLocator(ctx context.Context, loc *cases.Locator) (probe, string, error) {
	r.tags++
	id := strconv.Itoa(r.tags)
	lj, _ := json.Marshal(loc)
	expr := fmt.Sprintf(`(() => {
  const find = %s;
  const els = find(%s);
  const r = {count: els.length, visible: false};
  const el = els[%d];
  if (el) {
    const b = el.getBoundingClientRect(), st = getComputedStyle(el);
    r.visible = b.width > 0 && b.height > 0 && st.visibility !== "hidden" && st.display !== "none";
    el.setAttribute("data-wasmeval-id", %q);
  }
  return r;
})()`, locateJS, lj, loc.Nth, id)
	var p probe
	err := chromedp.Run(ctx, chromedp.Evaluate(expr, &p))
	return p, fmt.Sprintf(`[data-wasmeval-id="%s"]`, id), err
}

// locate waits until the locator matches (and, when asked, the element is
// visible), and returns a CSS selector for the element. Nothing matching
// fails the step with the locator in the message, never a hang.
func (r *stepRunner) locate(ctx context.Context, loc *cases.Locator, mustBeVisible bool, timeout time.Duration) (string, error) {
	var last probe
	for {
		p, sel, err := r.probeLocator(ctx, loc)
		if err == nil {
			last = p
			if p.Count > loc.Nth && (p.Visible || !mustBeVisible) {
				return sel, nil
			}
		} else if ctx.Err() == nil && !transientEvalError(err) {
			return "", fmt.Errorf("locator %s: %w", loc, err)
		}
		select {
		case <-ctx.Done():
			switch {
			case last.Count == 0:
				return "", fmt.Errorf("%w: no element matches %s within %s", errStepTimeout, loc, timeout)
			case last.Count <= loc.Nth:
				return "", fmt.Errorf("%w: %d elements match %s, fewer than nth=%d needs, within %s", errStepTimeout, last.Count, loc, loc.Nth, timeout)
			default:
				return "", fmt.Errorf("%w: the element matching %s is not visible within %s", errStepTimeout, loc, timeout)
			}
		case <-time.After(pollInterval):
		}
	}
}

// transientEvalError is an evaluation that failed because the page was
// navigating (its execution context went away); the next poll retries.
func transientEvalError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "context") || strings.Contains(msg, "Cannot find") || strings.Contains(msg, "navigat")
}

func (r *stepRunner) wait(ctx context.Context, st cases.Step, timeout time.Duration) error {
	if st.Duration > 0 {
		select {
		case <-time.After(st.Duration):
		case <-ctx.Done():
			return fmt.Errorf("%w: a pause of %s does not fit in %s", errStepTimeout, st.Duration, timeout)
		}
	}
	if st.URL != "" {
		for {
			var href string
			if err := chromedp.Run(ctx, chromedp.Evaluate(`location.href`, &href)); err == nil && strings.Contains(href, st.URL) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w: the URL did not come to contain %q within %s", errStepTimeout, st.URL, timeout)
			case <-time.After(pollInterval):
			}
		}
	}
	if st.Locator == nil {
		return nil
	}
	for {
		p, _, err := r.probeLocator(ctx, st.Locator)
		if err == nil {
			present := p.Count > st.Locator.Nth
			done := false
			switch st.State {
			case "visible":
				done = present && p.Visible
			case "hidden":
				done = !present || !p.Visible
			case "attached":
				done = present
			case "detached":
				done = !present
			}
			if done {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s did not become %s within %s", errStepTimeout, st.Locator, st.State, timeout)
		case <-time.After(pollInterval):
		}
	}
}

// capture reads a value from the page into the case's output. count and
// visible read the page as it is; the others wait for the element.
func (r *stepRunner) capture(ctx context.Context, st cases.Step, timeout time.Duration) error {
	switch st.Get {
	case "count", "visible":
		p, _, err := r.probeLocator(ctx, st.Locator)
		if err != nil {
			return fmt.Errorf("capture %s: %w", st.Locator, err)
		}
		if st.Get == "count" {
			r.captures[st.Name] = p.Count
		} else {
			r.captures[st.Name] = p.Count > st.Locator.Nth && p.Visible
		}
		return nil
	}
	sel, err := r.locate(ctx, st.Locator, false, timeout)
	if err != nil {
		return err
	}
	var read string
	switch st.Get {
	case "text":
		read = "el.innerText.trim()"
	case "html":
		read = "el.innerHTML"
	case "value":
		read = "el.value === undefined ? null : el.value"
	case "attribute":
		read = "el.getAttribute(" + jsString(st.Attribute) + ")"
	}
	var v any
	expr := fmt.Sprintf(`(() => { const el = document.querySelector(%s); return %s; })()`, jsString(sel), read)
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &v)); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: capture of %s did not complete within %s", errStepTimeout, st.Locator, timeout)
		}
		return fmt.Errorf("capture %s: %w", st.Locator, err)
	}
	r.captures[st.Name] = v
	return nil
}

// screenshotTimeout bounds taking one screenshot (a failed step's context
// is already spent, so screenshots get their own).
const screenshotTimeout = 5 * time.Second

// screenshot saves the viewport as <case>.<name>.png.
func (r *stepRunner) screenshot(name string) error {
	ctx, cancel := context.WithTimeout(r.tab, screenshotTimeout)
	defer cancel()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		r.artifactErr = joinErr(r.artifactErr, fmt.Sprintf("screenshot %s: %v", name, err))
		return fmt.Errorf("screenshot: %w", err)
	}
	file := fmt.Sprintf("%s.%s.png", safeName(r.caseID), safeName(name))
	rel, err := r.b.Artifacts.write(file, png)
	if err != nil {
		r.artifactErr = joinErr(r.artifactErr, fmt.Sprintf("screenshot %s: %v", name, err))
		return nil
	}
	if rel != "" {
		r.artifacts = append(r.artifacts, rel)
	}
	return nil
}

// keyOf maps Playwright key names to the characters chromedp sends.
func keyOf(name string) string {
	switch name {
	case "Enter":
		return kb.Enter
	case "Tab":
		return kb.Tab
	case "Escape":
		return kb.Escape
	case "Backspace":
		return kb.Backspace
	case "Delete":
		return kb.Delete
	case "ArrowUp":
		return kb.ArrowUp
	case "ArrowDown":
		return kb.ArrowDown
	case "ArrowLeft":
		return kb.ArrowLeft
	case "ArrowRight":
		return kb.ArrowRight
	case "Home":
		return kb.Home
	case "End":
		return kb.End
	case "Space":
		return " "
	}
	return name
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
