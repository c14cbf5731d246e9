// Package record holds the trial record: the transcript of one run of the
// bridge loop, exactly as it happened. It is the one type that flows from the
// loop to scoring, reports, comparisons and gates, so it depends on neither the
// Ollama nor the MCP client, and it round-trips through JSON losslessly.
//
// A run's trials file (trials.jsonl) holds one Trial per line, appended as
// each trial ends. A trial key (model, case, variant, repeat) may appear on
// several lines: a resumed run appends the rerun of an infra_error trial
// after it. The last line of a key supersedes the earlier ones, and every
// reader of a run (resume, report) takes only that line: see ReadLast.
//
// Every file of a run directory carries its format version in a "format"
// field ("1.0": see Format): run.json and summary.json at the top, each
// trials.jsonl line beside the trial's own fields. A file without one was
// written before versions existed and reads as 1.0. A reader refuses a newer
// major version (a *FormatError naming the file and line) and reads a newer
// minor one, ignoring the fields it does not know.
package record

import (
	"bytes"
	"encoding/json"
	"time"
)

// Transcript is everything one conversation through the bridge loop did:
// what was asked, every round sent to Ollama, every tool executed, and how it
// ended.
type Transcript struct {
	// Model is the Ollama model name as requested.
	Model string `json:"model"`
	// Messages are the messages the conversation started with (system prompt
	// and user turns), before any round ran.
	Messages []Message `json:"messages"`
	// Rounds are the /api/chat requests in order; the last one produced the
	// answer (or failed).
	Rounds []Round `json:"rounds"`
	// Answer is the content of the last round's response.
	Answer string `json:"answer"`
	// RoundLimitHit is true when the model was still calling tools after
	// MaxRounds and the final request went out without tools.
	RoundLimitHit bool `json:"round_limit_hit,omitempty"`
	// MaxRounds is the round limit the loop ran with.
	MaxRounds int `json:"max_rounds"`
	// NotExecuted is true when the trial ran with execution off (a suite's
	// execute: false, or --no-execute): it stopped at the model's first
	// response, whose tool calls (if any) were scored but never run, so no
	// Execution records them.
	NotExecuted bool `json:"not_executed,omitempty"`
	// Failure is set when the loop stopped before an answer because of an
	// infrastructure failure (Ollama unreachable, a broken stream, cancellation).
	// A tool failure never sets it: tool failures are results the model sees.
	Failure *Failure `json:"failure,omitempty"`
	// Wall is the wall time of the whole conversation.
	Wall time.Duration `json:"wall_ns"`
	// Turns are the user turns of a scenario of several (a case with
	// turns: or a simulated user), in order: Rounds stay flat over all of
	// them, and each turn says where its rounds begin. Nil for a case of
	// one question, whose record is as before format 1.9.
	Turns []Turn `json:"turns,omitempty"`
	// UserModel is what a simulated user's model took over the whole
	// conversation (a case's user:), apart from the tested model's cost,
	// which no reader of cost mixes it into; nil for other cases.
	UserModel *UserModelCost `json:"user_model,omitempty"`
	// Setup are the calls a scenario ran before the conversation
	// (setup:), in order; nil when it has none.
	Setup []Execution `json:"setup,omitempty"`
	// Checks are the state checks run after the conversation (check:),
	// in order, each with its verdict; nil when the case has none.
	Checks []Check `json:"checks,omitempty"`
}

// Turn is one user turn of a scenario: the user's message, the rounds the
// loop ran to answer it and how it ended.
type Turn struct {
	// User is the user's message of this turn, as sent.
	User string `json:"user"`
	// From says who wrote it: FromCase (the case's turns:) or FromUserModel
	// (a simulated user). rescore reads the message back and never asks the
	// user model again.
	From string `json:"from"`
	// FirstRound is the index in Transcript.Rounds of the turn's first
	// round; its rounds run to the next turn's FirstRound (or the end).
	FirstRound int `json:"first_round"`
	// Answer is the model's answer that ended the turn.
	Answer string `json:"answer"`
	// RoundLimitHit: the turn hit the round limit (each turn has the
	// case's limit).
	RoundLimitHit bool `json:"round_limit_hit,omitempty"`
	// Wall is the turn's wall time.
	Wall time.Duration `json:"wall_ns"`
}

