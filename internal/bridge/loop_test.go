package bridge_test

import (
	"bytes"
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
)

// env is a fake Ollama over real HTTP and a catalog of in-process fake MCP
// servers: the same code paths as against the real ones.
type env struct {
	ollama *fakeollama.Server
	loop   *bridge.Loop
	cat    *mcpclient.Catalog
}

func newEnv(t *testing.T, script *fakeollama.Script, opts *mcpclient.Options, serverNames ...string) *env {
	t.Helper()
	fake, base := rig.Ollama(t, script, nil)
	cat := rig.Catalog(t, opts, serverNames...)
	return &env{
		ollama: fake,
		cat:    cat,
		loop:   &bridge.Loop{Chat: api.NewClient(base, http.DefaultClient), Tools: cat},
	}
}

func ask(q string) bridge.Request {
	return bridge.Request{Model: "scripted-good", Messages: []api.Message{{Role: "user", Content: q}}}
}

func (e *env) run(t *testing.T, req bridge.Request) *record.Transcript {
	t.Helper()
	tr, err := e.loop.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return tr
}

// chats returns the /api/chat requests the fake received.
func (e *env) chats() []*api.ChatRequest {
	var out []*api.ChatRequest
	for _, r := range e.ollama.Requests() {
		if r.Chat != nil {
			out = append(out, r.Chat)
		}
	}
	return out
}

func TestOneCallThenAnswer(t *testing.T) {
	e := newEnv(t, nil, nil, "docs")
	tr := e.run(t, ask("Can I bring my dog?"))
	if len(tr.Rounds) != 2 || tr.Answer != "Yes. Dogs are welcome on the terrace." {
		t.Fatalf("%d rounds, answer %q", len(tr.Rounds), tr.Answer)
	}
	ex := tr.Rounds[0].Executions
	if len(ex) != 1 || ex[0].Server != "docs" || ex[0].Tool != "search" || ex[0].IsError || !strings.Contains(ex[0].Result, "terrace") {
		t.Fatalf("executions %+v", ex)
	}
	chats := e.chats()
	if len(chats) != 2 {
		t.Fatalf("%d chat requests", len(chats))
	}
	msgs := chats[1].Messages
	if len(msgs) != 3 || msgs[1].Role != "assistant" || len(msgs[1].ToolCalls) != 1 || msgs[2].Role != "tool" {
		t.Fatalf("round 2 messages %+v", msgs)
	}
	call := msgs[1].ToolCalls[0]
	if msgs[2].ToolName != "search" || msgs[2].ToolCallID != call.ID || call.ID == "" || msgs[2].Content != ex[0].Result {
		t.Errorf("tool message %+v for call %+v", msgs[2], call)
	}
	for i, c := range chats {
		if len(c.Tools) != 3 || c.Stream == nil || !*c.Stream {
			t.Errorf("request %d: %d tools, stream %v", i+1, len(c.Tools), c.Stream)
		}
	}
	m := tr.Rounds[0].Metrics
	if m.PromptEvalCount == 0 || m.EvalCount == 0 || m.TotalDuration == 0 {
		t.Errorf("metrics not kept: %+v", m)
	}
}

func TestTwoCallsInOneRound(t *testing.T) {
	e := newEnv(t, nil, nil, "docs")
	tr := e.run(t, ask("Check the hours and the menu."))
	ex := tr.Rounds[0].Executions
	if len(tr.Rounds) != 2 || len(ex) != 2 {
		t.Fatalf("%d rounds, %d executions", len(tr.Rounds), len(ex))
	}
	if !strings.Contains(ex[0].Result, "Mon-Fri") || !strings.Contains(ex[1].Result, "Menu") {
		t.Errorf("results %q / %q", ex[0].Result, ex[1].Result)
	}
	msgs := e.chats()[1].Messages
	if len(msgs) != 4 || msgs[2].ToolCallID == msgs[3].ToolCallID || msgs[2].Content != ex[0].Result || msgs[3].Content != ex[1].Result {
		t.Errorf("round 2 messages %+v", msgs)
	}
}

func TestThreeRoundChain(t *testing.T) {
	e := newEnv(t, nil, nil, "docs")
	tr := e.run(t, ask("Find the dog policy, then open that document."))
	if len(tr.Rounds) != 3 {
		t.Fatalf("%d rounds", len(tr.Rounds))
	}
	calls := tr.ToolCalls()
	if len(calls) != 2 || calls[0].Name != "search" || calls[1].Name != "get_document" {
		t.Fatalf("calls %+v", calls)
	}
	if tr.Answer != "Dogs are welcome on the terrace." || tr.RoundLimitHit {
		t.Errorf("answer %q, limit %v", tr.Answer, tr.RoundLimitHit)
	}
	if n := e.chats()[2].Messages; len(n) != 5 {
		t.Errorf("round 3 sent %d messages", len(n))
	}
}

