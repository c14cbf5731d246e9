package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// chat is a judge model in Go: reply decides each answer from the request;
// an error fails it. It counts the requests and keeps the last.
type chat struct {
	mu    sync.Mutex
	n     atomic.Int32
	last  *api.ChatRequest
	reply func(req *api.ChatRequest) (string, error)
}

func (c *chat) Chat(_ context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	c.n.Add(1)
	c.mu.Lock()
	c.last = req
	c.mu.Unlock()
	s, err := c.reply(req)
	if err != nil {
		return err
	}
	// Two chunks, as a stream.
	half := len(s) / 2
	if err := fn(api.ChatResponse{Message: api.Message{Content: s[:half]}}); err != nil {
		return err
	}
	return fn(api.ChatResponse{Message: api.Message{Content: s[half:]}, Done: true})
}

func trial(answer string) *record.Trial {
	return &record.Trial{Score: record.Score{Outcome: record.OutcomePass}, Transcript: &record.Transcript{
		Messages: []record.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "When are you open?"}},
		Rounds:   []record.Round{{Executions: []record.Execution{{Name: "read_file", Arguments: []byte(`{"path":"hours.txt"}`), Result: "Mon-Fri 9-17"}}}},
		Answer:   answer,
	}}
}

func rubricCase(text string) *suite.Case {
	return &suite.Case{ID: "hours", Expect: suite.Expect{Judge: &suite.Rubric{Text: text}}}
}

func noSleep(context.Context, time.Duration) error { return nil }

