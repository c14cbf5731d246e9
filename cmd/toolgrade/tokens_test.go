package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

// toolsPrompt is the prompt object of `tools --model --json`.
type toolsPrompt struct {
	Tools  []json.RawMessage
	Prompt struct {
		Model    string
		Tokens   int
		With     int `json:"with_tools"`
		Without  int `json:"without_tools"`
		NumCtx   int `json:"num_ctx"`
		Fits     bool
		OverHalf bool `json:"over_half"`
	}
}

func toolsJSON(t *testing.T, args ...string) (toolsPrompt, result) {
	t.Helper()
	r := runCLI(t, context.Background(), append([]string{"tools", "--json"}, args...)...)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	var out toolsPrompt
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, r.stdout)
	}
	return out, r
}

// `tools --model` measures the catalog on the model: the tools' share of a
// minimal prompt (the fake counts 4 bytes of the request a token, so the
// share is about the tools' JSON over 4) beside the model's num_ctx.
func TestToolsMeasuresTokensOnTheModel(t *testing.T) {
	t.Parallel()
	srv, url := fakeOllama(t, nil)
	cfg := serversFile(t, "docs")
	plain := runCLI(t, context.Background(), "tools", "--servers", cfg, "--json")
	if plain.err != nil {
		t.Fatal(plain.err)
	}
	var plainOut struct{ Tools json.RawMessage }
	var sent []json.RawMessage
	if err := json.Unmarshal([]byte(plain.stdout), &plainOut); err != nil || json.Unmarshal(plainOut.Tools, &sent) != nil || len(sent) == 0 {
		t.Fatalf("tools --json: %v\n%s", err, plain.stdout)
	}
	var compacted bytes.Buffer
	json.Compact(&compacted, plainOut.Tools)
	toolBytes := compacted.Len()

	out, r := toolsJSON(t, "--servers", cfg, "--model", "scripted-good", "--ollama", url)
	p := out.Prompt
	if want := toolBytes / 4; p.Tokens < want || p.Tokens > want+3 || p.Tokens != p.With-p.Without {
		t.Errorf("prompt %+v: want about %d tokens, with minus without", p, want)
	}
	if p.Model != "scripted-good" || p.NumCtx != 8192 || !p.Fits || p.OverHalf || len(out.Tools) != len(sent) {
		t.Errorf("prompt %+v, %d tools", p, len(out.Tools))
	}
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("warnings for a catalog that fits easily:\n%s", r.stderr)
	}
	// Two chat requests, each generating one token, the first with the tools.
	var chats int
	for _, req := range srv.Requests() {
		if c := req.Chat; c != nil {
			chats++
			if c.Options["num_predict"] != float64(1) || (chats == 1) != (len(c.Tools) == len(sent)) {
				t.Errorf("request %d: options %v, %d tools", chats, c.Options, len(c.Tools))
			}
		}
	}
	if chats != 2 {
		t.Errorf("%d chat requests, want 2", chats)
	}

	text := runCLI(t, context.Background(), "tools", "--servers", cfg, "--model", "scripted-good", "--ollama", url)
	if want := fmt.Sprintf("%d tokens on scripted-good (measured: a minimal prompt counts %d with them, %d without); num_ctx 8192\n", p.Tokens, p.With, p.Without); !strings.Contains(text.stdout, want) {
		t.Errorf("tools output lacks %q:\n%s", want, text.stdout)
	}
	if strings.Contains(text.stdout, "estimate") {
		t.Errorf("a measured count is called an estimate:\n%s", text.stdout)
	}
	// Without --model the count stays an estimate, and says so.
	est := runCLI(t, context.Background(), "tools", "--servers", cfg)
	if !strings.Contains(est.stdout, "tokens (an estimate at 4 bytes a token; --model NAME measures them)") {
		t.Errorf("estimate not marked:\n%s", est.stdout)
	}
}

// Tools that take more than half of num_ctx are warned about; -o num_ctx
// is the context compared with.
func TestToolsWarnsAtHalfOfNumCtx(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	cfg := serversFile(t, "docs")
	base, _ := toolsJSON(t, "--servers", cfg, "--model", "scripted-good", "--ollama", url)
	// Room for the whole prompt, but less than twice the tools.
	numCtx := base.Prompt.With + 10
	out, r := toolsJSON(t, "--servers", cfg, "--model", "scripted-good", "--ollama", url, "-o", fmt.Sprintf("num_ctx=%d", numCtx))
	if p := out.Prompt; p.NumCtx != numCtx || !p.Fits || !p.OverHalf || p.Tokens != base.Prompt.Tokens {
		t.Errorf("prompt %+v, want num_ctx %d, fitting, over half", p, numCtx)
	}
	want := fmt.Sprintf("toolgrade: warning: the tools take %d of the %d tokens of num_ctx on scripted-good", base.Prompt.Tokens, numCtx)
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "more than half") {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	text := runCLI(t, context.Background(), "tools", "--servers", cfg, "--model", "scripted-good", "--ollama", url, "-o", fmt.Sprintf("num_ctx=%d", numCtx))
	if !strings.Contains(text.stdout, "warning: the tools take ") || !strings.Contains(text.stdout, fmt.Sprintf("num_ctx %d\n", numCtx)) {
		t.Errorf("text output:\n%s", text.stdout)
	}
}

