// Package suite reads toolgrade's case files: a YAML suite that names the MCP
// servers, the models and the test cases, each a question with the tool call
// it should produce, or none. Everything is validated before any model runs,
// and every problem is reported with its file:line:col, all at once.
//
// The format, in short (cases/suite.schema.json is the full reference, for
// editors too):
//
//	name: docs
//	servers: servers.json            # or inline: {mcpServers: {...}}
//	models: [qwen3:1.7b, qwen3:8b]
//	defaults: {system: "...", max_rounds: 5, think: false, options: {seed: 42},
//	           execute: true, allow_tools: [write_*], deny_tools: [fs.delete_*]}
//	gates: [pass>=0.9, "qwen3:8b:p95<=2s"]  # CI: a finished run failing one exits 4
//	margin: 5pts                     # compare's non-inferiority margin for this suite's runs
//	variants:                        # optional: the same cases, other descriptions
//	  - name: terse
//	    system: "..."                  # replaces defaults.system
//	    tools: {search: {description: "...", params: {query: "...", filter.kind: "..."}}}
//	  - {name: branch, servers: branch.json}   # another servers file's catalog
//	  - {name: ctx32k, think: true, options: {num_ctx: 32768}, decoys: 30}
//	decoys: [decoys/, {servers: more.json}]   # tools offered, never run
//	decoy_seed: 7                    # default: defaults.options.seed, else 0
//	sweep: {decoys: [0, 10, 30], think: [false, true]}  # a grid of variants
//	cases:
//	  - id: dog
//	    ask: "Can I bring my dog?"     # or [{role: user, content: ...}, ...]
//	    execute: false                 # score the first response's calls; run nothing
//	    tools:                         # optional: this case's own catalog instead of the servers'
//	      - {name: f, description: "...", parameters: {type: object, properties: {...}}}  # inline: never runs
//	      - search                     # a tool of the suite's servers by name
//	    review: true                   # drafted by toolgrade cases from; not yet confirmed
//	    expect:
//	      tool: search                 # or calls: [{tool: ..., args: ...}], or no_tool: true
//	      args: {query: {contains: dog}, top_k: {any: true}}
//	      answer: {contains: terrace}
//
// An argument is expected either as a literal (equal by value, 5 == 5.0) or
// as a matcher object with exactly one of contains, regex, one_of,
// number (with an optional tolerance), any, absent or equals. A literal object
// that has one of those keys would read as a matcher, so such literals must be
// written {equals: {...}}; matchers are not looked for inside literals, and a
// literal object containing a matcher key at any depth is rejected as
// ambiguous unless it sits under equals.
//
// Suites imported from the Berkeley Function-Calling Leaderboard (toolgrade
// import bfcl) judge each parameter with {bfcl: [accepted, ...], type: T,
// items: T, lang: java|javascript, required: true}, BFCL's own rules (see
// BFCLSpec), and expect a call to any tool with any_tool: true (BFCL's
// relevance category).
package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/toolgrade/toolgrade/internal/srcpos"

	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"go.yaml.in/yaml/v3"
)

// MaxRoundsLimit is the largest max_rounds a suite may set; a larger value is
// almost certainly a typo, and a model looping that long wastes the run.
const MaxRoundsLimit = 100

