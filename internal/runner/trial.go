package runner

import (
	"context"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// job is one trial to run.
type job struct {
	c       *suite.Case
	repeat  int
	variant *Variant
	moves   int // times a pool moved it off an unreachable host
}

// trial runs one trial on h, retrying infrastructure failures and waiting
// for an unreachable Ollama; nil when ctx ended, and an error (the trial
// dropped) when the wait failed.
//
// On a host of a pool (h.pool) an unreachable host does not wait here: the
// trial comes back with errMoved, for another host to run.
func (r *Runner) trial(ctx context.Context, cfg Config, h *hostRun, info *record.Model, base bridge.Request, j job) (*record.Trial, error) {
	s, p := cfg.Suite, h.p
	v := j.variant
	req, seed := request(base, s, j.c, j.repeat, v.Suite)
	req.NoExecute = cfg.NoExecute || j.c.NoExecute
	t := &record.Trial{
		Model: info.Name, CaseID: j.c.ID, Variant: v.Name, Repeat: j.repeat, Seed: seed, Tags: j.c.Tags,
		Start: r.now()(),
	}
	tools, catalog := r.Tools, r.Catalog
	if v.Tools != nil {
		tools, catalog = v.Tools, nil
	}
	if v.Catalog != nil {
		catalog = v.Catalog
	}
	if ct, ok := v.Cases[j.c.ID]; ok {
		tools, catalog = ct.Tools, ct.Catalog
	}
	t.Host = h.Name
	loop := &bridge.Loop{Chat: h.Chat, Tools: tools, Now: r.Now}
	opts := score.OptionsFor(&s.Defaults)
	opts.Tools = catalog
	if c, ok := tools.(score.Catalog); ok && opts.Tools == nil {
		opts.Tools = c
	}
	// The request's own options decide, so whatever set num_ctx (the
	// suite, -o, a variant) is what a prompt is judged against.
	t.NumCtx = numCtx(req.Options, info.NumCtx)
	opts.NumCtx = t.NumCtx
	retries, backoff0 := retryPolicy(cfg)
	backoff, tries, waits := backoff0, 0, 0
	for attempt := 1; ; attempt++ {
		tr, err := loop.Run(ctx, req)
		if ctx.Err() != nil {
			return nil, nil
		}
		tries++
		t.Attempts = attempt
		t.Transcript = tr
		t.Score = score.Score(tr, &j.c.Expect, opts)
		if t.Score.Outcome != record.OutcomeInfraError {
			return t, nil
		}
		if tries > retries {
			// Every attempt failed. When Ollama could not even be reached,
			// that says nothing about the model: wait for it, then run the
			// trial again rather than record noise.
			if h.pool && p.enabled() && Unreachable(err) && j.moves < maxWaits {
				return t, errMoved
			}
			if !p.enabled() || !Unreachable(err) || waits >= maxWaits {
				return t, nil
			}
			waits++
			if err := p.await(ctx); err != nil {
				if ctx.Err() != nil {
					return nil, nil
				}
				return nil, err
			}
			tries, backoff = 0, backoff0
			continue
		}
		if err := r.sleep(ctx, backoff); err != nil {
			return nil, nil
		}
		backoff *= 2
	}
}

// request completes base into one trial's request: the case's messages (with
// the variant's system prompt, when v has one) and round limit, the suite's
// options with the variant's over them (see suite.VariantOptions) and seed =
// base seed + repeat, the same in every variant, and the variant's think
// when it sets one.
func request(base bridge.Request, s *suite.Suite, c *suite.Case, repeat int, v *suite.Variant) (bridge.Request, int64) {
	opts := s.VariantOptions(v)
	if opts == nil {
		opts = map[string]any{}
	}
	seed0, _ := s.Defaults.Seed()
	seed := seed0 + int64(repeat)
	opts["seed"] = seed
	if v != nil && v.Think != "" {
		// The suite parser checked the value.
		if think, err := bridge.ParseThink(v.Think); err == nil {
			base.Think = think
		}
	}
	conv := s.VariantConversation(c, v)
	msgs := make([]api.Message, len(conv))
	for i, m := range conv {
		msgs[i] = api.Message{Role: m.Role, Content: m.Content}
	}
	base.Messages, base.Options, base.MaxRounds = msgs, opts, c.MaxRounds
	return base, seed
}

// numCtx is the context length a request runs with: its num_ctx option,
// else the model's own (model); 0 when neither is known.
func numCtx(options map[string]any, model int) int {
	switch n := options["num_ctx"].(type) {
	case int:
		if n > 0 {
			return n
		}
	case int64:
		if n > 0 {
			return int(n)
		}
	case float64:
		if n >= 1 {
			return int(n)
		}
	}
	return model
}
