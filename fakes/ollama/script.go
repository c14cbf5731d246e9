package fakeollama

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// Script declares the models a fake server offers and the rules that decide
// its answers. Build one in Go or load it from YAML with [LoadScript].
//
//	models:
//	  - name: scripted-good
//	    capabilities: [completion, tools]
//	latency: 0s
//	rules:
//	  - model: scripted-good
//	    round: 1
//	    user: {contains: dog}
//	    reply:
//	      tool_calls:
//	        - {name: search, arguments: {query: "can I bring a dog", top_k: 5}}
type Script struct {
	// Models are the models the server lists and serves; at least one.
	Models []Model `yaml:"models"`
	// Latency is the wait before the first byte of every answer, unless a
	// rule sets its own; zero answers at once.
	Latency time.Duration `yaml:"latency"`
	// Rules decide the answer to a chat request: the first rule that matches
	// wins.
	Rules []Rule `yaml:"rules"`
	// Fallback is the answer when no rule matches; nil means the content
	// "I do not know.".
	Fallback *Reply `yaml:"fallback"`
	// MaxLoaded is how many models stay loaded at once, as Ollama's
	// OLLAMA_MAX_LOADED_MODELS (or its memory) allows: loading one more
	// unloads the one used longest ago. Zero: no limit.
	MaxLoaded int `yaml:"max_loaded"`
}

// Model is one model of a script, with what /api/tags and /api/show report.
type Model struct {
	// Name is the model name, with or without a tag; without one it is
	// "name:latest", as in Ollama.
	Name string `yaml:"name"`
	// Capabilities are Ollama capabilities (completion, tools, thinking,
	// vision, embedding, insert, image); empty means [completion, tools].
	Capabilities []string `yaml:"capabilities"`
	// ThinkLevels are the string think values ("high", "medium", "low") the
	// model accepts; empty means none, so a string think value is refused
	// with HTTP 400 as by real Ollama for non-harmony models.
	ThinkLevels []string `yaml:"think_levels"`
	// Family is the model family and architecture; empty means "llama".
	Family string `yaml:"family"`
	// ParameterSize is the size shown in details, e.g. "8B"; empty means "8B".
	ParameterSize string `yaml:"parameter_size"`
	// Quantization is the quantization level, e.g. "Q4_K_M"; empty means
	// "Q4_K_M".
	Quantization string `yaml:"quantization"`
	// NumCtx is the context length shown as the num_ctx parameter and by
	// /api/ps; zero means 8192.
	NumCtx int `yaml:"num_ctx"`
	// KeepUnknownCalls passes calls to tools that were not offered through
	// as tool calls. False (the default) is what the captured real Ollama
	// does for template-parsed models: it swallows them into an empty
	// answer. True models a server whose parser does not check names, so a
	// harness can meet a hallucinated tool name.
	KeepUnknownCalls bool `yaml:"keep_unknown_calls"`
	// GPU puts the loaded model wholly in GPU memory: /api/ps lists its
	// size as size_vram too. False is the captured Ollama, on a CPU:
	// size_vram 0.
	GPU bool `yaml:"gpu"`
	// SameWeights names another model of the script whose weights this one
	// is under another name (as `ollama cp` makes): the same digest, and
	// one loaded copy, which /api/ps lists once under the name that loaded
	// it, as Ollama keeps one runner per weights file. Empty: its own.
	SameWeights string `yaml:"same_weights"`
}

