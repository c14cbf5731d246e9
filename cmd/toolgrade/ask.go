package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/reports"
)

func runAsk(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("ask", `"question"`, stderr)
	var sf serverFlags
	var mf modelFlags
	var ot ollamaTimeouts
	sf.register(fs)
	mf.register(fs)
	ot.register(fs)
	model := fs.String("model", "", "Ollama model `NAME` (required)")
	asJSON := fs.Bool("json", false, "print the whole transcript as JSON instead")
	noExecute := fs.Bool("no-execute", false, "run no tool: stop at the model's first response and print its calls")
	allow := fs.String("allow-tools", "", "comma-separated tool `PATTERNS` to run even when annotated destructive or not read-only")
	deny := fs.String("deny-tools", "", "comma-separated tool `PATTERNS` never to run")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case sf.file == "":
		return usageErrorf("ask: --servers FILE is required")
	case *model == "":
		return usageErrorf("ask: --model NAME is required")
	case len(pos) != 1 || strings.TrimSpace(pos[0]) == "":
		return usageErrorf("ask: give exactly one question, in quotes")
	}
	policy := &bridge.Policy{Allow: splitList(*allow), Deny: splitList(*deny)}
	for _, g := range append(slices.Clone(policy.Allow), policy.Deny...) {
		if _, err := path.Match(g, ""); err != nil {
			return usageErrorf("ask: tool pattern %q: %v", g, err)
		}
	}
	think, err := bridge.ParseThink(mf.think)
	if err != nil {
		return asUsage(fmt.Errorf("--%w", err))
	}
	keepAlive, err := bridge.ParseKeepAlive(mf.keepAlive)
	if err != nil {
		return asUsage(fmt.Errorf("--%w", err))
	}
	cfg, err := servers.Load(sf.file)
	if err != nil {
		return asUsage(err)
	}
	ol, err := dialOllama(ctx, mf.ollama, &ot)
	if err != nil {
		return err
	}
	info, err := ol.models.Check(ctx, *model)
	if err != nil {
		return asInfra(err)
	}
	cat, err := connectServers(ctx, cfg, &sf, stderr)
	if err != nil {
		return err
	}
	defer cat.Close()

	policy.Tools, policy.Info = cat, cat
	loop := &bridge.Loop{Chat: ol.chat, Tools: policy}
	t, runErr := loop.Run(ctx, bridge.Request{
		Model:     *model,
		System:    mf.system,
		Messages:  []api.Message{{Role: "user", Content: pos[0]}},
		Options:   mf.options,
		Think:     think,
		KeepAlive: keepAlive,
		MaxRounds: mf.maxRounds,
		NoExecute: *noExecute,
	})
	// As run does: the context is -o num_ctx when given, else the model's.
	numCtx := info.NumCtx
	if n, ok := mf.options["num_ctx"].(int64); ok && n > 0 {
		numCtx = int(n)
	}
	if numCtx == 0 {
		// Most library models set no num_ctx, and Ollama picks one at load:
		// the loaded model says which. Unknown, no warning is possible.
		numCtx, _ = llm.LoadedContext(ctx, ol.client, *model)
	}
	truncated := score.Truncated(t, numCtx)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		// The transcript's own fields, and the flag a trial's record carries.
		out := struct {
			*record.Transcript
			Truncated bool `json:"truncated"`
			NumCtx    int  `json:"num_ctx,omitempty"`
		}{t, truncated, numCtx}
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printConversation(stdout, t)
	}
	if truncated {
		fmt.Fprintf(stderr, "toolgrade: warning: a prompt reached num_ctx %d: Ollama cut it, and the tools may have been lost; raise num_ctx (-o num_ctx=N)\n", numCtx)
	}
	if runErr != nil {
		return asInfra(fmt.Errorf("the conversation stopped: %w", runErr))
	}
	return nil
}