// TestGradeRequest: the request carries the rubric, the question, the
// tool results and the answer, the structured-output schema, temperature 0
// and the seed; the verdict is recorded with the raw reply.
func TestGradeRequest(t *testing.T) {
	c := &chat{reply: func(*api.ChatRequest) (string, error) { return `{"verdict":"pass","reason":"states the hours"}`, nil }}
	j := &Judge{Chat: c, Model: "judge-pass", Digest: "sha", Options: map[string]any{"seed": int64(7), "num_ctx": int64(4096)}}
	tr := trial("We are open Mon-Fri 9-17.")
	if err := j.Grade(t.Context(), rubricCase("grounded in the hours file"), tr); err != nil {
		t.Fatal(err)
	}
	jd := tr.Judged
	if jd == nil || jd.Verdict != "pass" || len(jd.Verdicts) != 1 || jd.Verdicts[0].Reason != "states the hours" || jd.Verdicts[0].Seed != 7 ||
		jd.Model != "judge-pass" || jd.Digest != "sha" || jd.Rubric != "grounded in the hours file" || jd.Verdicts[0].Raw == "" {
		t.Fatalf("judged = %+v", jd)
	}
	req := c.last
	user := req.Messages[1].Content
	for _, want := range []string{"When are you open?", `read_file({"path":"hours.txt"}) returned:`, "Mon-Fri 9-17", "We are open Mon-Fri 9-17.", "grounded in the hours file"} {
		if !strings.Contains(user, want) {
			t.Errorf("the judge's prompt lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "be brief") {
		t.Error("the judge's prompt shows the model's system prompt")
	}
	if req.Options["temperature"] != 0 || req.Options["seed"] != int64(7) || req.Options["num_ctx"] != int64(4096) || string(req.Format) != Format {
		t.Errorf("options %v, format %s", req.Options, req.Format)
	}
}

// TestGradeSkips: no rubric, no answer, or an infrastructure error: no
// request, no verdict.
func TestGradeSkips(t *testing.T) {
	c := &chat{reply: func(*api.ChatRequest) (string, error) { return `{"verdict":"pass"}`, nil }}
	j := &Judge{Chat: c, Model: "m"}
	infra := trial("x")
	infra.Score.Outcome = record.OutcomeInfraError
	for _, tc := range []struct {
		c  *suite.Case
		tr *record.Trial
	}{{&suite.Case{}, trial("an answer")}, {rubricCase("r"), trial("  ")}, {rubricCase("r"), infra}} {
		if err := j.Grade(t.Context(), tc.c, tc.tr); err != nil || tc.tr.Judged != nil {
			t.Errorf("Grade judged %+v (%v)", tc.tr.Judged, err)
		}
	}
	if n := c.n.Load(); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

// TestRepeatMajority: k judgements with seeds base..base+k-1, the verdict
// their majority, a tie failing, and agreement only when all agree.
func TestRepeatMajority(t *testing.T) {
	// A judge that passes on even seeds and fails on odd ones.
	c := &chat{reply: func(req *api.ChatRequest) (string, error) {
		if req.Options["seed"].(int64)%2 == 0 {
			return `{"verdict":"pass","reason":"even"}`, nil
		}
		return `{"verdict":"fail","reason":"odd"}`, nil
	}}
	for _, tc := range []struct {
		repeat  int
		verdict string
		agree   bool
	}{{1, "pass", false}, {2, "fail", false}, {3, "pass", false}} {
		j := &Judge{Chat: c, Model: "m", Repeat: tc.repeat}
		tr := trial("a")
		_ = j.Grade(t.Context(), rubricCase("r"), tr)
		jd := tr.Judged
		if len(jd.Verdicts) != tc.repeat || jd.Verdict != tc.verdict {
			t.Errorf("repeat %d: %d verdicts, majority %s; want %s", tc.repeat, len(jd.Verdicts), jd.Verdict, tc.verdict)
		}
		for i, v := range jd.Verdicts {
			if v.Seed != int64(i) {
				t.Errorf("repeat %d: verdict %d has seed %d", tc.repeat, i, v.Seed)
			}
		}
		j2 := record.Judge(tr)
		if j2.JudgeAgreement.Defined != (tc.repeat > 1) || j2.JudgeAgreement.OK != tc.agree {
			t.Errorf("repeat %d: agreement %+v", tc.repeat, j2.JudgeAgreement)
		}
	}
}

// TestCache: identical requests are sent once, even at the same time; a
// different answer is a different request.
func TestCache(t *testing.T) {
	release := make(chan struct{})
	c := &chat{reply: func(*api.ChatRequest) (string, error) { <-release; return `{"verdict":"pass","reason":"ok"}`, nil }}
	j := &Judge{Chat: c, Model: "m"}
	var wg sync.WaitGroup
	trials := make([]*record.Trial, 4)
	for i := range trials {
		trials[i] = trial("same answer")
		wg.Go(func() { _ = j.Grade(t.Context(), rubricCase("r"), trials[i]) })
	}
	close(release)
	wg.Wait()
	cached := 0
	for _, tr := range trials {
		if tr.Judged.Verdict != "pass" {
			t.Errorf("verdict %+v", tr.Judged)
		}
		if tr.Judged.Verdicts[0].Cached {
			cached++
		}
	}
	if n := c.n.Load(); n != 1 || cached != 3 {
		t.Errorf("%d requests, %d cached; want 1 and 3", n, cached)
	}
	_ = j.Grade(t.Context(), rubricCase("r"), trial("another answer"))
	if n := c.n.Load(); n != 2 {
		t.Errorf("%d requests after another answer; want 2", n)
	}
}

// TestJudgeFailures: a judge that fails over HTTP is retried, recorded as
// the judge's error, and asked again later (not cached); a reply with no
// verdict is retried and cached; neither is a verdict.
func TestJudgeFailures(t *testing.T) {
	down := &chat{reply: func(*api.ChatRequest) (string, error) { return "", errors.New("llama runner process has terminated") }}
	j := &Judge{Chat: down, Model: "judge-down", Retries: 2, Sleep: noSleep}
	for range 2 {
		tr := trial("a")
		_ = j.Grade(t.Context(), rubricCase("r"), tr)
		jd := tr.Judged
		if jd.Verdict != "" || !strings.Contains(jd.Error, "asking the judge judge-down: llama runner process has terminated") || jd.Verdicts[0].Attempts != 3 {
			t.Errorf("judged = %+v", jd)
		}
		if j := record.Judge(tr); j.Judged.Defined || !j.JudgeError || !j.Pass.OK {
			t.Errorf("judgements %+v", j)
		}
	}
	if n := down.n.Load(); n != 6 {
		t.Errorf("%d requests to a judge that is down; want 2 trials × 3 attempts", n)
	}
	garbled := &chat{reply: func(*api.ChatRequest) (string, error) { return "Hmm, hard to say.", nil }}
	j = &Judge{Chat: garbled, Model: "judge-garbled", Retries: 1, Sleep: noSleep}
	for range 2 {
		tr := trial("a")
		_ = j.Grade(t.Context(), rubricCase("r"), tr)
		if jd := tr.Judged; jd.Verdict != "" || !strings.Contains(jd.Error, "no clear verdict") || jd.Verdicts[0].Raw != "Hmm, hard to say." {
			t.Errorf("judged = %+v", jd)
		}
	}
	if n := garbled.n.Load(); n != 2 {
		t.Errorf("%d requests to a garbled judge; want 2 attempts once, then the cache", n)
	}
}

// TestGradeCanceled: a judgement cut short by the run's end fails, so the
// trial is dropped rather than written half judged.
func TestGradeCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	c := &chat{reply: func(*api.ChatRequest) (string, error) { cancel(); return "", fmt.Errorf("canceled") }}
	tr := trial("a")
	if err := (&Judge{Chat: c, Model: "m", Retries: 3}).Grade(ctx, rubricCase("r"), tr); err == nil || tr.Judged != nil {
		t.Errorf("Grade = %v, judged %+v; want the context's error and no verdict", err, tr.Judged)
	}
}
