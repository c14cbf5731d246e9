package bridge_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
	fakemcp "github.com/toolgrade/toolgrade/fakes/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// notes is a go-sdk MCP server whose tools carry every kind of annotation,
// counting the calls that reach it.
type notes struct {
	mu    sync.Mutex
	calls map[string]int
}

func (n *notes) count(name string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[name]
}

type noteArgs struct {
	Text string `json:"text"`
}

func (n *notes) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	yes := true
	for _, tool := range []*mcp.Tool{
		{Name: "read_note", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "write_note", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		{Name: "append_note", Annotations: &mcp.ToolAnnotations{Title: "Append a note"}},
		{Name: "plain_note"},
	} {
		tool.Description = "A note tool."
		mcp.AddTool(s, tool, func(_ context.Context, req *mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, any, error) {
			n.mu.Lock()
			n.calls[req.Params.Name]++
			n.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done: " + in.Text}}}, nil, nil
		})
	}
	return s
}

// notesCatalog connects a fresh notes server in-process.
func notesCatalog(t *testing.T) (*mcpclient.Catalog, *notes) {
	t.Helper()
	n := &notes{calls: map[string]int{}}
	cfg := &serversfile.Config{Path: "notes.json", Dir: t.TempDir(), Servers: []serversfile.Server{{Name: "notes", Dial: func(ctx context.Context) (mcp.Transport, error) {
		tr, stop, err := fakemcp.InMemory(context.Background(), n.server())
		t.Cleanup(stop)
		return tr, err
	}}}}
	cat, err := mcpclient.Connect(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat, n
}

func TestCatalogExposesAnnotations(t *testing.T) {
	cat, _ := notesCatalog(t)
	info, ok := cat.ToolInfo("notes.write_note")
	if !ok || info.Exposed != "write_note" || info.Server != "notes" || info.Tool != "write_note" {
		t.Fatalf("ToolInfo = %+v, %v", info, ok)
	}
	if a := info.Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("write_note annotations = %+v, want destructiveHint true", a)
	}
	if info, _ := cat.ToolInfo("plain_note"); info.Annotations != nil {
		t.Errorf("plain_note annotations = %+v, want nil", info.Annotations)
	}
	if _, ok := cat.ToolInfo("nope"); ok {
		t.Error("ToolInfo(nope) found a tool")
	}
}

func TestPolicyCalls(t *testing.T) {
	tests := []struct {
		name        string
		allow, deny []string
		tool        string
		wantBlocked string // a part of the reason; "" when the call runs
	}{
		{name: "read-only runs", tool: "read_note"},
		{name: "no annotations run", tool: "plain_note"},
		{name: "destructive is blocked", tool: "write_note", wantBlocked: "it is marked destructive (destructiveHint) and the suite does not allow it; add it to allow_tools to run it"},
		{name: "not read-only is blocked", tool: "append_note", wantBlocked: "do not mark it read-only (readOnlyHint)"},
		{name: "allow lets destructive run", allow: []string{"write_*"}, tool: "write_note"},
		{name: "allow by server.tool", allow: []string{"notes.*"}, tool: "append_note"},
		{name: "allow of another tool", allow: []string{"append_note"}, tool: "write_note", wantBlocked: "destructiveHint"},
		{name: "deny blocks read-only", deny: []string{"read_*"}, tool: "read_note", wantBlocked: `it matches deny_tools pattern "read_*"`},
		{name: "deny beats allow", allow: []string{"*"}, deny: []string{"notes.write_note"}, tool: "write_note", wantBlocked: "deny_tools"},
		{name: "deny blocks unannotated", deny: []string{"plain_note"}, tool: "plain_note", wantBlocked: "deny_tools"},
		{name: "the model's server.tool form is the same tool", tool: "notes__write_note", wantBlocked: "destructiveHint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat, n := notesCatalog(t)
			p := &bridge.Policy{Tools: cat, Info: cat, Allow: tt.allow, Deny: tt.deny}
			ex := p.Call(context.Background(), tt.tool, []byte(`{"text":"hi"}`), "c1")
			real, _ := cat.ToolInfo(tt.tool)
			if tt.wantBlocked == "" {
				if ex.IsError || n.count(real.Tool) != 1 || ex.Result != "done: hi" {
					t.Fatalf("Execution %+v, %d calls reached the server; want one that ran", ex, n.count(real.Tool))
				}
				return
			}
			if n.count(real.Tool) != 0 {
				t.Errorf("%d calls reached the server; want none", n.count(real.Tool))
			}
			want := record.Execution{
				CallID: "c1", Name: tt.tool, Server: "notes", Tool: real.Tool, Arguments: []byte(`{"text":"hi"}`),
				IsError: true, ErrorKind: record.ExecBlocked,
			}
			if !strings.Contains(ex.Error, tt.wantBlocked) || ex.Result != "error: tool "+real.Exposed+" was not run: "+ex.Error {
				t.Errorf("Error %q, Result %q; want a reason with %q", ex.Error, ex.Result, tt.wantBlocked)
			}
			ex.Error, ex.Result = "", ""
			if ex.CallID != want.CallID || ex.Name != want.Name || ex.Server != want.Server || ex.Tool != want.Tool ||
				string(ex.Arguments) != string(want.Arguments) || !ex.IsError || ex.ErrorKind != want.ErrorKind || ex.InfraError() {
				t.Errorf("Execution %+v, want %+v", ex, want)
			}
		})
	}
}

