package tgtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/harness/tgtest"
	"github.com/toolgrade/toolgrade/internal/record"
)

// flakyScript plays a model that always calls weather well, and says it is
// sunny only when the tool said so.
const flakyScript = `
models: [{name: small}]
rules:
  - user: {contains: weather}
    tool_result: {contains: Sunny}
    reply: {content: It is sunny in Paris.}
  - user: {contains: weather}
    tool_result: {regex: "."}
    reply: {content: I could not find out.}
  - user: {contains: weather}
    reply: {tool_calls: [{name: weather, arguments: {city: Paris}}]}
`

// flakyServer's weather tool has no data on every third call, so the
// scripted model misses one repeat in three, as a stochastic model might.
func flakyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "flaky", Version: "1.0.0"}, nil)
	type city struct {
		City string `json:"city"`
	}
	calls := 0
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: weatherDescription},
		func(ctx context.Context, req *mcp.CallToolRequest, in city) (*mcp.CallToolResult, any, error) {
			calls++
			text := "Sunny in " + in.City
			if calls%3 == 0 {
				text = "No data today."
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return s
}

var flakyCase = []tgtest.Case{{ID: "weather", Ask: "What is the weather in Paris?", Tool: "weather",
	Args: tgtest.Args{"city": tgtest.Contains("paris")}, Answer: tgtest.Contains("sunny")}}

func runFlaky(t *testing.T, minPass float64) *recorder {
	t.Helper()
	s, err := fakeollama.ParseScript([]byte(flakyScript), "flaky.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	tgtest.Run(r, flakyServer(), flakyCase, &tgtest.Options{Models: []string{"small"}, Repeat: 5, MinPass: minPass, Fake: s})
	if len(r.fatals) > 0 || len(r.errors) > 0 {
		t.Fatalf("the run itself failed: %v %v", r.fatals, r.errors)
	}
	return r
}

// Four passes of five hold MinPass 30%: the lower bound is 37.6%. The case
// passes as one subtest, and the missed repeat is logged with its outcome.
func TestMinPassToleratesAMissedRepeat(t *testing.T) {
	r := runFlaky(t, 0.3)
	w := r.find("weather")
	if w.failed() || len(w.children) > 0 {
		t.Fatalf("weather: errors %q, %d subtests; want a pass with no repeat subtests", w.errors, len(w.children))
	}
	if len(w.logs) != 1 {
		t.Fatalf("weather: logs %q, want one", w.logs)
	}
	for _, want := range []string{"small: pass 80% [37–97] (4/5): lower bound 37.6% >= 30% (Options.MinPass)",
		"repeat 2: " + record.OutcomeWrongAnswer, `answer: "I could not find out."`} {
		if !strings.Contains(w.logs[0], want) {
			t.Errorf("log %q lacks %q", w.logs[0], want)
		}
	}
}

// The same four of five fail MinPass 40%, and the failure shows the rate,
// its interval, the bound and the repeat that failed.
func TestMinPassFailsBelowTheBound(t *testing.T) {
	r := runFlaky(t, 0.4)
	w := r.find("weather")
	if len(w.errors) != 1 {
		t.Fatalf("weather: errors %q, want one", w.errors)
	}
	for _, want := range []string{"small: pass 80% [37–97] (4/5): lower bound 37.6% < 40% (Options.MinPass)",
		"\n  repeat 2: " + record.OutcomeWrongAnswer, "\n    calls: weather(", `answer: "I could not find out."`} {
		if !strings.Contains(w.errors[0], want) {
			t.Errorf("failure %q lacks %q", w.errors[0], want)
		}
	}
	if strings.Contains(w.errors[0], "repeat 0") {
		t.Errorf("failure %q lists a repeat that passed", w.errors[0])
	}
}

// Without MinPass every repeat is its own subtest, and the missed one fails.
func TestEveryRepeatMustPassWithoutMinPass(t *testing.T) {
	s, err := fakeollama.ParseScript([]byte(flakyScript), "flaky.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	tgtest.Run(r, flakyServer(), flakyCase, &tgtest.Options{Models: []string{"small"}, Repeat: 3, Fake: s})
	if c := r.find("weather/repeat2"); len(c.errors) != 1 || !strings.Contains(c.errors[0], record.OutcomeWrongAnswer) {
		t.Errorf("repeat2: errors %q, want wrong_answer", c.errors)
	}
	for _, ok := range []string{"weather/repeat0", "weather/repeat1"} {
		if c := r.find(ok); c.failed() {
			t.Errorf("%s: %q", ok, c.errors)
		}
	}
}

// A MinPass that no bound can reach with Repeat repeats, or that is out of
// range, fails the test before anything runs, saying what would do.
func TestMinPassThatCannotHold(t *testing.T) {
	for _, tc := range []struct {
		repeat  int
		minPass float64
		want    string
	}{
		{3, 0.9, "Options.MinPass 90% cannot hold with Repeat 3: even 3 passes of 3 give a lower bound of 43.9%; it takes Repeat 35 at least"},
		{0, 0.5, "Options.MinPass 50% cannot hold with Repeat 1"},
		{10, 1, "Options.MinPass 1: must be at least 0 and below 1"},
		{10, -0.5, "must be at least 0 and below 1"},
	} {
		r := newRecorder(t)
		tgtest.Run(r, newServer(weatherDescription), cases, &tgtest.Options{Models: []string{"small"}, Repeat: tc.repeat, MinPass: tc.minPass, Fake: fakeScript(t)})
		if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], tc.want) || len(r.children) > 0 {
			t.Errorf("Repeat %d MinPass %v: fatals %q, %d subtests; want %q and none", tc.repeat, tc.minPass, r.fatals, len(r.children), tc.want)
		}
	}
}
