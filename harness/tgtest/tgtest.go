package tgtest

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

// TB is the part of *testing.T that tgtest reports through. *testing.T
// satisfies it; a test of code built on tgtest may pass a recorder instead.
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
	// MinPass, when above zero, judges each case and model once, on its
	// pass rate over the repeats, as a `--gate pass>=MinPass --gate-on
	// lower` gate judges a run: the case passes when the lower end of the
	// rate's 95% Wilson interval is at least MinPass, so a stochastic model
	// may fail a repeat and still pass. The bound is cautious with few
	// repeats: with Repeat 10 and MinPass 0.5, 9 passes (a bound of 59.6%)
	// pass and 8 (49.0%) fail; 10 of 10 reach 72.2%, 20 of 20 83.9%. A run
	// in which even Repeat passes could not reach MinPass fails at once.
	// Repeats that hit an infrastructure error, or whose prompt reached
	// num_ctx, are left out of the rate as reports leave them out. Zero:
	// every repeat must pass, each its own subtest when Repeat > 1. It must
	// be below 1, which no bound reaches.
	MinPass float64
	// Think is the think value sent ("true", "false", "low", "medium",
	// "high"); empty: the suite's, else Ollama decides.
	Think string
	// ModelOptions are Ollama model options (temperature, seed, num_ctx,
	// ...), merged over the suite's; nil: the suite's alone. Values are
	// taken as encoding/json writes them, so a seed may be any integer type.
	ModelOptions map[string]any
	// System is the system prompt; empty: the suite's, else none.
	System string
	// MaxRounds is the round limit of each conversation; zero: the case's
	// own, else 5, as in `toolgrade run`.
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

// Run runs cases against srv and reports each as a subtest of t, named by
// the case's ID. A malformed case fails t before anything runs.
func Run[S T[S]](t S, srv *mcp.Server, cases []Case, o *Options) {
	t.Helper()
	s, err := NewSuite(cases)
	if err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}
	RunSuite(t, srv, s, o)
}