// Suite is one parsed case file.
type Suite struct {
	// Name is the suite's name: the file's name: key, else the file's base
	// name without its extension ("suite" when there is no file name).
	Name string
	// Path is the file as given to Load or Parse; messages name it.
	Path string
	// Dir is the absolute folder of the file; relative paths in the suite
	// resolve against it.
	Dir string
	// Hash is the hex SHA-256 of the file's bytes, so a run can record which
	// version of the cases it ran.
	Hash string
	// ServersPath is the absolute path of the mcpServers file when servers: is
	// a string; it is not read here. Empty when servers: is inline or absent.
	ServersPath string
	// ServersNode is the servers: value when it is written inline (a mapping
	// holding mcpServers), for serversfile.ParseNode(ServersNode, Path, Dir), so
	// its errors keep this file's lines. Nil when servers: is a path or absent;
	// both fields are empty when the suite names no servers and the caller
	// must supply them.
	ServersNode *yaml.Node
	// Models is the default model list, in order; nil when the file gives
	// none (the caller's --models then decides).
	Models []string
	// ModelPos is where each of Models is written, for what is found wrong
	// with a model only later (not pulled on the Ollama the run reaches).
	ModelPos map[string]Pos
	// Defaults apply to every case.
	Defaults Defaults
	// Gates are the suite's CI gates (gates:), in file order, each already
	// parsed; nil when none. A finished run that fails one exits 4.
	Gates []expr.Gate
	// Margin is margin:, the non-inferiority margin (0.05 for 5 points)
	// compare judges the suite's runs at unless --margin is given; run.json
	// records it. 0 when unset.
	Margin float64
	// Variants are the suite's variants in file order (see Variant); nil
	// when none: every case then runs with the servers' own catalog only.
	Variants []Variant
	// Cases are in file order; their IDs are unique.
	Cases []Case
	// Decoys is the decoys: pool, in file order; nil when none. A variant's
	// decoys: N (or a sweep's decoys axis) draws N of its tools.
	Decoys []DecoySource
	// DecoySeed is decoy_seed:, nil when unset (see DrawSeed).
	DecoySeed *int64
	// Sweep is the sweep: grid's axes in file order; nil when none. Its
	// points are variants (after the named ones in Variants), except the
	// point equal to the defaults, which is the base (BaseSweep).
	Sweep []SweepAxis
	// BaseSweep is the grid point the base is, when one point's values are
	// all the suite's defaults; nil otherwise.
	BaseSweep []AxisValue
}

// Defaults are the run settings shared by every case of a suite. Zero values
// mean "not set": the caller's own defaults apply.
type Defaults struct {
	// System is the system prompt; empty for none. A case whose ask starts
	// with a system message uses that instead (see Conversation).
	System string
	// MaxRounds is the default round limit; 0 when unset.
	MaxRounds int
	// Think is the think value to send: "true", "false", "low", "medium" or
	// "high" (the form record.Request.Think uses); empty when unset, which
	// lets Ollama decide.
	Think string
	// KeepAlive is how long Ollama keeps the model loaded after a request;
	// nil when unset. A negative value keeps it loaded indefinitely
	// (Ollama's rule).
	KeepAlive *time.Duration
	// NormalizeStrings turns on BFCL-style string normalisation when literal
	// string arguments are compared (see MatchOptions).
	NormalizeStrings bool
	// StrictArgs is the default for cases that do not set strict_args.
	StrictArgs bool
	// SchemaHints is defaults.schema_hints: "description" folds the
	// constraints Ollama's tool format drops into the properties'
	// descriptions (see toolschema.HintText); "" (unset, or none) sends the
	// parameters as Ollama itself carries them.
	SchemaHints string
	// Execute is defaults.execute: false stops every trial at the model's
	// first response and runs none of its calls (see Case.NoExecute); nil when
	// unset, which executes.
	Execute *bool
	// AllowTools and DenyTools are glob patterns (path.Match syntax) over
	// tool names, in file order; nil when unset. A call whose tool matches a
	// deny pattern is never run; one that matches an allow pattern runs even
	// when its MCP annotations say it may change the world (see
	// bridge.Policy). A pattern is matched against the name the model sees,
	// the tool's own name and server.tool.
	AllowTools, DenyTools []ToolPattern
	// Options are Ollama model options as written (temperature, seed,
	// num_ctx, ...): integers are int64, other numbers float64, lists []any;
	// nil when none. seed is the base seed: repeat i runs with seed+i.
	Options map[string]any
	// Judge is defaults.judge: the model that grades the answers of the
	// cases with a rubric.
	Judge JudgeDefaults
	// Setup and Checks are defaults.setup and defaults.check: run in
	// every case before its own setup and after its own checks (and
	// copied into each Case's Setup and Checks). Nil when none.
	Setup, Checks []StateCall
	// UserModel is defaults.user_model: the model of the simulated users
	// whose user: names none; empty when unset.
	UserModel string
}

// Schema hint values as a suite writes them.
const (
	HintsNone        = "none"
	HintsDescription = "description"
)

// SchemaHints returns the schema hints a trial of variant v (nil: the
// base) runs with: the variant's own schema_hints, else the suite's;
// "description" or "" for none.
func (s *Suite) SchemaHints(v *Variant) string {
	h := s.Defaults.SchemaHints
	if v != nil && v.SchemaHints != "" {
		h = v.SchemaHints
	}
	if h == HintsNone {
		return ""
	}
	return h
}