// printConversation prints one line per tool call, then the answer, escaping
// the control characters a model or a server may have put in them.
func printConversation(w io.Writer, t *record.Transcript) {
	for _, r := range t.Rounds {
		for _, ex := range r.Executions {
			line := fmt.Sprintf("-> %s(%s)", ex.Name, compactJSON(ex.Arguments))
			if ex.IsError {
				line += fmt.Sprintf("  [%s: %s]", ex.ErrorKind, firstLine(ex.Result))
			}
			fmt.Fprintln(w, reports.Printable(line))
		}
	}
	if t.NotExecuted {
		for _, c := range t.ToolCalls() {
			fmt.Fprintln(w, reports.Printable(fmt.Sprintf("-> %s(%s)  [not run: --no-execute]", c.Name, compactJSON(c.Arguments))))
		}
	}
	if t.RoundLimitHit {
		fmt.Fprintf(w, "(round limit of %d reached; answered without tools)\n", t.MaxRounds)
	}
	if t.Failure == nil {
		if t.Answer == "" {
			fmt.Fprintln(w, "(empty answer)")
		} else {
			fmt.Fprintln(w, reports.Printable(t.Answer))
		}
	}
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// ollamaConn is an Ollama server that answered.
type ollamaConn struct {
	client *api.Client
	base   *url.URL
	// models checks and loads models under the start-up and idle timeouts.
	models *llm.Ollama
	// chat is the client under the idle timeout: what the loop talks to.
	chat    bridge.Chatter
	version string
}

// dialOllama finds Ollama (--ollama, else OLLAMA_HOST) and checks, before
// any work, that it answers.
func dialOllama(ctx context.Context, flagURL string, ot *ollamaTimeouts) (*ollamaConn, error) {
	base, err := llm.Endpoint(flagURL)
	if err != nil {
		return nil, asUsage(err)
	}
	hc := llm.HTTPClient()
	client := api.NewClient(base, hc)
	models := &llm.Ollama{Client: client, Base: base, Source: llm.EndpointSource(flagURL), Timeout: ot.startup, Idle: ot.idle}
	version, err := models.Version(ctx)
	if err != nil {
		return nil, asInfra(err)
	}
	return &ollamaConn{
		client: client, base: base, models: models, version: version,
		// Not api.Client's Chat, which allocates 8 MB for every request:
		// a run's thousands of trials and serve's concurrent chats would pay
		// it in memory and GC (see llm.StreamChatter).
		chat: &llm.IdleChatter{Next: llm.NewChatter(base, hc, client), Idle: ot.idle},
	}, nil
}

// connectServers connects every server of cfg, reports the ones that failed
// and insists on at least one tool.
func connectServers(ctx context.Context, cfg *servers.Config, sf *serverFlags, stderr io.Writer) (*servers.Catalog, error) {
	opts, err := sf.options(stderr)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "toolgrade: warning: %s\n", w)
	}
	for _, name := range cfg.Disabled {
		fmt.Fprintf(stderr, "toolgrade: server %q is disabled in %s; not started\n", name, cfg.Path)
	}
	cat, err := servers.Connect(ctx, cfg, opts)
	if err != nil {
		return nil, asInfra(err)
	}
	for _, f := range cat.Failed() {
		// The error may quote the server's stderr.
		fmt.Fprintf(stderr, "toolgrade: server %q skipped: %s\n", f.Name, reports.Printable(f.Err.Error()))
	}
	for _, w := range cat.Warnings() {
		fmt.Fprintf(stderr, "toolgrade: warning: %s\n", reports.Printable(w))
	}
	if len(cat.Tools()) == 0 {
		cat.Close()
		if len(cfg.Servers) == 0 && len(cfg.Disabled) > 0 {
			return nil, asInfra(fmt.Errorf("no tools: every server in %s is disabled", cfg.Path))
		}
		return nil, asInfra(fmt.Errorf("no tools: the servers in %s offered none (%d of %d failed to connect)",
			cfg.Path, len(cat.Failed()), len(cfg.Servers)))
	}
	return cat, nil
}