func TestPolicyPassesUnknownNames(t *testing.T) {
	cat, _ := notesCatalog(t)
	p := &bridge.Policy{Tools: cat, Info: cat, Deny: []string{"*"}}
	if ex := p.Call(context.Background(), "get_weather", nil, ""); ex.ErrorKind != record.ExecUnknownTool {
		t.Errorf("ErrorKind = %q, want unknown_tool (the catalog says what the model got wrong)", ex.ErrorKind)
	}
	if got, want := len(p.OllamaTools()), 4; got != want {
		t.Errorf("%d tools offered, want %d: blocked tools stay visible", got, want)
	}
}

const notesScript = `
models:
  - {name: scripted-good, parameter_size: 8.2B}
rules:
  - user: {contains: write}
    tool_result: {contains: was not run}
    reply: {content: "I was not allowed to write the note."}
  - user: {contains: write}
    tool_result: {regex: "."}
    reply: {content: "Written."}
  - user: {contains: write}
    reply: {tool_calls: [{name: write_note, arguments: {text: hello}}]}
`

func notesLoop(t *testing.T, allow []string) (*bridge.Loop, *fakeollama.Server, *notes) {
	t.Helper()
	script, err := fakeollama.ParseScript([]byte(notesScript), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fake, base := rig.Ollama(t, script, nil)
	cat, n := notesCatalog(t)
	return &bridge.Loop{Chat: api.NewClient(base, http.DefaultClient), Tools: &bridge.Policy{Tools: cat, Info: cat, Allow: allow}}, fake, n
}

func TestLoopBlockedToolIsAResult(t *testing.T) {
	loop, fake, n := notesLoop(t, nil)
	tr, err := loop.Run(context.Background(), ask("Please write a note saying hello."))
	if err != nil {
		t.Fatal(err)
	}
	if n.count("write_note") != 0 {
		t.Fatalf("write_note ran %d times; want never", n.count("write_note"))
	}
	if tr.Failure != nil || tr.Answer != "I was not allowed to write the note." {
		t.Fatalf("Failure %v, answer %q", tr.Failure, tr.Answer)
	}
	ex := tr.Executions()
	if len(ex) != 1 || ex[0].ErrorKind != record.ExecBlocked || !strings.Contains(ex[0].Error, "destructiveHint") {
		t.Fatalf("executions %+v", ex)
	}
	// The model was told, in the tool message of round 2.
	var told string
	for _, r := range fake.Requests() {
		if r.Chat != nil && len(r.Chat.Messages) == 3 {
			told = r.Chat.Messages[2].Content
		}
	}
	if want := "error: tool write_note was not run: it is marked destructive (destructiveHint) and the suite does not allow it; add it to allow_tools to run it"; told != want {
		t.Errorf("the model was told %q, want %q", told, want)
	}
}

func TestLoopAllowedToolRuns(t *testing.T) {
	loop, _, n := notesLoop(t, []string{"write_note"})
	tr, err := loop.Run(context.Background(), ask("Please write a note saying hello."))
	if err != nil {
		t.Fatal(err)
	}
	if n.count("write_note") != 1 || tr.Answer != "Written." {
		t.Fatalf("write_note ran %d times, answer %q; want once, Written.", n.count("write_note"), tr.Answer)
	}
}

func TestLoopNoExecute(t *testing.T) {
	// Allowed, so only NoExecute can keep it from running.
	loop, fake, n := notesLoop(t, []string{"*"})
	req := ask("Please write a note saying hello.")
	req.NoExecute = true
	tr, err := loop.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n.count("write_note") != 0 {
		t.Fatalf("write_note ran %d times; want never", n.count("write_note"))
	}
	if !tr.NotExecuted || len(tr.Rounds) != 1 || len(tr.Executions()) != 0 {
		t.Fatalf("NotExecuted %v, %d rounds, executions %+v; want true, 1, none", tr.NotExecuted, len(tr.Rounds), tr.Executions())
	}
	if calls := tr.ToolCalls(); len(calls) != 1 || calls[0].Name != "write_note" || string(calls[0].Arguments) != `{"text":"hello"}` {
		t.Errorf("calls %+v", calls)
	}
	if chats := len(fake.Requests()); chats != 1 {
		t.Errorf("%d requests reached Ollama, want 1", chats)
	}
}

func TestPolicyMatchesEveryFormOfAName(t *testing.T) {
	// With prefixed names the model sees notes__write_note; a suite's
	// patterns must not depend on that.
	info := bridge.ToolInfo{Exposed: "notes__write_note", Server: "notes", Tool: "write_note", Annotations: &mcp.ToolAnnotations{}}
	for _, g := range []string{"write_note", "notes.write_note", "notes__write_note", "*write*"} {
		if why := (&bridge.Policy{Allow: []string{g}}).Blocks(info); why != "" {
			t.Errorf("allow %q: blocked: %s", g, why)
		}
	}
	for _, g := range []string{"notes", "write", "other.write_note", "notes.*_note_"} {
		if why := (&bridge.Policy{Allow: []string{g}}).Blocks(info); why == "" {
			t.Errorf("allow %q let it run", g)
		}
	}
}

func TestPolicyBlockedCallWithBadArgsIsInvalidArgs(t *testing.T) {
	cat, n := notesCatalog(t)
	p := &bridge.Policy{Tools: cat, Info: cat}
	ex := p.Call(context.Background(), "write_note", []byte(`{"text": 5}`), "c1")
	if ex.ErrorKind != record.ExecInvalidArgs || !strings.HasPrefix(ex.Result, "error: invalid arguments for tool write_note: ") || n.count("write_note") != 0 {
		t.Errorf("Execution %+v, %d calls reached the server; want invalid_args and none", ex, n.count("write_note"))
	}
}

func TestPolicyUnmatchedPatterns(t *testing.T) {
	cat, _ := notesCatalog(t)
	var tools []bridge.ToolInfo
	for _, name := range cat.Names() {
		info, _ := cat.ToolInfo(name)
		tools = append(tools, info)
	}
	p := &bridge.Policy{Allow: []string{"write_*", "wrtie_note"}, Deny: []string{"notes.read_note", "other.*"}}
	if got, want := p.Unmatched(tools), []string{"wrtie_note", "other.*"}; !slices.Equal(got, want) {
		t.Errorf("Unmatched = %q, want %q", got, want)
	}
}

// TestPolicyBlockedHiddenOnly: a blocked call whose arguments break only a
// constraint the model was not shown (the top-level additionalProperties:
// false of a go-sdk schema) is answered as invalid_args marked HiddenOnly;
// one that breaks a shown type is not marked.
func TestPolicyBlockedHiddenOnly(t *testing.T) {
	cat, n := notesCatalog(t)
	p := &bridge.Policy{Tools: cat, Info: cat}
	ex := p.Call(context.Background(), "write_note", []byte(`{"text":"hi","extra":1}`), "c1")
	if ex.ErrorKind != record.ExecInvalidArgs || !ex.HiddenOnly || !strings.Contains(ex.Error, "additionalProperties: false") {
		t.Errorf("extra key: %+v", ex)
	}
	ex = p.Call(context.Background(), "write_note", []byte(`{"text":5}`), "c2")
	if ex.ErrorKind != record.ExecInvalidArgs || ex.HiddenOnly {
		t.Errorf("wrong type: %+v", ex)
	}
	if n.count("write_note") != 0 {
		t.Error("a blocked call reached the server")
	}
}