// Seed returns the base seed from options, if one is set.
func (d *Defaults) Seed() (seed int64, ok bool) {
	seed, ok = d.Options["seed"].(int64)
	return seed, ok
}

// NumCtx returns options.num_ctx, or 0 when unset.
func (d *Defaults) NumCtx() int {
	n, _ := d.Options["num_ctx"].(int64)
	return int(n)
}

// Case is one test case: the conversation to start and what should come of
// it.
type Case struct {
	// ID is unique within the suite and contains no whitespace.
	ID string
	// Pos is where the case's entry starts in the file.
	Pos Pos
	// Messages are the conversation's opening turns without the default
	// system prompt (Suite.Conversation adds it): one user message for a
	// string ask; for a list, an optional leading system message, then user
	// and assistant turns, always ending with a user turn.
	Messages []Message
	// Tags are the case's tags in file order; nil when none.
	Tags []string
	// Tools are the case's own catalog (tools:), in the order written,
	// offered instead of the suite's servers' tools; nil when the case uses
	// the suite's catalog. A case with an inline tool has NoExecute set.
	Tools []CaseTool
	// ToolsPos is where tools: is written; zero when it is not.
	ToolsPos Pos
	// Expect is what a passing trial does.
	Expect Expect
	// MaxRounds is the case's round limit: its own max_rounds (in the case
	// or its expect), else defaults.max_rounds; 0 when neither is set.
	MaxRounds int
	// NoExecute is set when the trial must not run the model's tool calls:
	// the case's own execute: false, else defaults.execute: false, and
	// always when the case brings an inline tool. The trial
	// then stops at the model's first response and its calls are scored
	// without running (see score.Score). The zero value executes.
	NoExecute bool
	// Review is the case's review: true: its expectation was drafted from
	// recorded traffic (toolgrade cases from) and no person has confirmed
	// it yet. The case loads and runs as any other; run warns how many
	// await review. False when unset.
	Review bool
	// ExpectNone is set when the case gives no expect: of its own: a
	// scenario judged by its turns' expectations and its state checks
	// alone (Expect is then the zero value). False: Expect applies.
	ExpectNone bool
	// Turns are the user turns of a scenario written with turns:, in
	// order; nil otherwise. Messages then holds the first turn's message.
	Turns []Turn
	// Setup are the calls run before the conversation: defaults.setup,
	// then the case's own; Checks the state checks run after it: the
	// case's own, then defaults.check. Nil when none.
	Setup, Checks []StateCall
	// User is the simulated user (user:); nil for a case with ask: or
	// turns:.
	User *SimUser
}

// AwaitingReview returns how many cases are marked review: true.
func (s *Suite) AwaitingReview() int {
	n := 0
	for i := range s.Cases {
		if s.Cases[i].Review {
			n++
		}
	}
	return n
}

// ToolPattern is one allow_tools or deny_tools glob, where it is written.
type ToolPattern struct {
	// Glob is the pattern in path.Match syntax; it is known to be well formed.
	Glob string
	Pos  Pos
}

// Globs returns the patterns' globs in order.
func Globs(ps []ToolPattern) []string {
	if ps == nil {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Glob
	}
	return out
}

// Message is one opening turn of a case's conversation.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role    string
	Content string
}

