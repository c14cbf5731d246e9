package view

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
)

// hostileText is what a suite, a case or a tool result may hold; nothing of
// it may run or become markup on any page of the viewer.
const hostileText = `<script>alert("xss")</script><img src=x onerror=alert(1)>`

// fakeRun is a run directory to write: passes[m][i] says whether model m's
// trial i passed (case c<i>, repeat 0).
type fakeRun struct {
	name, suite string
	start       time.Time
	models      []string
	passes      [][]bool
	cases       []string // case ids; default c0, c1, ...
	commit      string
	// running leaves the run being written: no summary, status running,
	// the store's lock held until the test ends (as by a live run).
	running bool
	// report writes report.html, as `run` does when it ends.
	report bool
	result string // every tool result
}

func (f fakeRun) caseID(i int) string {
	if i < len(f.cases) {
		return f.cases[i]
	}
	return fmt.Sprintf("c%d", i)
}

// write writes f into root/f.name through the store, as a run would, and
// returns the Writer of a running run (to add trials to).
func (f fakeRun) write(t testing.TB, root string) *store.Writer {
	t.Helper()
	dir := filepath.Join(root, f.name)
	run := &record.Run{Suite: record.RunSuite{Name: f.suite, Path: "/s/suite.yaml", Hash: "h"}, Start: f.start, Repeat: 1, MaxRounds: 4,
		Cases: map[string]string{}}
	if f.commit != "" {
		run.Commit = &record.RunCommit{SHA: f.commit, Source: "git"}
	}
	for _, m := range f.models {
		run.Models = append(run.Models, record.Model{Name: m, Capabilities: []string{"tools"}})
	}
	for i := range f.passes[0] {
		run.Cases[f.caseID(i)] = "h"
	}
	w, err := store.Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	for m, ps := range f.passes {
		for i, p := range ps {
			f.trial(t, w, f.models[m], i, p)
		}
	}
	if f.running {
		t.Cleanup(func() { w.Close() })
		return w
	}
	defer w.Close()
	if err := w.Update(func(r *record.Run) { r.Status, r.End = "complete", f.start.Add(time.Minute) }); err != nil {
		t.Fatal(err)
	}
	sum, err := runs.Summarize(w.Reader(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	if f.report {
		if err := record.WriteAtomicWith(filepath.Join(dir, record.HTMLFile), func(out io.Writer) error { return report.WriteRunHTML(out, w.Reader(), io.Discard) }); err != nil {
			t.Fatal(err)
		}
	}
	return nil
}

// trial writes model's trial of case i, passing or calling the wrong tool.
func (f fakeRun) trial(t testing.TB, w *store.Writer, model string, i int, pass bool) {
	t.Helper()
	sc := record.Score{Outcome: record.OutcomePass, CallExpected: true, ToolCorrect: true, ArgsCorrect: true, CallsToKnownTools: 1, ValidCalls: 1, Rounds: 2}
	if !pass {
		sc = record.Score{Outcome: record.OutcomeWrongTool, CallExpected: true, CallsToKnownTools: 1, ValidCalls: 1, Rounds: 2, Detail: "called " + f.result}
	}
	tr := &record.Trial{Model: model, CaseID: f.caseID(i), Attempts: 1, Start: f.start,
		Transcript: &record.Transcript{
			Messages: []record.Message{{Role: "user", Content: "q " + f.caseID(i)}, {Role: "tool", ToolName: "search", Content: f.result}},
			Answer:   f.result,
		},
		Score: sc}
	if err := w.Trials().Write(tr); err != nil {
		t.Fatal(err)
	}
}

func passes(k, n int) []bool {
	out := make([]bool, n)
	for i := range k {
		out[i] = true
	}
	return out
}

// testRuns writes a folder of runs: two suites over days, a hostile run, a
// running one, and a folder that is no run; it returns the folder and the
// running run's Writer.
func testRuns(t *testing.T) (string, *store.Writer) {
	t.Helper()
	root := t.TempDir()
	day := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, k := range [][2]int{{5, 7}, {6, 8}, {8, 9}} {
		fakeRun{name: fmt.Sprintf("weather-%d", i), suite: "weather", start: day.Add(time.Duration(i) * 24 * time.Hour),
			models: []string{"qwen3:4b", "llama3.2:3b"}, passes: [][]bool{passes(k[0], 10), passes(k[1]-3, 10)},
			commit: fmt.Sprintf("%x%032x", 0xc0ffee10+i, i), report: i == 0, result: "sunny"}.write(t, root)
	}
	fakeRun{name: "docs-0", suite: "docs", start: day.Add(36 * time.Hour), models: []string{"qwen3:4b"}, passes: [][]bool{passes(3, 4)}, result: "ok"}.write(t, root)
	fakeRun{name: "hostile", suite: hostileText, start: day.Add(80 * time.Hour), models: []string{"m" + hostileText}, passes: [][]bool{passes(1, 2)},
		cases: []string{hostileText, "c1"}, result: hostileText, report: true}.write(t, root)
	live := fakeRun{name: "live", suite: "weather", start: day.Add(96 * time.Hour), models: []string{"qwen3:4b"}, passes: [][]bool{passes(2, 3)}, running: true, result: "rain"}
	live.cases = []string{"c0", "c1", "c2"}
	w := live.write(t, root)
	// The live run plans 6 trials: three more cases than it has done.
	if err := w.Update(func(r *record.Run) {
		for _, c := range []string{"c3", "c4", "c5"} {
			r.Cases[c] = "h"
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "not-a-run"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "broken", record.RunFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, w
}

// addTrial adds a passing trial of case c to the live run.
func addTrial(t *testing.T, w *store.Writer, c string) {
	t.Helper()
	fakeRun{cases: []string{c}, result: "rain"}.trial(t, w, "qwen3:4b", 0, true)
}

// server serves the viewer over dirs on loopback until the test ends.
func server(t *testing.T, dirs ...string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(Handler(dirs, nil))
	t.Cleanup(s.Close)
	return s
}