func loopScript() *fakeollama.Script {
	no := false
	return &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-good"}},
		Rules: []fakeollama.Rule{
			{ToolsOffered: &no, Reply: fakeollama.Reply{Content: "I give up searching."}},
			{Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("search", "query", "again")}}},
		},
	}
}

func TestRoundLimitSendsAFinalRequestWithoutTools(t *testing.T) {
	e := newEnv(t, loopScript(), nil, "docs")
	req := ask("Loop forever.")
	req.MaxRounds = 2
	tr := e.run(t, req)
	chats := e.chats()
	if len(chats) != 3 || len(tr.Rounds) != 3 {
		t.Fatalf("%d requests, %d rounds", len(chats), len(tr.Rounds))
	}
	if len(chats[0].Tools) == 0 || len(chats[1].Tools) == 0 || len(chats[2].Tools) != 0 {
		t.Errorf("tools per request: %d %d %d", len(chats[0].Tools), len(chats[1].Tools), len(chats[2].Tools))
	}
	last := tr.Rounds[2]
	if !tr.RoundLimitHit || !last.Request.Final || last.Request.ToolsSent || tr.Answer != "I give up searching." {
		t.Errorf("limit %v final %v tools %v answer %q", tr.RoundLimitHit, last.Request.Final, last.Request.ToolsSent, tr.Answer)
	}
	if n := len(tr.Executions()); n != 2 {
		t.Errorf("%d executions, want one per round with tools", n)
	}
}

func TestDefaultRoundLimit(t *testing.T) {
	e := newEnv(t, loopScript(), nil, "docs")
	tr := e.run(t, ask("Loop forever."))
	if tr.MaxRounds != bridge.DefaultMaxRounds || len(tr.Rounds) != bridge.DefaultMaxRounds+1 {
		t.Errorf("max %d, %d rounds", tr.MaxRounds, len(tr.Rounds))
	}
}

func TestUnknownToolIsAResultTheModelSees(t *testing.T) {
	s := &fakeollama.Script{
		// A model whose server passes unchecked names through.
		Models: []fakeollama.Model{{Name: "scripted-good", KeepUnknownCalls: true}},
		Rules: []fakeollama.Rule{
			{ToolResult: &fakeollama.Matcher{Contains: "unknown tool"}, Reply: fakeollama.Reply{Content: "No weather tool here."}},
			{Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("get_weather", "city", "Paris")}}},
		},
	}
	e := newEnv(t, s, nil, "docs")
	tr := e.run(t, ask("What's the weather?"))
	ex := tr.Executions()
	if len(ex) != 1 || ex[0].ErrorKind != record.ExecUnknownTool || !ex[0].IsError || ex[0].Server != "" {
		t.Fatalf("executions %+v", ex)
	}
	if tr.Answer != "No weather tool here." {
		t.Errorf("answer %q", tr.Answer)
	}
}

func TestToolErrorIsAResultTheModelSees(t *testing.T) {
	s := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-good"}},
		Rules: []fakeollama.Rule{
			{ToolResult: &fakeollama.Matcher{Contains: "injected failure: disk full"}, Reply: fakeollama.Reply{Content: "The tool failed."}},
			{Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("fail", "reason", "disk full")}}},
		},
	}
	e := newEnv(t, s, nil, "faulty")
	tr := e.run(t, ask("Fail."))
	ex := tr.Executions()
	if len(ex) != 1 || ex[0].ErrorKind != record.ExecToolError || ex[0].InfraError() {
		t.Fatalf("executions %+v", ex)
	}
	if tr.Answer != "The tool failed." {
		t.Errorf("answer %q: the model did not see the error", tr.Answer)
	}
}

func TestHangingToolTimesOutAndTheLoopGoesOn(t *testing.T) {
	s := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-good"}},
		Rules: []fakeollama.Rule{
			{ToolResult: &fakeollama.Matcher{Contains: "timed out"}, Reply: fakeollama.Reply{Content: "It took too long."}},
			{Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("hang")}}},
		},
	}
	e := newEnv(t, s, &mcpclient.Options{CallTimeout: 200 * time.Millisecond}, "faulty")
	tr := e.run(t, ask("Hang."))
	ex := tr.Executions()
	if len(ex) != 1 || ex[0].ErrorKind != record.ExecTimeout || !ex[0].InfraError() {
		t.Fatalf("executions %+v", ex)
	}
	if tr.Answer != "It took too long." || tr.Failure != nil {
		t.Errorf("answer %q failure %v", tr.Answer, tr.Failure)
	}
}

