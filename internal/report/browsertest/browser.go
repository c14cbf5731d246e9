// Package browsertest starts Debian's headless Chromium for tests through
// chromedp, and guarantees that it is gone when the test ends.
package browsertest

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Binary is the Chromium executable on PATH ("chromium", as Debian's
// package installs it, or "chromium-browser"); "" when there is none.
func Binary() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts headless Chromium with a temporary profile and returns a
// browser context for chromedp.Run. The test is skipped under -short
// (starting Chromium takes about a second of CPU, and what the page does
// only a browser shows), and fails when Chromium is missing. The browser
// and its children are killed when the test ends.
func New(tb testing.TB) context.Context {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: skipping the browser test (slow: it starts Chromium)")
	}
	bin := Binary()
	if bin == "" {
		tb.Fatal("chromium is not on PATH: install chromium (.ci/run does: apt-get install -y chromium)")
	}
	profile, err := os.MkdirTemp("", "toolgrade-chromium-*")
	if err != nil {
		tb.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1360, 1000),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("allow-file-access-from-files", false),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	// Start the browser now, so a failure to launch is this call's.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		reap(profile)
		os.RemoveAll(profile)
		tb.Fatalf("starting %s: %v", bin, err)
	}
	tb.Cleanup(func() {
		// Cancel closes the browser and waits for its main process; its
		// helpers (zygote, renderers, crashpad) exit a moment later. They
		// are ours when their command line names our profile.
		cancel()
		cancelAlloc()
		if left := reap(profile); len(left) > 0 {
			tb.Errorf("chromium processes %v outlived the test and were killed", left)
		}
		os.RemoveAll(profile)
	})
	return ctx
}

// Page is what an opened page did: every request it sent and every
// JavaScript dialog (alert, confirm, prompt) it opened.
type Page struct {
	mu       sync.Mutex
	requests []string
	dialogs  []string
}

// Requests returns the URLs the page requested, in order.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// Dialogs returns the messages of the dialogs the page opened.
func (p *Page) Dialogs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.dialogs)
}

// Open loads the file at path over file:// in the browser of ctx, recording
// its requests and dialogs from before the navigation on, and waits until
// the document has loaded.
func Open(tb testing.TB, ctx context.Context, path string) *Page {
	tb.Helper()
	p := &Page{}
	err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			p.requests = append(p.requests, e.Request.URL)
		case *page.EventJavascriptDialogOpening:
			p.dialogs = append(p.dialogs, string(e.Type)+": "+e.Message)
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(FileURL(abs))); err != nil {
		tb.Fatalf("opening %s: %v", abs, err)
	}
	return p
}

// FileURL is the file:// URL of an absolute path.
func FileURL(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// Screenshot saves a full-page PNG of the page of ctx as name in the folder
// $TOOLGRADE_SCREENSHOTS (or the test's temporary folder) and logs its path.
func Screenshot(tb testing.TB, ctx context.Context, name string) string {
	tb.Helper()
	dir := os.Getenv("TOOLGRADE_SCREENSHOTS")
	if dir == "" {
		dir = tb.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshot: %s", path)
	return path
}

// ScreenshotOf saves a PNG of the first element matching the CSS selector
// sel, as Screenshot does for the whole page.
func ScreenshotOf(tb testing.TB, ctx context.Context, sel, name string) string {
	tb.Helper()
	dir := os.Getenv("TOOLGRADE_SCREENSHOTS")
	if dir == "" {
		dir = tb.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	buf, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		tb.Fatalf("screenshot %s of %s: %v", name, sel, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshot: %s", path)
	return path
}

// reap waits up to 10 seconds for the processes whose command line names
// profile to exit, then kills those left, and returns their pids.
func reap(profile string) []int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := processesNaming(profile)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			return pids
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesNaming lists the processes whose command line contains s.
func processesNaming(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