// Rule says when it applies (all of its set conditions must hold) and what
// the answer is.
type Rule struct {
	// Model limits the rule to one model of the script; empty means any.
	Model string `yaml:"model"`
	// Round limits the rule to one round of the conversation: 1 plus the
	// number of assistant messages in the request; zero means any.
	Round int `yaml:"round"`
	// Turn limits the rule to one turn of a conversation: the number of
	// user messages in the request (consecutive ones count once, as Ollama
	// merges them), so a scripted model answers the second question of a
	// conversation apart from the first; zero means any. A user model's
	// request swaps the roles (see [UserReply]): there it counts the
	// assistant's messages it has seen.
	Turn int `yaml:"turn"`
	// User must match the last user message (consecutive messages of one
	// role count as one, joined by a blank line, as Ollama merges them); nil
	// means any (or none).
	User *Matcher `yaml:"user"`
	// ToolResult must match the last tool message; nil means any (or none).
	ToolResult *Matcher `yaml:"tool_result"`
	// TurnResult must match the last tool message of this turn (after the
	// last user message); nil means any (or none). Unlike ToolResult, a
	// result of an earlier turn never matches, so a rule can wait for the
	// tool of the turn it answers.
	TurnResult *Matcher `yaml:"turn_result"`
	// ToolsOffered, when set, requires that the request offers tools (true)
	// or offers none (false).
	ToolsOffered *bool `yaml:"tools_offered"`
	// Tools must match the JSON of the tools the request offers (names,
	// descriptions, parameters), so a script can answer one version of a
	// tool's description differently from another; nil means any.
	Tools *Matcher `yaml:"tools"`
	// ToolsCount bounds the number of tools the request offers, so a
	// scripted model can degrade as a catalog grows (a tool-count sweep); nil
	// means any number.
	ToolsCount *Count `yaml:"tools_count"`
	// Seed bounds the request's options.seed, so a scripted model can
	// answer the same request differently under different seeds, as a real
	// one sampling does (a judge that does not always agree with itself);
	// nil means any seed, or none.
	Seed *Count `yaml:"seed"`
	// Reply is the answer.
	Reply Reply `yaml:"reply"`
	// Latency replaces the script's latency for this rule; nil keeps it.
	Latency *time.Duration `yaml:"latency"`
	// Fault makes the answer fail in one of the ways of [Fault]; empty
	// answers normally.
	Fault Fault `yaml:"fault"`
	// Error is the error text of the http_500 and error_mid_stream faults;
	// empty means "llama runner process has terminated: exit status 2".
	Error string `yaml:"error"`
}

// Count bounds a number: every bound that is set must hold, and at least
// one must be set.
type Count struct {
	// Min is the smallest number that matches; nil: no lower bound.
	Min *int `yaml:"min"`
	// Max is the largest number that matches; nil: no upper bound.
	Max *int `yaml:"max"`
}

func (c *Count) match(n int) bool {
	return (c.Min == nil || n >= *c.Min) && (c.Max == nil || n <= *c.Max)
}

// Matcher tests a message's content. Every field that is set must hold, and
// at least one must be set.
type Matcher struct {
	// Contains is a substring, compared case-insensitively.
	Contains string `yaml:"contains"`
	// Regex is a Go regular expression that must match somewhere.
	Regex string `yaml:"regex"`
	// Equals is the whole content, compared exactly.
	Equals string `yaml:"equals"`
}

// Reply is what the model answers. Thinking comes first (only when the model
// thinks), then the tool calls, then the content. As with real Ollama, a call
// to a tool the request does not offer turns the whole reply into the empty
// answer, and a request that offers no tools gets the calls back as raw
// <tool_call> text in the content.
type Reply struct {
	// Thinking is the reasoning, sent only by a model with the thinking
	// capability whose request did not set think:false.
	Thinking string `yaml:"thinking"`
	// Content is the answer text.
	Content string `yaml:"content"`
	// ToolCalls are the calls the model makes, in order.
	ToolCalls []ToolCall `yaml:"tool_calls"`
	// Chunks is about how many pieces the content and the thinking are each
	// streamed in, split on word boundaries; zero means one.
	Chunks int `yaml:"chunks"`
	// DoneReason is "stop" or "length"; empty means "stop".
	DoneReason string `yaml:"done_reason"`
	// UserReply makes the content a simulated user's structured answer:
	// {"message": ..., "done": ...}, written as a model writes JSON. It
	// takes the place of Content and ToolCalls; nil: none.
	UserReply *UserReply `yaml:"user_reply"`
}

// UserReply is what a scripted user model says next: the object
// internal/simuser asks for. A user model sees the conversation with the
// roles swapped, as τ-bench's user simulator does: the assistant's answers
// come as user messages and its own earlier lines as assistant messages,
// so a rule matches what the assistant said last with user: and counts
// the assistant's answers with turn:.
type UserReply struct {
	// Message is the user's next message; it may be empty when Done is set.
	Message string `yaml:"message"`
	// Done ends the conversation: the goal is met (or given up on).
	Done bool `yaml:"done"`
}

// ToolCall is one call the model makes.
type ToolCall struct {
	// Name is the tool's name.
	Name string `yaml:"name"`
	// Arguments are the call's arguments, sent in this order.
	Arguments Args `yaml:"arguments"`
}