func TestCallsSplitAcrossChunksAreAllExecuted(t *testing.T) {
	s := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-think", Capabilities: []string{"completion", "tools", "thinking"}}},
		Rules: []fakeollama.Rule{
			{Round: 2, Reply: fakeollama.Reply{Content: "All three echoed back.", Chunks: 3}},
			{Reply: fakeollama.Reply{Thinking: "Three echoes, one at a time.", Content: "Echoing.", Chunks: 3,
				ToolCalls: []fakeollama.ToolCall{
					fakeollama.Call("echo", "text", "one"), fakeollama.Call("echo", "text", "two"), fakeollama.Call("echo", "text", "three"),
				}}},
		},
	}
	e := newEnv(t, s, nil, "faulty")
	req := ask("Echo three times.")
	req.Model = "scripted-think"
	tr := e.run(t, req)
	r1 := tr.Rounds[0]
	// Three thinking chunks, three call chunks, content chunks, the done line.
	if r1.Response.Chunks < 8 || r1.Response.Thinking != "Three echoes, one at a time." || r1.Response.Content != "Echoing." {
		t.Fatalf("round 1: %d chunks, thinking %q, content %q", r1.Response.Chunks, r1.Response.Thinking, r1.Response.Content)
	}
	var results []string
	for _, ex := range r1.Executions {
		results = append(results, ex.Result)
	}
	if strings.Join(results, ",") != "one,two,three" {
		t.Errorf("results %v", results)
	}
	// The assistant message sent back keeps the thinking and all calls.
	back := e.chats()[1].Messages[1]
	if back.Thinking != r1.Response.Thinking || len(back.ToolCalls) != 3 {
		t.Errorf("assistant message sent back: %+v", back)
	}
}

func TestOllamaFailuresAreRecorded(t *testing.T) {
	for _, tc := range []struct {
		fault  fakeollama.Fault
		kind   string
		status int
	}{
		{fakeollama.FaultHTTP500, record.FailureOllama, 500},
		{fakeollama.FaultNoTools, record.FailureOllama, 400},
		{fakeollama.FaultErrorMidStream, record.FailureStream, 0},
		{fakeollama.FaultDrop, record.FailureStream, 0},
		{fakeollama.FaultInvalidJSON, record.FailureStream, 0},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			s := &fakeollama.Script{
				Models: []fakeollama.Model{{Name: "scripted-good"}},
				Rules:  []fakeollama.Rule{{Fault: tc.fault, Reply: fakeollama.Reply{Content: "partial answer", Chunks: 2}}},
			}
			e := newEnv(t, s, nil, "docs")
			tr, err := e.loop.Run(context.Background(), ask("Hi."))
			if err == nil || tr.Failure == nil {
				t.Fatalf("no failure: %+v", tr)
			}
			if tr.Failure.Kind != tc.kind || tr.Failure.HTTPStatus != tc.status {
				t.Errorf("failure %+v, want kind %s status %d", tr.Failure, tc.kind, tc.status)
			}
			if len(tr.Rounds) != 1 || tr.Rounds[0].Response.Failure == nil {
				t.Errorf("round not recorded: %+v", tr.Rounds)
			}
		})
	}
}

func TestEmptyAnswerIsNotAFailure(t *testing.T) {
	e := newEnv(t, nil, nil, "docs")
	req := ask("What's the weather in Paris today?")
	req.Model = "scripted-weak" // it names get_weather, which nobody offered
	tr := e.run(t, req)
	if tr.Answer != "" || len(tr.Rounds) != 1 || len(tr.ToolCalls()) != 0 || tr.Failure != nil {
		t.Errorf("%+v", tr)
	}
}

func TestCancellationMidRoundLeavesNothingRunning(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		hour := time.Hour
		s := &fakeollama.Script{
			Models: []fakeollama.Model{{Name: "scripted-good"}},
			Rules:  []fakeollama.Rule{{Latency: &hour, Reply: fakeollama.Reply{Content: "too late"}}},
		}
		e := newEnv(t, s, nil, "docs")
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for len(e.ollama.Requests()) == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		start := time.Now()
		tr, err := e.loop.Run(ctx, ask("Hi."))
		if err == nil || tr.Failure == nil || tr.Failure.Kind != record.FailureCanceled {
			t.Fatalf("err %v failure %+v", err, tr.Failure)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("cancellation took %v", d)
		}
		e.cat.Close()
	}()
	// The test's cleanups (servers, catalog) have not run yet; the round's
	// own goroutines must be gone already, apart from idle HTTP connections.
	waitGoroutines(t, before+12)
}

