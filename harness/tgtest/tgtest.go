package tgtest

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// TB is the part of *testing.T that tgtest reports through. *testing.T
// satisfies it; tests of tgtest pass a recorder instead.
type TB interface {
	Helper()
	Context() context.Context
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
}

// T is a TB that runs subtests of its own type, as *testing.T does (its Run
// takes a func(*testing.T)).
type T[S any] interface {
	TB
	Run(name string, f func(S)) bool
}

// Options tune a run. A nil *Options is the zero value.
type Options struct {
	// Models are the Ollama models every case runs with, in order; nil: the
	// suite's models (RunSuite). With neither, Run fails the test.
	Models []string
	// Repeat is how many times each case runs per model; zero: 1. Repeat i
	// runs with seed options.seed + i.
	Repeat int
	// Think is the think value sent ("true", "false", "low", "medium",
	// "high"); empty: the suite's, else Ollama decides.
	Think string
	// ModelOptions are Ollama model options (temperature, seed, num_ctx,
	// ...), merged over the suite's; nil: the suite's alone. Integers should
	// be int64, as a parsed suite holds them.
	ModelOptions map[string]any
	// System is the system prompt; empty: the suite's, else none.
	System string
	// MaxRounds is the round limit of each conversation; zero: the case's
	// own, else bridge.DefaultMaxRounds.
	MaxRounds int
	// Timeout bounds the whole run (checks, warm-up and every trial); zero:
	// no bound of its own, so go test's -timeout applies.
	Timeout time.Duration
	// Ollama is the Ollama's URL; empty: OLLAMA_HOST, else Ollama's default
	// (127.0.0.1:11434), found as `toolgrade run` finds it. Ignored when
	// Fake is set.
	Ollama string
	// Fake, when set, serves this script with the fake Ollama of
	// fakes/ollama on a loopback port for the length of the test instead of
	// a real Ollama, with the script's latencies.
	Fake *fakeollama.Script
	// ServerName is the name the server's tools are listed under (a case may
	// name a tool as server.tool); empty: "server".
	ServerName string
	// RunDir, when set, is a new run directory the trials are written to
	// (run.json and trials.jsonl), so `toolgrade report RunDir` can show
	// them; it must not hold a run already. Empty: trials stay in memory.
	RunDir string
}

// Case is one question and what a passing trial does with it: it mirrors the
// tool:/no_tool: forms of a suite case.
type Case struct {
	// ID names the subtest; empty: "case1", "case2", ... by position.
	ID string
	// Ask is the user's question.
	Ask string
	// Tool is the tool the model's first call must name (plain, server.tool
	// or server__tool); later calls are free. Empty with NoTool.
	Tool string
	// Args match the first call's arguments, with the suite's matchers
	// (suite.MatchEquals, MatchContains, MatchRegex, ...). Keys not named
	// are free; nil: any arguments.
	Args suite.ArgMatchers
	// NoTool says the model must call no tool at all.
	NoTool bool
	// Answer, when set, must match the final answer's text.
	Answer *suite.TextMatcher
}

// Run runs cases against srv and reports each as a subtest of t.
func Run[S T[S]](t S, srv *mcp.Server, cases []Case, o *Options) {
	t.Helper()
	s, err := Suite(cases)
	if err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}
	RunSuite(t, srv, s, o)
}

// Suite builds the suite.Suite that Run runs from Go cases. Its error names
// the case (by position) that is not well formed.
func Suite(cases []Case) (*suite.Suite, error) {
	if len(cases) == 0 {
		return nil, fmt.Errorf("no cases")
	}
	s := &suite.Suite{Name: "tgtest", Path: "tgtest"}
	seen := map[string]bool{}
	for i, c := range cases {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("case%d", i+1)
		}
		where := fmt.Sprintf("case %d (%s)", i+1, id)
		switch {
		case seen[id]:
			return nil, fmt.Errorf("%s: the id is used twice", where)
		case c.Ask == "":
			return nil, fmt.Errorf("%s: Ask is empty", where)
		case c.NoTool == (c.Tool != ""):
			return nil, fmt.Errorf("%s: give exactly one of Tool and NoTool", where)
		case c.NoTool && len(c.Args) > 0:
			return nil, fmt.Errorf("%s: Args need a Tool", where)
		}
		seen[id] = true
		sc := suite.Case{ID: id, Messages: []suite.Message{{Role: "user", Content: c.Ask}}}
		sc.Expect.Answer = c.Answer
		if c.NoTool {
			sc.Expect.NoTool = true
		} else {
			sc.Expect.FirstOnly = true
			sc.Expect.Calls = []suite.ExpectedCall{{Tool: c.Tool, Args: c.Args}}
		}
		s.Cases = append(s.Cases, sc)
	}
	return s, nil
}
