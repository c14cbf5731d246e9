package main

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// runAsk is `toolgrade ask`: one question through the bridge loop, its tool
// calls and answer printed.
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
		return cli.Usagef("ask: --servers FILE is required")
	case *model == "":
		return cli.Usagef("ask: --model NAME is required")
	case len(pos) != 1 || strings.TrimSpace(pos[0]) == "":
		return cli.Usagef("ask: give exactly one question, in quotes")
	}
	policy, err := toolPolicy("ask", splitList(*allow), splitList(*deny))
	if err != nil {
		return err
	}
	req, err := mf.request(*model, pos[0], *noExecute)
	if err != nil {
		return err
	}
	cfg, err := serversfile.Load(ctx, sf.file)
	if err != nil {
		return cli.AsUsage(err)
	}
	ol, err := dialOllama(ctx, mf.ollama, &ot)
	if err != nil {
		return err
	}
	info, err := ol.Models.Check(ctx, *model)
	if err != nil {
		return runs.AsInfra(err)
	}
	cat, err := connectServers(ctx, cfg, &sf, stderr)
	if err != nil {
		return err
	}
	defer cat.Close()
	policy.Tools, policy.Info = cat, cat
	t, runErr := (&bridge.Loop{Chat: ol.Chat, Tools: policy}).Run(ctx, req)
	// As run does: the context is -o num_ctx when given, else the model's.
	numCtx := llm.NumCtx(mf.options, info.NumCtx)
	if numCtx == 0 {
		// Most library models set no num_ctx, and Ollama picks one at load:
		// the loaded model says which. Unknown, no warning is possible.
		numCtx, _ = llm.LoadedContext(ctx, ol.Client, *model)
	}
	truncated := score.Truncated(t, numCtx)
	if err := report.WriteAsked(stdout, t, truncated, numCtx, *asJSON); err != nil {
		return err
	}
	if truncated {
		fmt.Fprintf(stderr, "toolgrade: warning: a prompt reached num_ctx %d: Ollama cut it, and the tools may have been lost; raise num_ctx (-o num_ctx=N)\n", numCtx)
	}
	if runErr != nil {
		return runs.AsInfra(fmt.Errorf("the conversation stopped: %w", runErr))
	}
	return nil
}

// toolPolicy is the tool policy of ask's or serve's (cmd's) --allow-tools
// and --deny-tools, each pattern checked.
func toolPolicy(cmd string, allow, deny []string) (*bridge.Policy, error) {
	for _, g := range append(slices.Clone(allow), deny...) {
		if _, err := path.Match(g, ""); err != nil {
			return nil, cli.Usagef("%s: tool pattern %q: %v", cmd, g, err)
		}
	}
	return &bridge.Policy{Allow: allow, Deny: deny}, nil
}

// request is the loop's request for question to model under the flags.
func (m *modelFlags) request(model, question string, noExecute bool) (bridge.Request, error) {
	think, err := bridge.ParseThink(m.think)
	if err != nil {
		return bridge.Request{}, cli.AsUsage(fmt.Errorf("--%w", err))
	}
	keepAlive, err := bridge.ParseKeepAlive(m.keepAlive)
	if err != nil {
		return bridge.Request{}, cli.AsUsage(fmt.Errorf("--%w", err))
	}
	return bridge.Request{
		Model:     model,
		System:    m.system,
		Messages:  []api.Message{{Role: "user", Content: question}},
		Options:   m.options,
		Think:     think,
		KeepAlive: keepAlive,
		MaxRounds: m.maxRounds,
		NoExecute: noExecute,
	}, nil
}