// A model whose num_ctx the catalog does not fit in: Ollama cuts the
// prompt at num_ctx, and tools says the tools do not fit.
func TestToolsWarnsWhenTheToolsDoNotFit(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, &fakeollama.Script{Models: []fakeollama.Model{{Name: "tiny-ctx", NumCtx: 64}}})
	cfg := serversFile(t, "docs")
	out, r := toolsJSON(t, "--servers", cfg, "--model", "tiny-ctx", "--ollama", url)
	if p := out.Prompt; p.NumCtx != 64 || p.With != 64 || p.Fits {
		t.Errorf("prompt %+v: want cut at num_ctx 64, not fitting", p)
	}
	if !strings.Contains(r.stderr, "toolgrade: warning: the tools do not fit: with them a minimal prompt reached num_ctx 64 on tiny-ctx") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	text := runCLI(t, context.Background(), "tools", "--servers", cfg, "--model", "tiny-ctx", "--ollama", url)
	if !strings.Contains(text.stdout, "at least ") || !strings.Contains(text.stdout, "warning: the tools do not fit") {
		t.Errorf("text output:\n%s", text.stdout)
	}
}

func TestToolsOllamaFlagsNeedModel(t *testing.T) {
	t.Parallel()
	r := runCLI(t, context.Background(), "tools", "--servers", serversFile(t, "docs"), "-o", "num_ctx=10")
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "give --model NAME too") {
		t.Errorf("code %d, %v", r.code, r.err)
	}
}

// ask warns when a prompt reached num_ctx, as run does, and --json carries
// the flag; a conversation that fits has neither.
func TestAskWarnsWhenAPromptReachedNumCtx(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	cfg := serversFile(t, "docs")
	var tr struct {
		Answer    string
		Truncated *bool `json:"truncated"`
		NumCtx    int   `json:"num_ctx"`
	}
	ok := runCLI(t, context.Background(), "ask", "--servers", cfg, "--model", "scripted-good", "--ollama", url, "--json", "Can I bring my dog?")
	if ok.err != nil {
		t.Fatalf("%v\n%s", ok.err, ok.stderr)
	}
	if err := json.Unmarshal([]byte(ok.stdout), &tr); err != nil || tr.Truncated == nil || *tr.Truncated || tr.NumCtx != 8192 || tr.Answer == "" {
		t.Errorf("fitting ask --json: %+v, %v\n%s", tr, err, ok.stdout)
	}
	if strings.Contains(ok.stderr, "num_ctx") {
		t.Errorf("warning for a prompt that fits:\n%s", ok.stderr)
	}

	cut := runCLI(t, context.Background(), "ask", "--servers", cfg, "--model", "scripted-good", "--ollama", url, "-o", "num_ctx=40", "--json", "Can I bring my dog?")
	if cut.err != nil {
		t.Fatalf("%v\n%s", cut.err, cut.stderr)
	}
	tr.Truncated = nil
	if err := json.Unmarshal([]byte(cut.stdout), &tr); err != nil || tr.Truncated == nil || !*tr.Truncated || tr.NumCtx != 40 {
		t.Errorf("cut ask --json: %+v, %v\n%s", tr, err, cut.stdout)
	}
	want := "toolgrade: warning: a prompt reached num_ctx 40: Ollama cut it, and the tools may have been lost"
	if !strings.Contains(cut.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, cut.stderr)
	}
	text := runCLI(t, context.Background(), "ask", "--servers", cfg, "--model", "scripted-good", "--ollama", url, "-o", "num_ctx=40", "Can I bring my dog?")
	if !strings.Contains(text.stderr, want) || strings.Contains(text.stdout, "warning") {
		t.Errorf("text ask: stdout\n%s\nstderr\n%s", text.stdout, text.stderr)
	}
}

// showWithoutNumCtx serves Ollama at target, except that /api/show lists
// no num_ctx parameter, as for most library models: Ollama picks the
// context when it loads the model, and only /api/ps says which.
func showWithoutNumCtx(t *testing.T, target string) string {
	t.Helper()
	u, err := neturl.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(r *http.Response) error {
		if r.Request.URL.Path != "/api/show" || r.StatusCode != http.StatusOK {
			return nil
		}
		var show map[string]any
		if err := json.NewDecoder(r.Body).Decode(&show); err != nil {
			return err
		}
		r.Body.Close()
		delete(show, "parameters")
		b, _ := json.Marshal(show)
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.Header.Set("Content-Length", fmt.Sprint(len(b)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Without num_ctx in /api/show, tools and ask take the context the model
// was loaded with from /api/ps, so they still compare and warn.
func TestNumCtxFromTheLoadedModel(t *testing.T) {
	t.Parallel()
	_, target := fakeOllama(t, &fakeollama.Script{Models: []fakeollama.Model{{Name: "tiny-ctx", NumCtx: 64}}})
	url := showWithoutNumCtx(t, target)
	cfg := serversFile(t, "docs")
	out, _ := toolsJSON(t, "--servers", cfg, "--model", "tiny-ctx", "--ollama", url)
	if p := out.Prompt; p.NumCtx != 64 || p.Fits {
		t.Errorf("prompt %+v: want num_ctx 64 from /api/ps, not fitting", p)
	}
	r := runCLI(t, context.Background(), "ask", "--servers", cfg, "--model", "tiny-ctx", "--ollama", url, "Can I bring my dog?")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stderr, "toolgrade: warning: a prompt reached num_ctx 64") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}
