package tgtest_test

import (
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/harness/tgtest"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// A description that no longer says what the tool is for makes the scripted
// model call add for the weather: the weather subtest fails with the outcome,
// the scorer's detail and the call it made; the others still pass.
func TestBadDescriptionFails(t *testing.T) {
	r := newRecorder(t)
	tgtest.Run(r, newServer("Returns data."), cases, &tgtest.Options{Models: []string{"small"}, Fake: fakeScript(t)})
	if len(r.fatals) > 0 || len(r.errors) > 0 {
		t.Fatalf("the run itself failed: %v %v", r.fatals, r.errors)
	}
	w := r.find("weather")
	if len(w.errors) != 1 {
		t.Fatalf("weather: errors %q, want one", w.errors)
	}
	msg := w.errors[0]
	for _, want := range []string{"small repeat 0", record.OutcomeWrongTool, `"add"`, `calls: add({"a":1,"b":2})`} {
		if !strings.Contains(msg, want) {
			t.Errorf("weather's failure %q lacks %q", msg, want)
		}
	}
	for _, id := range []string{"add", "joke"} {
		if c := r.find(id); c.failed() || len(c.skips) > 0 {
			t.Errorf("%s: errors %q, skips %q; want a pass", id, c.errors, c.skips)
		}
	}
}

// With OLLAMA_HOST at a closed loopback port, every case is skipped with a
// message naming OLLAMA_HOST and the address tried, and nothing fails.
func TestSkipsWithoutOllama(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("OLLAMA_HOST", addr)
	r := newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), cases, &tgtest.Options{Models: []string{"qwen3:1.7b"}})
	if r.anyFailed() {
		t.Fatalf("failed instead of skipping: %v %v", r.fatals, r.errors)
	}
	if len(r.children) != len(cases) {
		t.Fatalf("%d subtests, want %d", len(r.children), len(cases))
	}
	for _, c := range r.children {
		if len(c.skips) != 1 || !strings.Contains(c.skips[0], "OLLAMA_HOST") || !strings.Contains(c.skips[0], addr) {
			t.Errorf("%s: skips %q, want one naming OLLAMA_HOST and %s", c.name, c.skips, addr)
		}
	}
}

// A model that is not pulled skips its subtests with the pull command; the
// pulled model's trials still run, each under its own model's subtest.
func TestSkipsModelNotPulled(t *testing.T) {
	r := newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), cases, &tgtest.Options{Models: []string{"small", "absent"}, Fake: fakeScript(t)})
	if r.anyFailed() {
		t.Fatalf("failed: %v %v", r.fatals, r.errors)
	}
	for _, c := range cases {
		if s := r.find(c.ID + "/small"); len(s.skips) > 0 {
			t.Errorf("%s/small skipped: %q", c.ID, s.skips)
		}
		a := r.find(c.ID + "/absent")
		if len(a.skips) != 1 || !strings.Contains(a.skips[0], "ollama pull absent") {
			t.Errorf("%s/absent: skips %q, want the pull hint", c.ID, a.skips)
		}
	}
}

// With RunDir the trials land in a run directory that the store (what
// `toolgrade report` reads) opens, one per case × repeat, and each repeat
// has its own subtest.
func TestRunDirIsAReportableRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), cases, &tgtest.Options{Models: []string{"small"}, Repeat: 2, Fake: fakeScript(t), RunDir: dir})
	if r.anyFailed() {
		t.Fatalf("failed: %v %v", r.fatals, r.errors)
	}
	r.find("weather/repeat1")
	run, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Run.Status != store.StatusComplete || run.Run.Repeat != 2 {
		t.Errorf("run.json: status %q repeat %d, want complete and 2", run.Run.Status, run.Run.Repeat)
	}
	var got []string
	if _, err := run.Trials(func(tr *record.Trial) {
		got = append(got, tr.CaseID+"/"+tr.Score.Outcome)
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"add/pass", "add/pass", "joke/pass", "joke/pass", "weather/pass", "weather/pass"}
	if !slices.Equal(got, want) {
		t.Errorf("trials %v, want %v", got, want)
	}
}

