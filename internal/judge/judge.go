package judge

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/backoff"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Chatter sends one chat request, streaming its reply to fn: the run's
// Ollama client (bridge.Chatter's shape).
type Chatter interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// Judge grades answers with one judge model. Set Chat and Model; the rest
// has defaults.
type Judge struct {
	Chat Chatter
	// Model is the judge model; Digest is what Ollama listed for it.
	Model, Digest string
	// Options are defaults.judge.options; temperature is 0 unless they set
	// it, and their seed (else 0) is the base seed: judgement i of an
	// answer sends seed+i.
	Options map[string]any
	// Repeat is how many times each answer is judged; below 1: once.
	Repeat int
	// Retries is how many times a failed judgement is asked again (0:
	// none); Backoff the wait before the first retry, doubled after each
	// (0: 500ms).
	Retries int
	Backoff time.Duration
	// Sleep waits between retries; nil: a timer that honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Cache keeps the verdicts of the run; the zero Cache is ready.
	Cache Cache
}

// GraderModel is the judge model, its digest and the options it is asked
// with: the model takes memory on the run's Ollama beside the models
// judged (runner.ModelGrader).
func (j *Judge) GraderModel() (name, digest string, options map[string]any) {
	return j.Model, j.Digest, j.Options
}

// Grade judges t's answer against c's rubric and records the verdicts on t
// (t.Judged); a case without a rubric, or a trial without an answer (see
// Answered), is left as it is. It fails only when ctx ends: the trial was
// not fully judged and should be dropped, as a trial cut short is.
func (j *Judge) Grade(ctx context.Context, c *suite.Case, t *record.Trial) error {
	if c.Expect.Judge == nil || !Answered(t) {
		return nil
	}
	jd := j.Judged(ctx, c.Expect.Judge.Text, t)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	t.Judged = jd
	return nil
}

// Judged judges t's answer against rubric Repeat times and returns what to
// record: the verdicts, their majority, or the first judgement's error.
func (j *Judge) Judged(ctx context.Context, rubric string, t *record.Trial) *record.Judged {
	opts := j.options()
	jd := &record.Judged{Rubric: rubric, Model: j.Model, Digest: j.Digest, Options: opts}
	msgs := Messages(t, rubric)
	base, _ := opts["seed"].(int64)
	for i := range max(j.Repeat, 1) {
		o := maps.Clone(opts)
		o["seed"] = base + int64(i)
		req := &api.ChatRequest{Model: j.Model, Messages: msgs, Format: json.RawMessage(Format), Options: o}
		v := j.Cache.Do(req, func() (record.Verdict, bool) { return j.ask(ctx, req) })
		v.Seed = base + int64(i)
		jd.Verdicts = append(jd.Verdicts, v)
		if v.Error != "" && jd.Error == "" {
			jd.Error = v.Error
		}
	}
	if jd.Error == "" {
		jd.Verdict = record.Majority(jd.Verdicts)
	}
	return jd
}

// options are the judge's options with temperature 0 unless set, and the
// seed as an int64 (0 unless set).
func (j *Judge) options() map[string]any {
	o := maps.Clone(j.Options)
	if o == nil {
		o = map[string]any{}
	}
	if _, ok := o["temperature"]; !ok {
		o["temperature"] = 0
	}
	switch s := o["seed"].(type) {
	case int64:
	case int:
		o["seed"] = int64(s)
	case float64:
		o["seed"] = int64(s)
	default:
		o["seed"] = int64(0)
	}
	return o
}

// ask sends req, retrying failures, and reads the reply; keep says whether
// the verdict may be cached (not a failure of the transport).
func (j *Judge) ask(ctx context.Context, req *api.ChatRequest) (record.Verdict, bool) {
	var v record.Verdict
	for attempt := 1; ; attempt++ {
		v = record.Verdict{Attempts: attempt}
		raw, err := j.send(ctx, req)
		v.Raw = raw
		var noVerdict *NoVerdictError
		if err == nil {
			v.Verdict, v.Reason, v.Read, err = Read(raw)
			if err == nil {
				return v, true
			}
		}
		v.Error = err.Error()
		if ctx.Err() != nil || attempt > j.Retries || j.sleep(ctx, backoff.Before(attempt, j.Backoff)) != nil {
			return v, errors.As(err, &noVerdict)
		}
	}
}

// send streams req's reply and returns its content.
func (j *Judge) send(ctx context.Context, req *api.ChatRequest) (string, error) {
	var b strings.Builder
	err := j.Chat.Chat(ctx, req, func(r api.ChatResponse) error {
		b.WriteString(r.Message.Content)
		return nil
	})
	if err != nil {
		return b.String(), errors.New("asking the judge " + j.Model + ": " + err.Error())
	}
	return b.String(), nil
}

func (j *Judge) sleep(ctx context.Context, d time.Duration) error {
	if j.Sleep != nil {
		return j.Sleep(ctx, d)
	}
	return backoff.Sleep(ctx, d)
}