// UserModelCost is what a simulated user's model took in one trial: its
// requests (the closing one that said done included), Ollama's token
// counts, and their wall time.
type UserModelCost struct {
	Model        string        `json:"model"`
	Requests     int           `json:"requests"`
	PromptTokens int           `json:"prompt_tokens"`
	EvalTokens   int           `json:"eval_tokens"`
	Wall         time.Duration `json:"wall_ns"`
}

// Who wrote a turn's user message (Turn.From).
const (
	FromCase      = "case"
	FromUserModel = "user_model"
)

// Check is one state check of a scenario: the call run after the
// conversation and whether its result matched.
type Check struct {
	Execution
	// OK: the call succeeded and its result matched the check's matcher.
	OK bool `json:"ok"`
	// Detail says why not, when not OK.
	Detail string `json:"detail,omitempty"`
}

// TurnRounds returns the rounds of turn i of t (all rounds when t has no
// turns and i is 0).
func (t *Transcript) TurnRounds(i int) []Round {
	if len(t.Turns) == 0 {
		if i == 0 {
			return t.Rounds
		}
		return nil
	}
	if i < 0 || i >= len(t.Turns) {
		return nil
	}
	from, to := t.Turns[i].FirstRound, len(t.Rounds)
	if i+1 < len(t.Turns) {
		to = t.Turns[i+1].FirstRound
	}
	from, to = min(max(from, 0), len(t.Rounds)), min(max(to, 0), len(t.Rounds))
	if from > to {
		return nil
	}
	return t.Rounds[from:to]
}

// Failure says why a conversation stopped without an answer.
type Failure struct {
	// Kind is one of the Failure* constants.
	Kind string `json:"kind"`
	// Message is the underlying error text, as the user would need it.
	Message string `json:"message"`
	// HTTPStatus is Ollama's status code when it answered with an error.
	HTTPStatus int `json:"http_status,omitempty"`
}

// Failure kinds. All of them are infrastructure failures, never model failures.
const (
	FailureOllama   = "ollama"   // Ollama answered with an error or could not be reached
	FailureStream   = "stream"   // the response stream broke: bad JSON, dropped, no done line
	FailureCanceled = "canceled" // the context was canceled or its deadline passed
	// FailureServerSkipped: the case expects a tool of a server that failed
	// to connect (Run.SkippedServers), so the trial was not run.
	FailureServerSkipped = "server_skipped"
	// FailureSetup: a scenario's setup call failed, or its per-trial
	// servers could not be started (or listed other tools than the run's
	// catalog), before the model was asked anything: never the model's
	// fault.
	FailureSetup = "setup_failed"
	// FailureCheck: a state check's call could not run (its server
	// crashed or timed out), so the end state is unknown.
	FailureCheck = "check_failed"
	// FailureUserModel: the simulated user's model failed to write the
	// next message.
	FailureUserModel = "user_model"
)

// Message is one chat message, in the shape Ollama's /api/chat uses.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a tool call exactly as the model returned it. Arguments keep the
// raw JSON object with its key order as received; compare them by value, never
// byte for byte (Ollama does not keep key order stable between responses).
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Index     int             `json:"index"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Round is one /api/chat request and its response.
type Round struct {
	// Index counts rounds from 1.
	Index    int           `json:"index"`
	Request  Request       `json:"request"`
	Response Response      `json:"response"`
	Metrics  Metrics       `json:"metrics"`
	Wall     time.Duration `json:"wall_ns"`
	// Executions are the tool calls of this round as they ran, in call order.
	Executions []Execution `json:"executions,omitempty"`
}

// Request is what was sent in one round.
type Request struct {
	// Messages is how many messages the request carried.
	Messages int `json:"messages"`
	// ToolsSent says whether the tool list was offered; false on the final
	// request after the round limit.
	ToolsSent bool `json:"tools_sent"`
	// Tools is how many tools were offered.
	Tools int `json:"tools,omitempty"`
	// Final marks the request sent without tools after the round limit.
	Final bool `json:"final,omitempty"`
	// Options are the model options sent (temperature, seed, num_ctx, ...).
	Options map[string]any `json:"options,omitempty"`
	// Think is the think value sent: "", "true", "false", "low", "medium", "high".
	Think string `json:"think,omitempty"`
}

// Response is what came back in one round, accumulated over all stream chunks.
type Response struct {
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	DoneReason string     `json:"done_reason,omitempty"`
	// Chunks is how many stream lines the response came in.
	Chunks int `json:"chunks"`
	// Failure is set when this round's request failed.
	Failure *Failure `json:"failure,omitempty"`
}

// Metrics are Ollama's own counters for one response (from its done line).
type Metrics struct {
	TotalDuration      time.Duration `json:"total_duration_ns"`
	LoadDuration       time.Duration `json:"load_duration_ns"`
	PromptEvalCount    int           `json:"prompt_eval_count"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration_ns"`
	EvalCount          int           `json:"eval_count"`
	EvalDuration       time.Duration `json:"eval_duration_ns"`
}

