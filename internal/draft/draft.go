// Package draft turns recorded conversations (`toolgrade serve --record`
// transcripts, or the transcripts of a run's trials) into a draft suite: one
// case per question, with the calls the model made in its first response as
// the expectation, each case marked review: true until a person confirms it.
// Near-identical questions are merged (see Build). It reads files only: no
// Ollama or MCP client is involved, so a draft can be made anywhere.
package draft

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
)

// DefaultMinSimilarity is the similarity above which two questions whose
// expected tools agree are merged when Options.MinSimilarity is zero.
const DefaultMinSimilarity = 0.9

// Options shape a draft. The zero value (or nil) drafts a suite with no name
// and no servers, merging questions at DefaultMinSimilarity.
type Options struct {
	// Name is the suite's name: key; "" leaves it out, so the file's own
	// name names the suite.
	Name string
	// Servers is the suite's servers: value, a path as the suite file
	// should say it (relative to the suite's folder); "" leaves it out.
	Servers string
	// MinSimilarity is the normalised edit similarity (0..1) at or above
	// which two questions are merged when their expected tools agree; 0:
	// DefaultMinSimilarity; above 1: only questions equal once normalised
	// are merged.
	MinSimilarity float64
}

// Draft is a drafted suite, ready to write with WriteYAML.
type Draft struct {
	Name, Servers string
	// Models are the models that produced the drafted conversations, first
	// seen first: the suite's models.
	Models []string
	// System is the system prompt every case opened with, lifted into
	// defaults.system; "" when the cases differ (each then keeps its own).
	System string
	// Think and Options are the settings every drafted conversation's first
	// request agreed on, lifted into defaults.think and defaults.options so
	// the cases run as they were recorded: think ("" when unset or when the
	// conversations differ), and the options of LiftedOptions, each as JSON
	// (absent when not every conversation sent the same value).
	Think   string
	Options map[string]json.RawMessage
	// Cases are in the order their first conversation was read.
	Cases []*Case
	// Read counts the conversations given; Skipped lists those no case
	// could be drafted from, and why.
	Read    int
	Skipped []Skip
	// Header, when set, is the file's opening comment, one line each, in
	// place of the one that says the draft came from recorded
	// conversations.
	Header []string
	// composed: the cases were written by an author model (Compose), not
	// drafted from conversations.
	composed bool
}

// Skip is a conversation left out of the draft.
type Skip struct {
	Source Source
	Reason string
}

// Case is one drafted case.
type Case struct {
	// ID is unique in the draft, a slug of the last user message.
	ID string
	// Messages are the opening messages the model saw (the system prompt
	// among them unless Draft.System took it).
	Messages []record.Message
	Expect   Expectation
	// Sources are the conversations the case stands for, the first one's
	// question being the one asked; Models their models, in the same order.
	Sources []Source
	Models  []string
	// Notes are the comments a reviewer needs: failed calls, other calls
	// seen, questions merged in, similar cases with other tools.
	Notes []string
	// Lead, when set, opens the case's comment in place of the count of
	// conversations and their models (a case an author model wrote, see
	// Compose), followed by its sources.
	Lead string
}

// Expectation is what a drafted case expects: the model's own calls.
type Expectation struct {
	// Calls are the expected calls; nil expects no tool.
	Calls []Call
	// FirstOnly is the tool: form (one call in the first response: only the
	// first call is checked). Otherwise the calls: form lists every call of
	// the conversation, the first response having made several.
	FirstOnly bool
	// AnyOrder is set for the calls: form when every call came in the first
	// response: parallel calls, whose order a model does not keep.
	AnyOrder bool
}

// Call is one expected call: the tool as the model named it, and its
// arguments as it sent them (a JSON object).
type Call struct {
	Tool string
	Args json.RawMessage
}

// String shows the call as toolgrade ask does: search({"query":"dog"}).
func (c Call) String() string {
	return c.Tool + "(" + string(compact(c.Args)) + ")"
}

// tools is the expectation's tool names, the key by which two questions'
// expectations agree: in order, or sorted for any_order.
func (e Expectation) tools() string {
	if e.Calls == nil {
		return "no_tool"
	}
	names := make([]string, len(e.Calls))
	for i, c := range e.Calls {
		names[i] = c.Tool
	}
	if e.AnyOrder {
		slices.Sort(names)
	}
	form := "calls"
	if e.FirstOnly {
		form = "tool"
	}
	return form + ":" + strings.Join(names, ",")
}

// key identifies the expectation by value: tools and arguments (compared
// as JSON values, so key order and 5 against 5.0 do not matter).
func (e Expectation) key() string {
	parts := make([]string, len(e.Calls))
	for i, c := range e.Calls {
		parts[i] = c.Tool + string(canonical(c.Args))
	}
	if e.AnyOrder {
		slices.Sort(parts)
	}
	b, _ := json.Marshal(parts)
	return e.tools() + string(b)
}

