package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// judgesOllama serves the demo script with the judge models of
// fakes/ollama/testdata/judges.yaml in front.
func judgesOllama(t *testing.T) (*fakeollama.Server, string) {
	t.Helper()
	judges, err := fakeollama.LoadScript("../../fakes/ollama/testdata/judges.yaml")
	if err != nil {
		t.Fatal(err)
	}
	demo, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	demo.Models = append(demo.Models, judges.Models...)
	demo.Rules = append(judges.Rules, demo.Rules...)
	return fakeOllama(t, demo)
}

// judgedSuite writes a suite of three docs cases, two with a rubric (one
// beside a matcher), judged by judge unless it is "".
func judgedSuite(t *testing.T, judge string) string {
	t.Helper()
	defaults := ""
	if judge != "" {
		defaults = "  judge: {model: " + judge + ", options: {seed: 5}}\n"
	}
	text := `name: judged
servers: ` + serversFile(t, "docs") + `
models: [scripted-good]
defaults:
  system: "You answer questions about our restaurant. Use the tools to look things up."
  max_rounds: 4
  think: false
  options: {temperature: 0, seed: 42}
` + defaults + `cases:
  - id: dog
    ask: "Can I bring my dog?"
    expect:
      tool: search
      answer: {contains: terrace, judge: "says whether dogs are allowed, as the search result does"}
  - id: list-documents
    ask: "What documents can you search?"
    expect: {tool: list_documents, answer: {judge: "names only the documents the tool listed"}}
  - id: parking
    ask: "Is there parking near the restaurant?"
    expect: {tool: search}
`
	p := filepath.Join(t.TempDir(), "judged.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// judgeRun runs the judged suite into a fresh directory and returns it with
// its trials by case (repeat 0).
func judgeRun(t *testing.T, url, suite string, args ...string) (string, result, map[string]*record.Trial) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), append([]string{"run", suite, "--out", dir, "--ollama", url}, args...)...)
	byCase := map[string]*record.Trial{}
	if _, err := os.Stat(filepath.Join(dir, record.TrialsFile)); err == nil {
		for k, tr := range trialsByKey(t, dir) {
			if k.Repeat == 0 {
				byCase[k.CaseID] = tr
			}
		}
	}
	return dir, r, byCase
}

// runSummary reads a run's summary.json and returns its one row.
func runSummary(t *testing.T, dir string) *summary.ModelSummary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return summaryOf(t, string(b))
}

// TestRunJudges runs the judged suite with each scripted judge: the
// verdicts are recorded on the trials with the judge's model, seed and raw
// reply; the outcomes are the scorer's whatever the judge says; the judged
// rate counts the verdicts and leaves judge errors out; summary.json and
// the terminal report carry both.
func TestRunJudges(t *testing.T) {
	t.Parallel()
	fake, url := judgesOllama(t)
	for _, tc := range []struct {
		judge       string
		verdict     string // of both judged trials; "" for a judge error
		read        string
		k, n        int
		errs        int
		report      string
		attempts    int
		extraFlags  []string
		wantRequest bool
	}{
		{judge: "judge-pass", verdict: "pass", k: 2, n: 2, report: "judged by judge-pass", attempts: 1},
		{judge: "judge-fail", verdict: "fail", k: 0, n: 2, report: "judged: fail (2)\n    dog #0: the answer says more than the tool result\n", attempts: 1},
		{judge: "judge-fence", verdict: "fail", read: "code fence", k: 0, n: 2, attempts: 1},
		{judge: "judge-word", verdict: "pass", read: "verdict word", k: 2, n: 2, attempts: 1},
		{judge: "judge-garbled", errs: 2, report: "2 judge errors", attempts: 2, extraFlags: []string{"--retries", "1"}},
		{judge: "judge-down", errs: 2, report: "2 judge errors", attempts: 2, extraFlags: []string{"--retries", "1"}},
	} {
		t.Run(tc.judge, func(t *testing.T) {
			fake.Reset()
			dir, r, trials := judgeRun(t, url, judgedSuite(t, tc.judge), tc.extraFlags...)
			if r.err != nil {
				t.Fatalf("%v\n%s", r.err, r.stderr)
			}
			for _, id := range []string{"dog", "list-documents"} {
				tr := trials[id]
				jd := tr.Judged
				if tr.Score.Outcome != record.OutcomePass {
					t.Errorf("%s: outcome %s; the scripted model passes it whatever the judge says", id, tr.Score.Outcome)
				}
				if jd == nil || jd.Model != tc.judge || jd.Digest == "" || len(jd.Verdicts) != 1 || jd.Verdicts[0].Seed != 5 || jd.Verdicts[0].Raw == "" && tc.judge != "judge-down" {
					t.Fatalf("%s: judged %+v", id, jd)
				}
				v := jd.Verdicts[0]
				if jd.Verdict != tc.verdict || v.Read != tc.read || (tc.errs > 0) != (jd.Error != "") {
					t.Errorf("%s: verdict %q read %q error %q; want %q %q, error %v", id, jd.Verdict, v.Read, jd.Error, tc.verdict, tc.read, tc.errs > 0)
				}
				if v.Attempts+boolInt(v.Cached) == 0 || !v.Cached && v.Attempts != tc.attempts {
					t.Errorf("%s: %d attempts (cached %v), want %d", id, v.Attempts, v.Cached, tc.attempts)
				}
			}
			if trials["parking"].Judged != nil {
				t.Error("parking has no rubric but was judged")
			}
			m := runSummary(t, dir)
			if m.Judged.K != tc.k || m.Judged.N != tc.n || m.JudgeErrors != tc.errs || m.JudgeModel != tc.judge {
				t.Errorf("summary judged = %d/%d, %d judge errors, judge %q; want %d/%d, %d, %q", m.Judged.K, m.Judged.N, m.JudgeErrors, m.JudgeModel, tc.k, tc.n, tc.errs, tc.judge)
			}
			if m.Pass.K != 3 || m.Pass.N != 3 {
				t.Errorf("pass = %d/%d: the judge changed the pass rate", m.Pass.K, m.Pass.N)
			}
			if tc.report != "" && !strings.Contains(r.stdout, tc.report) {
				t.Errorf("the report lacks %q:\n%s", tc.report, r.stdout)
			}
			show := runCLI(t, context.Background(), "show", dir, "--case", "dog", "--color", "never")
			if !strings.Contains(show.stdout, "judged by "+tc.judge+` against "says whether dogs are allowed, as the search result does": `+cmpOr(tc.verdict, "judge error (not the model's failure)")) || !strings.Contains(show.stdout, "#1 seed 5 ") {
				t.Errorf("show lacks the judge's verdict:\n%s", show.stdout)
			}
			judgeReqs := 0
			for _, q := range fake.Requests() {
				if q.Chat != nil && q.Chat.Model == tc.judge {
					judgeReqs++
					if string(q.Chat.Format) == "" || q.Chat.Options["temperature"] != float64(0) {
						t.Errorf("judge request without format or temperature 0: %s", q.Body)
					}
				}
			}
			if judgeReqs == 0 {
				t.Error("no request reached the judge")
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
