package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
)

// TestJudgeModelRequired: a rubric without a judge model anywhere stops
// the run before any trial, naming where the rubric is and what to do;
// --judge-model supplies one, recorded so a resume judges alike; a judge
// model that is not pulled is named with the flag.
func TestJudgeModelRequired(t *testing.T) {
	t.Parallel()
	fake, url := judgesOllama(t)
	suite := judgedSuite(t, "")
	_, r, _ := judgeRun(t, url, suite)
	if r.code != exitUsage || !strings.Contains(errText(r), "judged.yaml:14:42: ") ||
		!strings.Contains(errText(r), "cases[0].expect.answer.judge: a rubric needs a judge model: set defaults.judge.model in the suite, or give run --judge-model MODEL") {
		t.Fatalf("exit %d: %s", r.code, errText(r))
	}
	for _, q := range fake.Requests() {
		if q.Chat != nil {
			t.Fatalf("a chat reached Ollama before the suite was refused: %s", q.Body)
		}
	}
	dir, r, trials := judgeRun(t, url, suite, "--judge-model", "judge-pass", "--judge-repeat", "3")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if jd := trials["dog"].Judged; jd == nil || jd.Model != "judge-pass" || len(jd.Verdicts) != 3 || jd.Verdict != "pass" {
		t.Fatalf("judged %+v", jd)
	}
	if want := "toolgrade: the answers of 2 cases with a rubric are judged by judge-pass, 3 times each (the majority decides; a tie fails)"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	meta, err := record.ReadRun(dir)
	if err != nil || meta.Overrides == nil || meta.Overrides.JudgeModel != "judge-pass" || meta.Overrides.JudgeRepeat != 3 {
		t.Errorf("run.json overrides %+v (%v)", meta.Overrides, err)
	}
	if j := meta.Judge; j == nil || j.Model != "judge-pass" || j.Digest == "" || j.Repeat != 3 {
		t.Errorf("run.json judge %+v", j)
	}
	_, r, _ = judgeRun(t, url, suite, "--judge-model", "judge-nope")
	if r.code != exitUsage || !strings.Contains(errText(r), "--judge-model: the judge model:") || !strings.Contains(errText(r), "judge-nope") {
		t.Errorf("a judge model not pulled: exit %d: %s", r.code, errText(r))
	}
	_, r, _ = judgeRun(t, url, suite, "--judge-model", "judge-pass", "--judge-repeat", "0")
	if r.code != exitUsage || !strings.Contains(errText(r), "--judge-repeat 0: must be from 1 to 25") {
		t.Errorf("--judge-repeat 0: exit %d: %s", r.code, errText(r))
	}
}