// String shows the expectation in a comment: no tool, or its calls.
func (e Expectation) String() string {
	if e.Calls == nil {
		return "no tool"
	}
	s := make([]string, len(e.Calls))
	for i, c := range e.Calls {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}

// LiftedOptions are the model options a draft carries into
// defaults.options when every conversation sent the same value: those that
// change tool calling most (the context that may cut the tools off, and
// sampling). seed is not among them: a run's repeats each send their own.
var LiftedOptions = []string{"num_ctx", "temperature"}

// drafted is one conversation made into a case-to-be.
type drafted struct {
	src      Source
	model    string
	messages []record.Message
	expect   Expectation
	notes    []string
	// request is the first round's request, for the settings to lift.
	request record.Request
}

// draftOne makes a case-to-be of one conversation, or says why it cannot.
func draftOne(c Conversation) (*drafted, string) {
	t := c.Transcript
	if t == nil || len(t.Rounds) == 0 {
		if t != nil && t.Failure != nil {
			return nil, "infrastructure failure before the first response: " + failure(t.Failure)
		}
		return nil, "no response was recorded"
	}
	first := t.Rounds[0]
	if f := first.Response.Failure; f != nil {
		return nil, "infrastructure failure before the first response: " + failure(f)
	}
	if !first.Request.ToolsSent {
		return nil, "the first request offered no tools"
	}
	msgs, why := opening(t.Messages)
	if why != "" {
		return nil, why
	}
	d := &drafted{src: c.Source, model: t.Model, messages: msgs, request: first.Request}
	calls := first.Response.ToolCalls
	if len(calls) > 0 && len(first.Executions) == 0 && !t.NotExecuted && len(t.Rounds) == 1 {
		// The loop hands calls to tools of the client's own back without
		// running any: a suite can expect only the servers' tools.
		return nil, fmt.Sprintf("the model called tools of the client's own (%s), which a suite cannot expect", callNames(calls))
	}
	// The calls expected: the first response's one, or every call when it
	// made several (the calls: form judges the whole sequence).
	executed := first.Executions
	if len(calls) > 1 {
		calls, executed = t.ToolCalls(), t.Executions()
	}
	for _, ex := range executed {
		if ex.ErrorKind == record.ExecUnknownTool {
			return nil, fmt.Sprintf("the model called %q, which no server has", ex.Name)
		}
	}
	for _, tc := range calls {
		args := record.Args(tc.Arguments)
		if len(args) == 0 || args[0] != '{' {
			return nil, fmt.Sprintf("the arguments of %s are not a JSON object: %s", tc.Name, quote(string(tc.Arguments), 80))
		}
		if _, err := argsNode(args); err != nil {
			return nil, fmt.Sprintf("the arguments of %s cannot be written as a case's: %v", tc.Name, err)
		}
		d.expect.Calls = append(d.expect.Calls, Call{Tool: tc.Name, Args: args})
	}
	switch n := len(d.expect.Calls); {
	case n == 1:
		d.expect.FirstOnly = true
	case n > 1:
		d.expect.AnyOrder = n == len(first.Response.ToolCalls)
	}
	if len(calls) == 0 && score.CallInText(first.Response.Content) {
		// Scoring reads such an answer as call_in_text, which no_tool fails.
		d.notes = append(d.notes, "its answer holds a tool call written as text, which no_tool: true fails: expect the call it meant, unless no tool fits the question")
	}
	for _, ex := range t.Executions() {
		if ex.IsError {
			detail := ex.Error
			if detail == "" {
				detail = ex.Result
			}
			d.notes = append(d.notes, fmt.Sprintf("its call %s failed (%s: %s): check the expected arguments", ex.Name, ex.ErrorKind, quote(detail, 100)))
		}
	}
	if t.RoundLimitHit {
		d.notes = append(d.notes, fmt.Sprintf("it hit the round limit (%d)", t.MaxRounds))
	}
	if t.Failure != nil {
		d.notes = append(d.notes, "it ended in an infrastructure failure after the first response: "+failure(t.Failure))
	}
	return d, ""
}

// opening checks that a conversation's opening messages are what a case's
// ask can hold: an optional system message first, then user and assistant
// turns with text, ending with the user's.
func opening(msgs []record.Message) ([]record.Message, string) {
	out := make([]record.Message, 0, len(msgs))
	for i, m := range msgs {
		switch {
		case m.Role == "tool" || len(m.ToolCalls) > 0:
			return nil, "it opens with tool calls or results of an earlier exchange, which a case cannot hold"
		case m.Role == "system" && i > 0:
			return nil, fmt.Sprintf("message %d is a system message after the first, which a case cannot hold", i+1)
		case m.Role != "system" && m.Role != "user" && m.Role != "assistant":
			return nil, fmt.Sprintf("message %d has role %q, which a case cannot hold", i+1, m.Role)
		case strings.TrimSpace(m.Content) == "":
			return nil, fmt.Sprintf("message %d (%s) has no text", i+1, m.Role)
		case !utf8.ValidString(m.Content):
			// JSON decoding never gives one; a Conversation built in Go may.
			return nil, fmt.Sprintf("message %d (%s) is not valid UTF-8", i+1, m.Role)
		}
		out = append(out, record.Message{Role: m.Role, Content: m.Content})
	}
	if len(out) == 0 || out[len(out)-1].Role != "user" {
		return nil, "the last opening message is not the user's"
	}
	return out, ""
}

func failure(f *record.Failure) string {
	return fmt.Sprintf("%s: %s", f.Kind, quote(f.Message, 100))
}

func callNames(calls []record.ToolCall) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