func TestCancellationDuringAToolCall(t *testing.T) {
	s := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-good"}},
		Rules:  []fakeollama.Rule{{Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("hang")}}}},
	}
	e := newEnv(t, s, &mcpclient.Options{CallTimeout: time.Hour}, "faulty")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	tr, err := e.loop.Run(ctx, ask("Hang."))
	if err == nil || tr.Failure == nil || tr.Failure.Kind != record.FailureCanceled {
		t.Fatalf("err %v, failure %+v", err, tr.Failure)
	}
	if n := len(tr.Executions()); n != 1 {
		t.Errorf("%d executions recorded", n)
	}
}

func TestRequestsAreByteIdenticalAcrossRuns(t *testing.T) {
	var bodies [][][]byte
	for range 3 {
		e := newEnv(t, nil, nil, "docs")
		req := ask("Find the dog policy, then open that document.")
		req.Options = map[string]any{"temperature": 0, "seed": 42, "num_ctx": 8192}
		e.run(t, req)
		var b [][]byte
		for _, r := range e.ollama.Requests() {
			if r.Chat != nil {
				b = append(b, r.Body)
			}
		}
		bodies = append(bodies, b)
	}
	for i := 1; i < len(bodies); i++ {
		if len(bodies[i]) != len(bodies[0]) {
			t.Fatalf("run %d sent %d requests, run 0 sent %d", i, len(bodies[i]), len(bodies[0]))
		}
		for j := range bodies[0] {
			// Call ids are random per response, as in real Ollama; the
			// fake's seed makes them repeat too, so whole bodies compare.
			if !bytes.Equal(bodies[0][j], bodies[i][j]) {
				t.Errorf("request %d differs between runs:\n%s\n%s", j+1, bodies[0][j], bodies[i][j])
			}
		}
	}
}

func waitGoroutines(t *testing.T, max int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > max {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines left (want at most %d):\n%s", runtime.NumGoroutine(), max, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// clientScript has the model call a tool only the client offers.
func clientScript() *fakeollama.Script {
	return &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-good"}},
		Rules: []fakeollama.Rule{
			{User: &fakeollama.Matcher{Contains: "what time"}, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{fakeollama.Call("clock", "zone", "UTC")}}},
		},
	}
}

func clockTool() api.Tool {
	return api.Tool{Type: "function", Function: api.ToolFunction{Name: "clock", Description: "the time"}}
}

func TestAClientToolCallEndsTheConversationUnexecuted(t *testing.T) {
	e := newEnv(t, clientScript(), nil, "docs")
	req := ask("what time is it?")
	req.ClientTools = api.Tools{clockTool()}
	tr := e.run(t, req)
	if len(tr.Rounds) != 1 || len(tr.Rounds[0].Executions) != 0 {
		t.Fatalf("%d rounds, executions %+v", len(tr.Rounds), tr.Rounds[0].Executions)
	}
	calls := tr.Rounds[0].Response.ToolCalls
	if len(calls) != 1 || calls[0].Name != "clock" {
		t.Fatalf("calls %+v", calls)
	}
	chats := e.chats()
	if len(chats) != 1 || len(chats[0].Tools) != 4 || chats[0].Tools[3].Function.Name != "clock" {
		t.Fatalf("requests %d, tools %+v", len(chats), chats[0].Tools)
	}
}

func TestAClientToolTakesTheNameOfAToolboxTool(t *testing.T) {
	e := newEnv(t, clientScript(), nil, "docs")
	req := ask("hello")
	own := api.Tool{Type: "function", Function: api.ToolFunction{Name: "search", Description: "the client's search"}}
	req.ClientTools = api.Tools{own}
	e.run(t, req)
	tools := e.chats()[0].Tools
	n := 0
	for _, tl := range tools {
		if tl.Function.Name == "search" {
			n++
			if tl.Function.Description != "the client's search" {
				t.Errorf("search offered as %q", tl.Function.Description)
			}
		}
	}
	if n != 1 || len(tools) != 3 {
		t.Errorf("%d search tools of %d", n, len(tools))
	}
}