// Expect is what a case expects of a trial.
type Expect struct {
	// Pos is where the expect mapping starts.
	Pos Pos
	// Calls are the expected tool calls: one for the tool: form, in order for
	// the calls: form; nil with NoTool.
	Calls []ExpectedCall
	// AnyOrder lets the calls: form match in any order (parallel calls).
	AnyOrder bool
	// FirstOnly is true for the tool: form: only the first call is checked
	// and later calls are free.
	FirstOnly bool
	// NoTool says that no tool may be called (an irrelevance case).
	NoTool bool
	// AnyTool (any_tool: true) expects a call to some tool of the catalog,
	// any tool with any arguments: BFCL's relevance categories, which only
	// ask whether the model called a function at all. Calls is nil with it.
	AnyTool bool
	// Answer, when set, must match the final text.
	Answer *TextMatcher
	// Judge, when set, is the rubric a judge model grades the final answer
	// against (answer: {judge: ...}); its verdict is the judged rate and
	// never changes the outcome, which Answer alone decides.
	Judge *Rubric
	// StrictArgs is the case's own strict_args; nil when the case does not
	// set it, leaving the scorer's default (defaults.strict_args, see
	// score.OptionsFor). With strict args, argument keys the case does not
	// name must not be present.
	StrictArgs *bool
	// CallMayFail (call_may_fail: true) lets a trial pass when an expected
	// call failed (its tool returned an error, or the policy blocked it):
	// for cases that test how a model handles a tool's error. Without it
	// such a trial is call_failed, since its answer cannot rest on the
	// tool's result.
	CallMayFail bool
	// BFCL is set for a case tagged bfcl_category:CATEGORY (one toolgrade
	// import bfcl wrote): the scorer then also gives BFCL's own verdict,
	// by BFCL's rules alone (score.BFCL).
	BFCL bool
}

// ExpectedCall is one tool call a case expects.
type ExpectedCall struct {
	// Tool is the name as written: plain, server.tool or server__tool.
	Tool string
	// Pos is where the tool name is written.
	Pos Pos
	// Args match the call's arguments, in the order the keys are written;
	// keys not named are free unless strict args are on. Empty means any
	// arguments (or, with strict args, none).
	Args ArgMatchers
	// Exposed is the tool's name as the model sees it, filled by
	// Suite.Check; empty before Check runs.
	Exposed string
	// Skipped names the servers that failed to connect and may have
	// offered the tool, when no connected server does (see SkipReporter);
	// Exposed is then empty, and the case cannot run.
	Skipped []string
}

// Conversation returns the messages a trial of c starts with: the suite's
// system prompt, unless the case brings its own, then the case's messages.
func (s *Suite) Conversation(c *Case) []Message {
	if s.Defaults.System == "" || (len(c.Messages) > 0 && c.Messages[0].Role == "system") {
		return append([]Message(nil), c.Messages...)
	}
	return append([]Message{{Role: "system", Content: s.Defaults.System}}, c.Messages...)
}

// Case returns the case with the given ID, or nil.
func (s *Suite) Case(id string) *Case {
	for i := range s.Cases {
		if s.Cases[i].ID == id {
			return &s.Cases[i]
		}
	}
	return nil
}

// DefaultMaxSize is the largest suite file Load reads when given no other
// size: 32 MiB holds tens of thousands of cases (a whole BFCL import is a
// few MiB), and parsing takes about 40 times its size in memory, so a
// larger file is far more likely a mistake than a suite.
const DefaultMaxSize = 32 << 20

// Load reads and parses a suite file of at most maxSize bytes (0:
// DefaultMaxSize); a larger one is refused before it is parsed, with the
// way to read it anyway.
func Load(path string, maxSize int64) (*Suite, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read one byte more than allowed: a FIFO or a device has no size to
	// check first.
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > maxSize {
		return nil, &srcpos.Error{Pos: srcpos.Pos{File: path}, Msg: fmt.Sprintf(
			"the suite is larger than %s, the most toolgrade reads (it takes about 40 times its size in memory to parse): split it into several suites, or give run --max-suite-size with a larger size", humanize.IBytes(uint64(maxSize)))}
	}
	return Parse(data, path)
}

// Parse parses a suite. path names the file in messages and its folder is
// where relative paths resolve; it is not read. On failure the error is an
// Errors listing every problem found.
func Parse(data []byte, path string) (*Suite, error) {
	sum := sha256.Sum256(data)
	s := &Suite{Path: path, Hash: hex.EncodeToString(sum[:])}
	dir := "."
	if path != "" {
		dir = filepath.Dir(path)
	}
	// Abs fails only when the working directory is gone; the relative folder
	// still works then.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	s.Dir = dir
	file := path
	if file == "" {
		file = "<input>"
	}
	p := &parser{file: file, dir: dir}
	if root := p.document(data); root != nil {
		p.suite(root, s)
	}
	if len(p.errs) > 0 {
		p.errs.Sort()
		return nil, p.errs
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if path == "" {
			s.Name = "suite"
		}
	}
	return s, nil
}