// TestJudgeRepeatAgreementAndGates: with --judge-repeat 3 each answer is
// judged three times with seeds 5, 6, 7 and the cache sends each distinct
// request once; the judge's self-agreement is reported and gated, and the
// judged rate is gated like any rate.
func TestJudgeRepeatAgreementAndGates(t *testing.T) {
	t.Parallel()
	fake, url := judgesOllama(t)
	dir, r, trials := judgeRun(t, url, judgedSuite(t, "judge-fail"), "--judge-repeat", "3", "--repeat", "2",
		"--gate", "judge_agreement>=0.9", "--gate", "judged>=0.5")
	if r.code != exitGate {
		t.Fatalf("exit %d (%v), want %d (the judged gate fails)\n%s", r.code, r.err, exitGate, r.stderr)
	}
	for _, want := range []string{
		"gate held: scripted-good judge_agreement 100% [34–100] >= 90%",
		"gate failed: scripted-good judged 0% [0–66] < 50%",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	jd := trials["dog"].Judged
	if len(jd.Verdicts) != 3 || jd.Verdicts[2].Seed != 7 || jd.Verdict != "fail" {
		t.Fatalf("judged %+v", jd)
	}
	m := runSummary(t, dir)
	if m.JudgeAgreement.K != 4 || m.JudgeAgreement.N != 4 || m.Judged.N != 4 {
		t.Errorf("agreement %d/%d, judged n %d; want 4/4 and 4 (2 cases × 2 repeats)", m.JudgeAgreement.K, m.JudgeAgreement.N, m.Judged.N)
	}
	if !strings.Contains(r.stdout, "judge self-agreement 100% [34–100]: every verdict agreed on 4 of 4 answers judged more than once") {
		t.Errorf("the report lacks the self-agreement:\n%s", r.stdout)
	}
	// The scripted model answers both repeats alike: the second repeat's
	// judgements are the first's, from the cache.
	sent := 0
	for _, q := range fake.Requests() {
		if q.Chat != nil && q.Chat.Model == "judge-fail" {
			sent++
		}
	}
	if sent != 6 {
		t.Errorf("%d judge requests; want 2 answers × 3 seeds, the repeats' from the cache", sent)
	}
	// report rebuilds the same from the directory, offline.
	rep := runCLI(t, context.Background(), "report", dir, "--gate", "judge_agreement>=0.9")
	if rep.err != nil || !strings.Contains(rep.stdout, "judged by judge-fail: 0 of 4 answers pass their rubric") {
		t.Errorf("report: %v\n%s\n%s", rep.err, rep.stdout, rep.stderr)
	}
	junit := runCLI(t, context.Background(), "report", dir, "--format", "junit")
	if !strings.Contains(junit.stdout, "judged: 0/2 answers pass the rubric") || strings.Contains(junit.stdout, "<failure") {
		t.Errorf("JUnit: the judged line is missing, or a verdict failed a test:\n%s", junit.stdout)
	}
	if ch := runCLI(t, context.Background(), "choose", dir); !strings.Contains(ch.stdout, "│ Judged") || !strings.Contains(ch.stdout, "0% [0–66]") {
		t.Errorf("choose lacks the judged column: %v\n%s\n%s", ch.err, ch.stdout, ch.stderr)
	}
	md := runCLI(t, context.Background(), "report", dir, "--format", "markdown")
	if !strings.Contains(md.stdout, "| Judged |") || !strings.Contains(md.stdout, "judged by judge-fail") {
		t.Errorf("markdown report lacks the judged column or line:\n%s", md.stdout)
	}
}

// TestCompareJudges: the same model judged by a passing and a failing
// judge: compare pairs the judged rate like any other, while pass is
// unchanged. Its 8 lost pairs are 2 judged cases whose 4 repeats agree: 2
// observations, too few for any verdict (a case is the unit of evidence).
func TestCompareJudges(t *testing.T) {
	t.Parallel()
	_, url := judgesOllama(t)
	base, r, _ := judgeRun(t, url, judgedSuite(t, "judge-pass"), "--repeat", "4")
	if r.err != nil {
		t.Fatal(r.err, r.stderr)
	}
	cur, r, _ := judgeRun(t, url, judgedSuite(t, "judge-fail"), "--repeat", "4")
	if r.err != nil {
		t.Fatal(r.err, r.stderr)
	}
	c := compareJSON(t, base, cur)
	g := c.Groups[0]
	j, p := g.Rate(metric.Judged), g.Rate(metric.Pass)
	if j == nil || j.Rate.Base.K != 8 || j.Rate.Current.K != 0 || j.Worse != 8 || j.Verdict != compare.Same || !j.TooFew || j.P != 0.5 ||
		j.Evidence.Cases != 2 {
		t.Fatalf("judged row %+v", j)
	}
	if p.Delta != 0 || p.Verdict == compare.Worse {
		t.Errorf("pass row %+v: the judge changed pass", p)
	}
	if !slices.ContainsFunc(c.Drift, func(d compare.Drift) bool {
		return d.Field == "judge model" && d.Base == "judge-pass" && d.Current == "judge-fail"
	}) {
		t.Errorf("the drift does not name the judges: %+v", c.Drift)
	}
	text := runCLI(t, context.Background(), "compare", base, cur)
	if !strings.Contains(text.stdout, "judged") {
		t.Errorf("compare's table lacks the judged row:\n%s", text.stdout)
	}
}

// TestRescoreJudged: rescore keeps the recorded verdicts without asking any
// model; a changed rubric makes them stale (out of the judged rate, said
// on stderr and in the report); --rejudge judges them again with the judge
// model; a rubric removed drops them.
func TestRescoreJudged(t *testing.T) {
	t.Parallel()
	fake, url := judgesOllama(t)
	suite := judgedSuite(t, "judge-pass")
	dir, r, before := judgeRun(t, url, suite)
	if r.err != nil {
		t.Fatal(r.err, r.stderr)
	}
	fake.Reset()
	offline := func(t *testing.T, suite string, args ...string) (string, result) {
		out := filepath.Join(t.TempDir(), "rescored")
		r := runCLI(t, context.Background(), append([]string{"rescore", dir, "--suite", suite, "--out", out}, args...)...)
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.stderr)
		}
		return out, r
	}
	t.Run("kept", func(t *testing.T) {
		out, _ := offline(t, suite)
		got := trialsByKey(t, out)
		for k, tr := range got {
			if (tr.Judged == nil) != (before[k.CaseID].Judged == nil) || tr.Judged != nil && (tr.Judged.Verdict != "pass" || tr.Judged.Stale) {
				t.Errorf("%v: judged %+v", k, tr.Judged)
			}
		}
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("rescore sent %d requests; it is offline", n)
		}
	})
	edited := editedSuite(t, suite, "names only the documents the tool listed", "names the documents and their sizes")
	t.Run("stale", func(t *testing.T) {
		out, r := offline(t, edited)
		if !strings.Contains(r.stderr, "case list-documents: its rubric changed: 1 verdict judged against the old one is stale, left out of the judged rate (rescore --rejudge judges them again)") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
		if !strings.Contains(r.stdout, "1 stale verdict") {
			t.Errorf("report lacks the stale verdict:\n%s", r.stdout)
		}
		m := runSummary(t, out)
		if m.Judged.N != 1 || m.JudgeStale != 1 {
			t.Errorf("judged n %d, stale %d; want 1 and 1", m.Judged.N, m.JudgeStale)
		}
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("rescore sent %d requests; it is offline", n)
		}
	})
	t.Run("rejudge", func(t *testing.T) {
		out, r := offline(t, edited, "--rejudge", "--ollama", url, "--judge-model", "judge-fail")
		if !strings.Contains(r.stderr, "judged 2 answers again with judge-fail") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
		got := trialsByKey(t, out)
		for _, tr := range got {
			if tr.CaseID == "list-documents" && (tr.Judged == nil || tr.Judged.Rubric != "names the documents and their sizes" || tr.Judged.Verdict != "fail" || tr.Judged.Stale) {
				t.Errorf("rejudged %+v", tr.Judged)
			}
		}
		meta, err := record.ReadRun(out)
		if err != nil || meta.Rescored.Rejudged != 2 || meta.Rescored.JudgeModel != "judge-fail" {
			t.Errorf("run.json rescored %+v (%v)", meta.Rescored, err)
		}
		if m := runSummary(t, out); m.Judged.N != 2 || m.Judged.K != 0 || m.JudgeStale != 0 {
			t.Errorf("judged %d/%d, stale %d", m.Judged.K, m.Judged.N, m.JudgeStale)
		}
	})
	t.Run("rubric removed", func(t *testing.T) {
		gone := editedSuite(t, suite, `answer: {contains: terrace, judge: "says whether dogs are allowed, as the search result does"}`, "answer: {contains: terrace}")
		out, r := offline(t, gone)
		if !strings.Contains(r.stderr, "case dog no longer has a rubric: 1 verdict dropped") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
		if tr := trialsByKey(t, out)[record.TrialKey{Model: "scripted-good", CaseID: "dog"}]; tr.Judged != nil {
			t.Errorf("dog still judged: %+v", tr.Judged)
		}
	})
	t.Run("needs rejudge", func(t *testing.T) {
		r := runCLI(t, context.Background(), "rescore", dir, "--suite", suite, "--judge-model", "judge-fail")
		if r.code != exitUsage || !strings.Contains(errText(r), "--judge-model and --ollama need --rejudge") {
			t.Errorf("exit %d: %s", r.code, errText(r))
		}
	})
	if _, err := os.Stat(filepath.Join(dir, record.TrialsFile)); err != nil {
		t.Error(err)
	}
}

// errText is what the command would print of its error, after its stderr.
func errText(r result) string {
	if r.err == nil {
		return r.stderr
	}
	return r.stderr + r.err.Error()
}

// TestJudgeDisagreesWithItself: a judge whose verdict changes with the
// seed (the fake's judge-flaky: pass at seed 5, fail at 6 and 7) agrees
// with itself on no answer, its majority fails them, and a gate on its
// self-agreement fails the run.
func TestJudgeDisagreesWithItself(t *testing.T) {
	t.Parallel()
	_, url := judgesOllama(t)
	_, r, trials := judgeRun(t, url, judgedSuite(t, "judge-flaky"), "--judge-repeat", "3", "--gate", "judge_agreement>=0.9")
	if r.code != exitGate {
		t.Fatalf("exit %d (%v), want %d\n%s", r.code, r.err, exitGate, r.stderr)
	}
	if want := "gate failed: scripted-good judge_agreement 0% [0–66] < 90%"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	jd := trials["dog"].Judged
	if jd == nil || len(jd.Verdicts) != 3 || jd.Verdicts[0].Verdict != "pass" || jd.Verdicts[1].Verdict != "fail" || jd.Verdict != "fail" {
		t.Fatalf("judged %+v", jd)
	}
}