// A case naming a tool the server does not have fails the test before any
// model runs, with the suite's own message.
func TestUnknownToolFailsEarly(t *testing.T) {
	r := newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), []tgtest.Case{{Ask: "Forecast?", Tool: "forecast"}},
		&tgtest.Options{Models: []string{"small"}, Fake: fakeScript(t)})
	if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "forecast") || len(r.children) > 0 {
		t.Errorf("fatals %q, %d subtests; want one fatal naming the tool and no subtests", r.fatals, len(r.children))
	}
}

func TestSuiteRejectsMalformedCases(t *testing.T) {
	for _, tc := range []struct {
		cases []tgtest.Case
		want  string
	}{
		{nil, "no cases"},
		{[]tgtest.Case{{Tool: "add"}}, "case 1: Ask is empty"},
		{[]tgtest.Case{{Ask: "x"}}, "exactly one of Tool and NoTool"},
		{[]tgtest.Case{{Ask: "x", Tool: "add", NoTool: true}}, "exactly one of Tool and NoTool"},
		{[]tgtest.Case{{Ask: "x", NoTool: true, Args: tgtest.Args{"a": tgtest.Any()}}}, "Args need a Tool"},
		{[]tgtest.Case{{ID: "a", Ask: "x", NoTool: true}, {ID: "a", Ask: "y", NoTool: true}}, "case 2 (a): the id is used twice"},
		{[]tgtest.Case{{Ask: "x y", NoTool: true}, {Ask: "x y", NoTool: true}}, "case 2 (x_y): the question is asked twice: give the cases IDs"},
		{[]tgtest.Case{{ID: "r", Ask: "x", Tool: "add", Args: tgtest.Args{"a": tgtest.Regex("(")}}}, `case 1 (r): Args["a"]: Regex: error parsing regexp`},
		{[]tgtest.Case{{Ask: "x", Tool: "add", Args: tgtest.Args{"a": {}}}}, `Args["a"]: the zero Matcher expects nothing`},
		{[]tgtest.Case{{Ask: "x", Tool: "add", Args: tgtest.Args{"": tgtest.Any()}}}, "an argument name is empty"},
		{[]tgtest.Case{{Ask: "x", Tool: "add", Args: tgtest.Args{"a": tgtest.Equals(func() {})}}}, "Equals: json: unsupported type"},
		{[]tgtest.Case{{Ask: "x", Tool: "add", Args: tgtest.Args{"a": tgtest.Number(1, -1)}}}, "Number: the tolerance -1 is negative"},
		{[]tgtest.Case{{Ask: "x", Tool: "add", Args: tgtest.Args{"a": tgtest.OneOf()}}}, "OneOf: no values"},
		{[]tgtest.Case{{Ask: "x", Tool: "add", Args: tgtest.Args{"a": tgtest.Contains("")}}}, "Contains: the text is empty"},
		{[]tgtest.Case{{Ask: "x", Tool: "add", Args: tgtest.Args{"a": tgtest.BFCL([]any{1}, &tgtest.BFCLOptions{Lang: "go"})}}}, `BFCL: Lang must be python, java or javascript, not "go"`},
		{[]tgtest.Case{{Ask: "x", NoTool: true, Answer: tgtest.Equals("x")}}, "Answer: an answer takes Contains, Regex or OneOf, not x"},
		{[]tgtest.Case{{Ask: "x", NoTool: true, Answer: tgtest.OneOf("yes", 1)}}, "Answer: OneOf: an answer is text, and 1 is not"},
	} {
		_, err := tgtest.NewSuite(tc.cases)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewSuite(%v): %v, want %q", tc.cases, err, tc.want)
		}
	}
}

// Options.Timeout bounds the run: an Ollama that stalls mid-answer stops it,
// and the case whose trial never ended fails saying so instead of hanging.
func TestTimeoutStopsAStalledRun(t *testing.T) {
	stall, err := fakeollama.ParseScript([]byte(script+`
  - user: {contains: stall}
    fault: stall
`), "stall.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), []tgtest.Case{{ID: "stalls", Ask: "Please stall.", NoTool: true}},
		&tgtest.Options{Models: []string{"small"}, Fake: stall, Timeout: 200 * time.Millisecond})
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "Options.Timeout (200ms) ran out") {
		t.Errorf("errors %q, want the run's stop", r.errors)
	}
	if c := r.find("stalls"); len(c.errors) != 1 || !strings.Contains(c.errors[0], "no trial was recorded") {
		t.Errorf("stalls: errors %q, want the missing trial", c.errors)
	}
}