// Execution is one tool call as the bridge ran it against its server.
type Execution struct {
	// CallID and Name are the call's id and the tool name the model used.
	CallID string `json:"call_id,omitempty"`
	Name   string `json:"name"`
	// Server and Tool are the owning server and the tool's original name;
	// empty when the name matched no tool.
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
	// Result is the text the model was given as the tool's result.
	Result string `json:"result"`
	// IsError says the result was marked as an error for the model.
	IsError bool `json:"is_error,omitempty"`
	// ErrorKind is one of the Exec* constants when IsError is set.
	ErrorKind string `json:"error_kind,omitempty"`
	// Error is the detail behind ErrorKind (validator message, transport error).
	Error string `json:"error,omitempty"`
	// HiddenOnly is set with ErrorKind invalid_args when the arguments
	// passed the schema the model was shown and failed only constraints it
	// was not (a nested required, a format, a bound); Error names them.
	// Absent before format 1.2.
	HiddenOnly bool          `json:"hidden_only,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
}

// Execution error kinds. The first three are outcomes of the model's choice;
// blocked is the suite's policy at work; the last two are failures of the
// server, which scoring keeps apart.
const (
	ExecUnknownTool   = "unknown_tool"   // the name matched no tool in the catalog
	ExecInvalidArgs   = "invalid_args"   // the arguments failed the tool's input schema (HiddenOnly: only what the model was not shown)
	ExecToolError     = "tool_error"     // the server ran the tool and it returned isError
	ExecBlocked       = "blocked"        // the tool policy kept the call from running (Error says why); the model was told
	ExecTimeout       = "timeout"        // the call ran past the per-call timeout
	ExecServerFailure = "server_failure" // the server died or the protocol failed
	// ExecDecoy is a call to a decoy (a suite's decoys:), a tool offered to
	// the model that no server has: nothing ran, the model was told the tool
	// is not available. Scoring makes it wrong_tool, the decoy named.
	ExecDecoy = "decoy"
)

// InfraError reports whether an execution failed because of the server rather
// than the model. A blocked call is not one: the suite chose not to run it.
func (e Execution) InfraError() bool {
	return e.ErrorKind == ExecTimeout || e.ErrorKind == ExecServerFailure
}

// Failed reports whether the model was given an error for the call: the
// tool returned isError, the policy blocked it, the name was no tool or a
// decoy, or the arguments failed the schema. A failure of the server
// (timeout, crash) is not one: it makes the trial an infrastructure error.
func (e Execution) Failed() bool { return e.IsError && !e.InfraError() }

// ToolCalls returns every tool call the model made, over all rounds, in order.
func (t *Transcript) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, r := range t.Rounds {
		calls = append(calls, r.Response.ToolCalls...)
	}
	return calls
}

// Executions returns every tool execution, over all rounds, in order.
func (t *Transcript) Executions() []Execution {
	var ex []Execution
	for _, r := range t.Rounds {
		ex = append(ex, r.Executions...)
	}
	return ex
}

// Args returns tool-call arguments as a transcript keeps them: as received,
// {} when empty, and as a JSON string when they are not JSON at all (so the
// transcript still marshals).
func Args(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	switch {
	case len(trimmed) == 0:
		return json.RawMessage("{}")
	case !json.Valid(trimmed):
		s, _ := json.Marshal(string(args))
		return s
	}
	return append(json.RawMessage(nil), trimmed...)
}