// Arg is one tool-call argument.
type Arg struct {
	// Key is the argument's name.
	Key string
	// Value is a string, number, bool, nil, []any or map[string]any.
	Value any
}

// Args are tool-call arguments in the order they were written. In YAML they
// are a mapping.
type Args []Arg

// Fault is a way an answer can fail.
type Fault string

// The faults a rule can inject.
const (
	// FaultNone answers normally.
	FaultNone Fault = ""
	// FaultHTTP500 answers HTTP 500 {"error": ...} before anything streams.
	FaultHTTP500 Fault = "http_500"
	// FaultNoTools answers the HTTP 400 "does not support tools" error of a
	// model without the tools capability, whatever the model's capabilities.
	FaultNoTools Fault = "no_tools"
	// FaultErrorMidStream sends the first chunk, then an {"error": ...} line;
	// without streaming it answers HTTP 500, as Ollama does.
	FaultErrorMidStream Fault = "error_mid_stream"
	// FaultDrop sends the first chunk, then cuts the connection without a
	// done line; without streaming it cuts the connection before answering.
	FaultDrop Fault = "drop"
	// FaultInvalidJSON sends the first chunk, then a line that is not JSON;
	// without streaming the whole body is that line.
	FaultInvalidJSON Fault = "invalid_json"
	// FaultEmpty gives the empty answer real Ollama gives when it swallows a
	// tool call: HTTP 200, done_reason "stop", no content, no tool calls.
	FaultEmpty Fault = "empty"
	// FaultStall sends the first chunk, then nothing more until the client
	// gives up: an Ollama stuck mid-generation. Without streaming it never
	// answers.
	FaultStall Fault = "stall"
)

var faults = []Fault{FaultNone, FaultHTTP500, FaultNoTools, FaultErrorMidStream, FaultDrop, FaultInvalidJSON, FaultEmpty, FaultStall}

// Call builds a tool call from a name and alternating keys and values, for
// scripts written in Go: Call("search", "query", "dog", "top_k", 5). It
// panics if a key is not a string or a value is missing.
func Call(name string, keyValues ...any) ToolCall {
	if len(keyValues)%2 != 0 {
		panic("fakeollama.Call: odd number of keys and values")
	}
	args := make(Args, 0, len(keyValues)/2)
	for i := 0; i < len(keyValues); i += 2 {
		k, ok := keyValues[i].(string)
		if !ok {
			panic(fmt.Sprintf("fakeollama.Call: key %v is not a string", keyValues[i]))
		}
		args = append(args, Arg{Key: k, Value: keyValues[i+1]})
	}
	return ToolCall{Name: name, Arguments: args}
}

//go:embed demo.yaml
var demoYAML []byte

// DemoScript returns the embedded demo script: the scripted models of the
// captures in testdata/ollama-v0.17.4 (testdata/captures.yaml reproduces those exactly),
// extended to answer every case of cases/docs.yaml and cases/files.yaml, one
// model well and one badly.
func DemoScript() (*Script, error) {
	return ParseScript(demoYAML, "demo.yaml")
}

// LoadScript reads and validates the YAML script at path.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseScript(data, path)
}

// ParseScript decodes and validates a YAML script. Unknown fields are
// errors (with a did-you-mean); every error starts with name:line:col, and
// the error of a script with several problems is a srcpos.List of them all.
func ParseScript(data []byte, name string) (*Script, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, srcpos.YAMLSyntax(name, data, err)
	}
	if root.Kind == 0 {
		return nil, fmt.Errorf("%s: empty script", name)
	}
	if errs := srcpos.UnknownFields(name, &root, &Script{}); len(errs) > 0 {
		return nil, errs.Err()
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Script
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty script", name)
		}
		var pe *srcpos.Error
		if errors.As(err, &pe) {
			pe.Pos.File = name // from Args.UnmarshalYAML, which cannot know it
			return nil, pe
		}
		return nil, srcpos.YAMLDecode(name, data, &root, err).Err()
	}
	if err := validate(&s, positioner(name, &root)); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate reports what is wrong with a script built in Go; [New] panics on
// such a script. Scripts from [LoadScript] and [ParseScript] are valid.
func (s *Script) Validate() error {
	return validate(s, func(path) srcpos.Pos { return srcpos.Pos{} })
}
