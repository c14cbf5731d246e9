package suite

import "encoding/json"

// Turn is one user turn of a scenario written with turns:: the user's
// message and, optionally, what the model should do in answer to it.
type Turn struct {
	// Ask is the user's message.
	Ask string
	// Pos is where the turn's entry starts.
	Pos Pos
	// Expect is what the turn's rounds should do; nil when the turn gives
	// no expect (it is then judged only through the case's expect and
	// checks).
	Expect *Expect
}

// StateCall is one setup or check call of a scenario: a tool call the
// suite makes itself on the servers, before the conversation (setup:) or
// after it (check:). The author wrote it, so the tool policy does not
// apply to it (see docs/scenarios.md).
type StateCall struct {
	// Tool is the tool as written: plain, server.tool or server__tool.
	Tool string
	// Pos is where the tool name is written; Field the call's path in the
	// file (defaults.setup[0], cases[2].check[1]), for messages.
	Pos   Pos
	Field string
	// Args are the call's arguments, a JSON object; {} when none are given.
	Args json.RawMessage
	// Result, for a check, must match the call's result text; nil: the
	// check passes when the call returns no error. Always nil for setup.
	Result *TextMatcher
	// Exposed is the tool's name as the model would see it, set by
	// Suite.Check; empty before Check runs.
	Exposed string
}

// SimUser is a case's user:: a simulated user, a model that writes the
// user's messages from a goal instead of fixed turns.
type SimUser struct {
	// Pos is where user: is written.
	Pos Pos
	// Goal is what the user wants done; Persona how they talk (empty: none
	// given).
	Goal, Persona string
	// Model is the user model: user.model, else defaults.user_model.
	Model string
	// MaxTurns is the most user messages the conversation has (default
	// DefaultMaxTurns).
	MaxTurns int
	// First, when set, is the user's first message as written; empty: the
	// user model writes it too.
	First string
}

// DefaultMaxTurns is a simulated user's turn limit when user.max_turns is
// not set.
const DefaultMaxTurns = 5

// MaxTurnsLimit is the largest max_turns a suite may set.
const MaxTurnsLimit = 50

// IsScenario reports whether c is a scenario: several turns, a simulated
// user, setup calls or state checks (its own or the suite's defaults').
// A scenario's trial runs setup, its turns and its checks (see
// score.Scenario); any other case is one question, judged by its expect
// alone.
func (c *Case) IsScenario() bool {
	return len(c.Turns) > 0 || c.User != nil || len(c.Setup) > 0 || len(c.Checks) > 0
}
