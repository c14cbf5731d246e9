// Package author has a local model draft a suite's cases (`toolgrade cases
// generate`): shown each tool of a catalog (its name, description and input
// schema, and the other tools), the author model writes questions that need
// exactly that tool with the arguments they imply; then questions no tool
// answers (no_tool cases); then, for each pair of tools a model may confuse
// (internal/confusable), questions that tell the two apart. The requests go
// through internal/llm's client with Ollama's structured outputs (a JSON
// schema as format), temperature 0 and a fixed seed, and each is recorded in
// a generation log. Every question is checked before it becomes a case: the
// tool exists and the arguments validate against its schema; the cases are
// merged by internal/draft. Nothing is executed: no tool is called.
package author

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/backoff"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/confusable"
	"github.com/toolgrade/toolgrade/internal/draft"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// DefaultSeed is the seed of every request unless Spec.Seed says otherwise.
const DefaultSeed = 1

// Spec is what Generate asks for and of whom.
type Spec struct {
	// Model is the author model as internal/llm checked it (its digest is
	// recorded).
	Model *llm.Model
	Chat  bridge.Chatter
	// Tools are the catalog, in the order the model would see them.
	Tools []toolschema.Tool
	// PerTool is how many questions to ask for each tool and each
	// confusable pair; Irrelevant how many no_tool questions (0: none).
	PerTool, Irrelevant int
	Seed                int
	// Confusable is the score from which two tools count as a pair to tell
	// apart (confusable.Rank).
	Confusable float64
	// Log receives the generation log, one Entry a line as each request
	// ends; LogName is how the draft's comments name it.
	Log     io.Writer
	LogName string
	// Sleep waits before a failed request is sent again (backoff.Before:
	// 0.5 s, then 1 s), as a run paces its retries; nil: backoff.Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Result is what the author wrote.
type Result struct {
	// Cases are the questions kept, in order, before merging (see
	// draft.Compose).
	Cases []*draft.Case
	// Requests counts the requests sent (the lines of the log, failed
	// attempts among them); Questions the questions read from the replies,
	// Dropped those that failed a check.
	Requests, Questions, Dropped int
	// Unread are the replies that were not the JSON asked for: which
	// request, and what came back.
	Unread []string
	Pairs  []confusable.Pair
}

// Generate asks the author model for every tool, the no_tool questions and
// every confusable pair, writing the log as it goes. An error is a request
// that failed (Ollama unreachable, an HTTP error): the log holds what was
// done before it.
func Generate(ctx context.Context, s *Spec) (*Result, error) {
	res := &Result{}
	byName := map[string]*toolschema.Tool{}
	var listed []toolschema.Tool
	for i := range s.Tools {
		byName[s.Tools[i].Exposed] = &s.Tools[i]
		listed = append(listed, s.Tools[i])
	}
	var asks []ask
	for i, t := range s.Tools {
		others := append(append([]toolschema.Tool{}, listed[:i]...), listed[i+1:]...)
		asks = append(asks, toolAsk(t, others, s.PerTool))
	}
	if s.Irrelevant > 0 {
		asks = append(asks, noToolAsk(listed, s.Irrelevant))
	}
	var shown []confusable.Tool
	for _, t := range s.Tools {
		shown = append(shown, confusable.FromOllama([]api.Tool{t.Ollama})...)
	}
	res.Pairs = confusable.Rank(shown, s.Confusable)
	for _, p := range res.Pairs {
		asks = append(asks, pairAsk(*byName[p.A], *byName[p.B], s.PerTool))
	}
	enc := json.NewEncoder(s.Log)
	enc.SetEscapeHTML(false)
	for _, a := range asks {
		if err := res.ask(ctx, s, a, enc, byName); err != nil {
			return res, err
		}
	}
	return res, nil
}

// Attempts is how many times a request that fails (not a reply that cannot
// be read) is sent before Generate gives up, as a run retries an
// infrastructure error, with the same backoff; each attempt is a line of
// the log.
const Attempts = 3

// ask sends one request, again after a failure, and reads its reply.
func (res *Result) ask(ctx context.Context, s *Spec, a ask, enc *json.Encoder, tools map[string]*toolschema.Tool) error {
	var err error
	sleep := s.Sleep
	if sleep == nil {
		sleep = backoff.Sleep
	}
	for attempt := 1; attempt <= Attempts; attempt++ {
		if attempt > 1 && sleep(ctx, backoff.Before(attempt-1, 0)) != nil {
			break
		}
		var e *Entry
		e, err = send(ctx, s.Chat, s, a)
		res.Requests++
		if err == nil {
			res.read(s, a, e, tools)
		}
		if werr := enc.Encode(e); werr != nil {
			return fmt.Errorf("writing the generation log: %w", werr)
		}
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("asking %s for %s (%d attempts): %w", s.Model.Name, a.what(), Attempts, err)
	}
	return nil
}

// read checks the questions of one reply and keeps those that pass as
// cases; the entry records each one's fate.
func (res *Result) read(s *Spec, a ask, e *Entry, tools map[string]*toolschema.Tool) {
	r, err := readReply(e.Reply)
	if err != nil {
		e.Error = err.Error()
		res.Unread = append(res.Unread, fmt.Sprintf("%s: %v", a.what(), err))
		return
	}
	line := res.Requests // the entry's line in the log, from 1
	for q := range r.Questions {
		d := check(a, q, r, tools)
		e.Drafts = append(e.Drafts, d)
		res.Questions++
		if d.Dropped != "" {
			res.Dropped++
			continue
		}
		res.Cases = append(res.Cases, s.newCase(a, d, line, tools))
	}
}

// newCase is a checked question as a draft case.
func (s *Spec) newCase(a ask, d Drafted, line int, tools map[string]*toolschema.Tool) *draft.Case {
	c := &draft.Case{
		Messages: []record.Message{{Role: "user", Content: d.Question}},
		Sources:  []draft.Source{{File: s.LogName, Line: line}},
		Models:   []string{s.Model.Name},
		Lead:     "drafted by author model " + s.Model.Name + digestNote(s.Model.Digest),
	}
	if d.Tool == "" {
		return c // no_tool
	}
	c.Expect = draft.Expectation{Calls: []draft.Call{{Tool: d.Tool, Args: d.Arguments}}, FirstOnly: true}
	if a.kind == KindPair {
		c.Notes = append(c.Notes, fmt.Sprintf("written to tell %s and %s apart: check it needs %s and not the other", a.tools[0], a.tools[1], d.Tool))
	}
	if why := (&bridge.Policy{}).Blocks(tools[d.Tool].Info()); why != "" {
		c.Notes = append(c.Notes, fmt.Sprintf("%s may change things (nothing ran while drafting): %s", d.Tool, why))
	}
	return c
}

func digestNote(digest string) string {
	if len(digest) > 12 {
		digest = digest[:12]
	}
	if digest == "" {
		return ""
	}
	return " (" + digest + ")"
}

// what names a request in messages: "search", "no_tool", "search ~ get_document".
func (a ask) what() string {
	switch a.kind {
	case KindNoTool:
		return "the no_tool questions"
	case KindPair:
		return "the pair " + a.tools[0] + " ~ " + a.tools[1]
	}
	return "the tool " + a.tools[0]
}