// A suite file runs too: its models and defaults apply, its cases become the
// subtests, and the in-process server stands for the servers it would name.
func TestRunSuiteFromYAML(t *testing.T) {
	s, err := tgtest.ParseSuite([]byte(`
models: [small]
defaults: {max_rounds: 3, options: {seed: 7}}
cases:
  - id: sum
    ask: Please add 2 and 3.
    expect: {tool: add, args: {a: 2, b: {number: 3}}}
  - id: forecast
    ask: What is the weather in Paris?
    expect: {tool: weather, args: {city: {regex: "^Par"}}}
`), "cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	tgtest.RunSuite(r, newServer("Returns data."), s, &tgtest.Options{Fake: fakeScript(t)})
	if len(r.fatals) > 0 || len(r.errors) > 0 {
		t.Fatalf("the run itself failed: %v %v", r.fatals, r.errors)
	}
	if got := tgtest.SuiteOf(s).Cases[0].Expect.Calls[0].Exposed; got != "" {
		t.Errorf("RunSuite changed the caller's suite: Exposed = %q", got)
	}
	if c := r.find("sum"); c.failed() {
		t.Errorf("sum: %q", c.errors)
	}
	if c := r.find("forecast"); len(c.errors) != 1 || !strings.Contains(c.errors[0], record.OutcomeWrongTool) {
		t.Errorf("forecast: errors %q, want wrong_tool", c.errors)
	}
}

// A case without an ID is named by its question, rewritten as t.Run
// rewrites it, and its trials carry that name in the run directory.
func TestSubtestsNamedByTheQuestion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), []tgtest.Case{
		{Ask: "Please add 2 and 3.", Tool: "add", Args: tgtest.Args{"a": tgtest.Equals(2), "b": tgtest.Number(3, 0)}},
		{ID: "a joke", Ask: "Tell me a joke.", NoTool: true, Answer: tgtest.Regex("(?i)why")},
	}, &tgtest.Options{Models: []string{"small"}, Fake: fakeScript(t), RunDir: dir})
	if r.anyFailed() {
		t.Fatalf("failed: %v %v", r.fatals, r.errors)
	}
	var names []string
	for _, c := range r.children {
		names = append(names, strings.TrimPrefix(c.name, r.name+"/"))
	}
	if want := []string{"Please_add_2_and_3.", "a_joke"}; !slices.Equal(names, want) {
		t.Errorf("subtests %q, want %q", names, want)
	}
	run, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	if _, err := run.Trials(func(tr *record.Trial) { ids = append(ids, tr.CaseID) }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, names) {
		t.Errorf("trials' case IDs %q, want the subtests' names %q", ids, names)
	}
}

// ModelOptions are taken as JSON writes them: an int seed is the run's seed,
// as an int64 from a parsed suite is.
func TestModelOptionsOfAnyIntegerType(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), cases, &tgtest.Options{Models: []string{"small"}, Fake: fakeScript(t), RunDir: dir,
		ModelOptions: map[string]any{"seed": 7, "temperature": float32(0.5)}})
	if r.anyFailed() {
		t.Fatalf("failed: %v %v", r.fatals, r.errors)
	}
	run, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Run.BaseSeed != 7 || run.Run.Options["temperature"] != 0.5 {
		t.Errorf("run.json: base seed %d, options %v; want 7 and temperature 0.5", run.Run.BaseSeed, run.Run.Options)
	}
	r = newRecorder(t)
	tgtest.Run(r, newServer(weatherDescription), cases, &tgtest.Options{Models: []string{"small"}, Fake: fakeScript(t),
		ModelOptions: map[string]any{"seed": make(chan int)}})
	if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "Options.ModelOptions: json: unsupported type") {
		t.Errorf("fatals %q, want the unsupported option", r.fatals)
	}
}
