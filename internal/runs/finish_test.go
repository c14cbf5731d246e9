package runs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/summary"
)

func loadSuite(t *testing.T) *suite.Suite {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	text := "name: tiny\nservers: none.json\nmodels: [m]\ncases:\n  - id: a\n    ask: hi\n    expect: {no_tool: true}\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := suite.Load(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// reporter records what Finish asked of it; reports fails with failReports.
type reporter struct {
	calls       []string
	failReports error
}

func (r *reporter) Reports(run *store.Reader, sum *summary.Summary, failed func(error) error) error {
	r.calls = append(r.calls, "reports "+run.Run.Status)
	if sum == nil || sum.Suite != "tiny" {
		r.calls = append(r.calls, "no summary")
	}
	if r.failReports != nil {
		return failed(r.failReports)
	}
	return nil
}

func (r *reporter) JUnit(run *store.Reader, path string) error {
	r.calls = append(r.calls, "junit "+path)
	return nil
}

func (r *reporter) Gates(_ context.Context, run *store.Reader, s *suite.Suite) error {
	r.calls = append(r.calls, "gates "+s.Name)
	return nil
}

// TestMetaAndFinishMakeARunDirectory builds a run directory as a program
// driving the runner itself would (tgtest): Meta's run.json, then Finish.
func TestMetaAndFinishMakeARunDirectory(t *testing.T) {
	s := loadSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	rule := stats.SPRT{Threshold: 0.8}.Filled()
	meta := &Meta{Suite: s, Harness: "test", Ollama: record.RunOllama{URL: "http://x"}, Repeat: 2, Parallel: 1,
		Models: []record.Model{{Name: "m"}}, StopEarly: &rule}
	w, err := store.Create(dir, meta.New())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rep := &reporter{}
	end := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	err = Finish(context.Background(), w, &Ending{End: end, Saved: 3}, &FinishOptions{Reporter: rep, JUnit: "j.xml", Suite: s})
	if err != nil {
		t.Fatal(err)
	}
	got, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.StatusComplete || got.Harness != "test" || got.Suite.Name != "tiny" || !filepath.IsAbs(got.Suite.Path) ||
		got.Repeat != 2 || len(got.Models) != 1 || !got.End.Equal(end) || got.StopEarly == nil || got.StopEarly.TrialsSaved != 3 ||
		got.StopEarly.Threshold != 0.8 || len(got.Cases) != 1 {
		t.Errorf("run.json: %+v", got)
	}
	if strings.Join(rep.calls, "; ") != "reports complete; junit j.xml; gates tiny" {
		t.Errorf("reporter: %q", rep.calls)
	}
}

// newRun is a fresh run of loadSuite's suite, closed when the test ends;
// dir is its directory.
func newRun(t *testing.T) (*suite.Suite, *store.Writer, string) {
	t.Helper()
	s := loadSuite(t)
	dir := filepath.Join(t.TempDir(), "run")
	w, err := store.Create(dir, (&Meta{Suite: s, Parallel: 1}).New())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return s, w, dir
}

// TestFinishSaysHowToResume: a run Ollama stopped is interrupted, says how
// to finish it, writes its reports and JUnit (a failing report is only a
// warning then) and judges no gate; its error is an InfraError.
func TestFinishSaysHowToResume(t *testing.T) {
	s, w, dir := newRun(t)
	rep := &reporter{failReports: errors.New("disk full")}
	var stderr strings.Builder
	down := &runner.OllamaDownError{Err: errors.New("refused")}
	err := Finish(context.Background(), w, &Ending{Err: down}, &FinishOptions{Reporter: rep, JUnit: "j.xml", Suite: s, Stderr: &stderr})
	var ie *InfraError
	if !errors.As(err, &ie) || !errors.Is(err, down) {
		t.Errorf("err %v (%T)", err, err)
	}
	if w.Run().Status != store.StatusInterrupted || w.Run().Error == "" || w.Run().End.IsZero() {
		t.Errorf("run.json: status %q error %q end %v", w.Run().Status, w.Run().Error, w.Run().End)
	}
	want := "toolgrade: warning: disk full\ntoolgrade: stopped; what finished is in " + dir + ": `toolgrade run --resume " + dir + "` finishes it once Ollama answers\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	if strings.Join(rep.calls, "; ") != "reports interrupted; junit j.xml" {
		t.Errorf("reporter: %q", rep.calls)
	}
}

// TestARunWhoseReportsFailedIsNotComplete: every trial ran, but the reports
// could not be written: run.json says failed, and why, and the error is
// returned; no gate is judged.
func TestARunWhoseReportsFailedIsNotComplete(t *testing.T) {
	s, w, dir := newRun(t)
	rep := &reporter{failReports: errors.New("trials.jsonl:7: a line longer than 64 MiB")}
	err := Finish(context.Background(), w, nil, &FinishOptions{Reporter: rep, Suite: s})
	if err == nil || !strings.Contains(err.Error(), "trials.jsonl:7") {
		t.Errorf("err = %v", err)
	}
	got, rerr := record.ReadRun(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if got.Status != store.StatusFailed || got.Error != "the reports could not be written: trials.jsonl:7: a line longer than 64 MiB" {
		t.Errorf("run.json: status %q error %q", got.Status, got.Error)
	}
	if strings.Join(rep.calls, "; ") != "reports complete" {
		t.Errorf("reporter: %q", rep.calls)
	}
}
