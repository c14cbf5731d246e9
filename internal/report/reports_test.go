package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
)

var update = flag.Bool("update", false, "rewrite the golden files from the fixture")

// fixture is one recorded run of cases/docs.yaml against the demo's two
// models, repeated twice (testdata/run.json and trials.jsonl).
func fixture(t *testing.T) (*record.Run, []*record.Trial) {
	t.Helper()
	meta, err := record.ReadRun("testdata")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", record.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := record.NewReader(f, "trials.jsonl")
	var trials []*record.Trial
	for r.Scan() {
		trials = append(trials, r.Trial())
	}
	if r.Err() != nil || len(r.Warnings) > 0 || len(trials) != 100 {
		t.Fatalf("fixture: %v %v, %d trials", r.Err(), r.Warnings, len(trials))
	}
	return meta, trials
}

func summarize(meta *record.Run, trials []*record.Trial) *summary.Summary {
	s := summary.NewSummarizer(meta.Suite.Name, meta.Models)
	for _, t := range trials {
		s.Add(t)
	}
	return s.Summary()
}

// gallery is the repository's reports/ folder: the whole reports of the
// fixture, one file per command and format, which -update rewrites.
const gallery = "../../reports/"

// golden compares got with the file at path (a gallery name, or under
// testdata for what is not a whole report) and, with -update, rewrites it.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	name := filepath.Base(path)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, cmp.Diff(string(want), string(got)))
	}
}

func trial(model, id string, repeat int, outcome string, callExpected bool) *record.Trial {
	return &record.Trial{
		Model: model, CaseID: id, Repeat: repeat,
		Transcript: &record.Transcript{Wall: time.Second, Rounds: []record.Round{{Wall: time.Second,
			Metrics: record.Metrics{PromptEvalCount: 100, EvalCount: 10, EvalDuration: time.Second}}}},
		Score: record.Score{Outcome: outcome, CallExpected: callExpected, ToolCorrect: outcome == record.OutcomePass,
			ArgsCorrect: outcome == record.OutcomePass, Rounds: 1},
	}
}

func TestGoldenTerminal(t *testing.T) {
	meta, trials := fixture(t)
	var b bytes.Buffer
	if err := WriteTerminal(&b, summarize(meta, trials)); err != nil {
		t.Fatal(err)
	}
	golden(t, gallery+"run.txt", b.Bytes())
}

// TestServerRestarts: restarts recorded in run.json reach summary.json and
// the terminal report; a run without any shows neither (see the goldens).
func TestServerRestarts(t *testing.T) {
	meta, trials := fixture(t)
	sum := summarize(meta, trials).WithRestarts([]record.RunServer{
		{Name: "mem", Restarts: 1}, {Name: "docs"}, {Name: "fs", Restarts: 2},
	})
	var term, js bytes.Buffer
	if err := WriteTerminal(&term, sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), "\nserver restarts: fs 2, mem 1\n") {
		t.Errorf("terminal report lacks the restarts line:\n%s", term.String())
	}
	if err := summary.WriteJSON(&js, sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"server_restarts": {
    "fs": 2,
    "mem": 1
  }`) {
		t.Errorf("summary.json lacks server_restarts:\n%s", js.String())
	}
}

// TestRowsPerModelAndVariant: trials of two variants of one model make two
// rows, the base first, each with its own cases and tags; the terminal
// report names them "model (variant)". A run without variants keeps bare
// model names (the goldens).
func TestRowsPerModelAndVariant(t *testing.T) {
	p, f, infra := record.OutcomePass, record.OutcomeWrongTool, record.OutcomeInfraError
	add := func(tr *record.Trial, variant string, tags ...string) *record.Trial {
		tr.Variant, tr.Tags = variant, tags
		return tr
	}
	s := summary.NewSummarizer("x", []record.Model{{Name: "m", Load: 2 * time.Second}, {Name: "only-new"}})
	for _, tr := range []*record.Trial{
		add(trial("m", "a", 0, f, true), "terse", "t1"),
		add(trial("m", "a", 0, p, true), "", "t1"),
		add(trial("m", "a", 1, p, true), "", "t1"),
		add(trial("m", "b", 0, f, true), "", "t1", "t2"),
		add(trial("m", "b", 1, infra, true), "", "t2"),
		add(trial("only-new", "a", 0, p, true), "terse"),
	} {
		s.Add(tr)
	}
	sum := s.Summary()
	var labels []string
	for _, m := range sum.Models {
		labels = append(labels, m.Label(sum.HasVariants()))
	}
	if got := strings.Join(labels, ", "); got != "m (base), m (terse), only-new (terse)" {
		t.Fatalf("rows %s", got)
	}
	base := sum.Models[0]
	if base.Variant != "" || base.Trials != 4 || base.Pass.K != 2 || base.Pass.N != 3 || base.WarmupSeconds != 2 || sum.Models[1].WarmupSeconds != 2 {
		t.Errorf("base row %+v", base)
	}
	wantCases := []summary.CaseResult{
		{ID: "a", Pass: rate(2, 2), Outcomes: map[string]int{p: 2}},
		{ID: "b", Pass: rate(0, 1), Infra: 1, Outcomes: map[string]int{f: 1, infra: 1}},
	}
	// Rates compare by their counts; the clusters are stats' to test.
	counts := cmp.Comparer(func(a, b stats.Rate) bool { return a.K == b.K && a.N == b.N })
	if d := cmp.Diff(wantCases, base.Cases, counts); d != "" {
		t.Errorf("base cases (-want +got):\n%s", d)
	}
	wantTags := []summary.TagResult{
		{Tag: "t1", Cases: 2, Pass: rate(2, 3), Outcomes: map[string]int{p: 2, f: 1}},
		{Tag: "t2", Cases: 1, Pass: rate(0, 1), Infra: 1, Outcomes: map[string]int{f: 1, infra: 1}},
	}
	if d := cmp.Diff(wantTags, base.Tags, counts); d != "" {
		t.Errorf("base tags (-want +got):\n%s", d)
	}
	if terse := sum.Models[1]; terse.Variant != "terse" || terse.Trials != 1 || terse.Pass.K != 0 || len(terse.Cases) != 1 {
		t.Errorf("terse row %+v", terse)
	}
	var b bytes.Buffer
	if err := WriteTerminal(&b, sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"│ m (base)  ", "│ m (terse) ", "\nFailures of m (terse):\n", "m (base): 4 trials (1 infrastructure error)",
		"m (base): 1 trial hit an infrastructure error", "m and only-new at terse (2 rows): only 1 scored trial:"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("terminal report lacks %q:\n%s", want, b.String())
		}
	}
	var js bytes.Buffer
	summary.WriteJSON(&js, sum)
	if strings.Count(js.String(), `"variant": "terse"`) != 2 || strings.Contains(js.String(), `"variant": ""`) {
		t.Errorf("summary.json variants:\n%s", js.String())
	}
}

func rate(k, n int) stats.Rate { return stats.Rate{K: k, N: n} }
