package author

import (
	"encoding/json"
	"time"

	"github.com/ollama/ollama/api"
)

// LogFormat names the generation log's line format, on every line.
const LogFormat = "toolgrade.gen/1"

// Entry is one line of the generation log: one request to the author model,
// its reply and what became of every question in it, so a draft can be
// traced to the reply it came from and the request sent again (Request is
// the body of the /api/chat request as sent).
type Entry struct {
	Format string `json:"format"`
	Kind   Kind   `json:"kind"`
	// Tools are the tool the questions were to need, or the pair to tell
	// apart; none for no_tool.
	Tools  []string `json:"tools,omitempty"`
	Model  string   `json:"model"`
	Digest string   `json:"digest,omitempty"`
	// Seed and Options are those of the request (Options holds the seed
	// too); repeated here so a reader need not dig in Request.
	Seed    int              `json:"seed"`
	Options map[string]any   `json:"options"`
	Request *api.ChatRequest `json:"request"`
	Start   time.Time        `json:"start"`
	// Duration is the request's wall time, in nanoseconds.
	Duration time.Duration `json:"duration_ns"`
	// Reply is the content the model answered, whole.
	Reply string `json:"reply"`
	// Error is why the reply gave no questions: the request failed, or the
	// reply is not the JSON asked for. "" when it was read.
	Error string `json:"error,omitempty"`
	// PromptTokens and ReplyTokens are Ollama's counts.
	PromptTokens int `json:"prompt_tokens,omitempty"`
	ReplyTokens  int `json:"reply_tokens,omitempty"`
	// Drafts are the reply's questions in order, each kept or dropped.
	Drafts []Drafted `json:"drafts,omitempty"`
}

// Drafted is one question of a reply and what became of it.
type Drafted struct {
	Question  string          `json:"question"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Dropped is why the question was not written into the draft; "" when
	// it was (possibly merged with a near-duplicate there).
	Dropped string `json:"dropped,omitempty"`
}
