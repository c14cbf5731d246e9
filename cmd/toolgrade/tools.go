package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/decoys"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/reports"
)

func runTools(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("tools", "", stderr)
	var sf serverFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "print the tools exactly as sent to Ollama, as JSON")
	suitePath := fs.String("suite", "", "the suite `FILE` whose variants --variant names (its servers, when --servers is not given)")
	variant := fs.String("variant", "", "show the catalog this variant of --suite sends (default: base, the servers' own)")
	caseID := fs.String("case", "", "show the catalog case `ID` of --suite brings (its tools:) instead of the servers'")
	model := fs.String("model", "", "measure the catalog's prompt tokens on Ollama model `NAME` (default: estimate them at 4 bytes a token)")
	ollamaURL := fs.String("ollama", "", "Ollama `URL` for --model (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	var options optionList
	fs.Var(&options, "o", "model option `key=value` for --model's requests (num_ctx sets the context to compare with); repeatable")
	var ot ollamaTimeouts
	ot.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("tools: unexpected argument %q", pos[0])
	}
	if *model == "" && (*ollamaURL != "" || len(options) > 0) {
		return usageErrorf("tools: --ollama and -o measure tokens on a model: give --model NAME too")
	}
	if *caseID != "" && *suitePath == "" {
		return usageErrorf("tools: --case needs --suite FILE, the suite that defines it")
	}
	vt, err := loadVariantTools(*suitePath, *variant, sf.file)
	if err != nil {
		return err
	}
	var kase *suite.Case
	if *caseID != "" {
		if kase = vt.suite.Case(*caseID); kase == nil {
			var ids []string
			for _, c := range vt.suite.Cases {
				ids = append(ids, c.ID)
			}
			return usageErrorf("tools: --case: %s", srcpos.Unknown("case", *caseID, ids))
		}
		if kase.Tools == nil {
			return usageErrorf("tools: case %s brings no tools of its own: it is sent the suite's catalog, which `toolgrade tools --suite %s` shows", kase.ID, *suitePath)
		}
	}
	// Ollama and the model are checked before any server starts, as ask does.
	var ol *ollamaConn
	var info *llm.Model
	if *model != "" {
		if ol, err = dialOllama(ctx, *ollamaURL, &ot); err != nil {
			return err
		}
		if info, err = ol.Models.Check(ctx, *model); err != nil {
			return asInfra(err)
		}
	}
	cat, err := connectSuiteServers(ctx, vt.cfg, &sf, stderr)
	if err != nil {
		return err
	}
	defer cat.Close()
	var shown []api.Tool
	var dt *decoys.Toolbox
	var listed []servers.Tool // the catalog's tools, in their order
	var annot bridge.Annotator = cat
	if kase != nil {
		st, err := vt.caseTools(cat, kase)
		if err != nil {
			return err
		}
		out, err := variantTransform(ctx, vt.suite, vt.variant, newDecoySet(vt.suite, &sf, stderr))(st, st, st.HiddenOf)
		if err != nil {
			return err
		}
		shown, dt, listed, annot = out.Tools.OllamaTools(), out.Decoys, st.Tools(), st
	} else {
		if shown, dt, err = vt.tools(ctx, cat, &sf, stderr); err != nil {
			return err
		}
		listed = cat.Tools()
	}

	toolJSON, err := json.Marshal(shown)
	if err != nil {
		return err
	}
	var size *promptSize
	if ol != nil {
		req := llm.MeasureRequest{Model: *model, Tools: shown, Options: options, NumCtx: info.NumCtx, Running: ol.Client}
		if v := vt.variant; v != nil {
			req.System = v.System
		}
		measured, err := llm.MeasureTools(ctx, ol.Chat, req)
		if err != nil {
			return asInfra(err)
		}
		size = newPromptSize(*model, measured)
	}
	if *asJSON {
		if size == nil {
			// Without --model the output stays the tools exactly as sent.
			_, err := fmt.Fprintf(stdout, "%s\n", toolJSON)
			return err
		}
		for _, w := range size.warnings() {
			fmt.Fprintf(stderr, "toolgrade: warning: %s\n", w)
		}
		b, err := json.MarshalIndent(struct {
			Tools  json.RawMessage `json:"tools"`
			Prompt *promptSize     `json:"prompt"`
		}{toolJSON, size}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	// reports.Table escapes the cells: names and descriptions are the servers'.
	var rows [][]string
	byName := map[string]servers.Tool{}
	for _, t := range listed {
		byName[t.Exposed] = t
	}
	for _, x := range shown {
		// Overlays keep the catalog's order and change only descriptions;
		// decoys come between the real tools.
		t, real := byName[x.Function.Name]
		server := t.Server
		switch {
		case !real && dt != nil && dt.Decoy(x.Function.Name):
			t = dt.Tool(x.Function.Name)
			server = "decoy (" + t.Server + ")"
		case server == "":
			server = "(inline)" // a case's own definition: nothing behind it
		}
		t.Ollama, t.Description = x, x.Function.Description
		one, _ := json.Marshal(t.Ollama)
		rows = append(rows, []string{t.Exposed, server, params(t), fmt.Sprint(len(one)), clip(t.Description, 60)})
	}
	if err := reports.Table(stdout, []string{"Tool", "Server", "Parameters (* required)", "Bytes", "Description"}, rows); err != nil {
		return err
	}
	if size == nil {
		fmt.Fprintf(stdout, "%d tools, %d bytes of tool JSON sent with every request, about %d tokens (an estimate at 4 bytes a token; --model NAME measures them)\n",
			len(rows), len(toolJSON), estimateTokens(len(toolJSON)))
	} else {
		fmt.Fprintf(stdout, "%d tools, %d bytes of tool JSON sent with every request, %s\n", len(rows), len(toolJSON), size.summary())
		for _, w := range size.warnings() {
			fmt.Fprintf(stdout, "warning: %s\n", w)
		}
	}
	if v := vt.variant; v != nil && v.System != "" {
		fmt.Fprintln(stdout, reports.Printable("system prompt of variant "+v.Name+": "+clip(v.System, 200)))
	}
	if v := vt.variant; v != nil && (v.Think != "" || len(v.Options) > 0) {
		// What the variant sends besides its tools; the JSON's keys are sorted.
		opts := ""
		if len(v.Options) > 0 {
			b, _ := json.Marshal(v.Options)
			opts = string(b)
		}
		fmt.Fprintln(stdout, reports.Printable(fmt.Sprintf("variant %s sends think %s and options %s over the suite's", v.Name, orUnset(v.Think), orUnset(opts))))
	}
	// What a suite without allow_tools would do with each tool, from its
	// MCP annotations.
	policy := &bridge.Policy{Tools: cat, Info: annot}
	for _, t := range listed {
		ti, _ := annot.ToolInfo(t.Exposed)
		if t.Server == "" {
			continue // inline: it never runs, so nothing blocks it
		}
		if why := policy.Blocks(ti); why != "" {
			fmt.Fprintln(stdout, reports.Printable(fmt.Sprintf("blocked: %s: a suite does not run it: %s", ti.Exposed, why)))
		}
	}
	printSchemaChanges(stdout, listed)
	return nil
}

// printSchemaChanges lists what the conversion to Ollama's tool format did
// to each tool's schema, ranked: the rewrites that kept the meaning, then
// the information lost (per tool), then the lesser drops (per tool), then the
// benign ones as one summary line, since every zod-built server emits them.
func printSchemaChanges(w io.Writer, tools []servers.Tool) {
	line := func(format string, args ...any) {
		fmt.Fprintln(w, reports.Printable(fmt.Sprintf(format, args...)))
	}
	for _, t := range tools {
		if len(t.Rewrites) == 0 {
			continue
		}
		var l []string
		for _, r := range t.Rewrites {
			if r.To == "merged" {
				l = append(l, r.Path+" merged")
			} else {
				l = append(l, r.Path+" as "+r.To)
			}
		}
		line("rewritten: %s: %s (the same constraints in a form Ollama's tool format carries)", t.Exposed, strings.Join(l, ", "))
	}
	bySeverity := func(t servers.Tool, s servers.Severity) []string {
		var l []string
		for _, d := range t.Drops {
			if d.Severity == s {
				l = append(l, d.Path)
			}
		}
		return l
	}
	for _, t := range tools {
		if l := bySeverity(t, servers.SeverityLost); len(l) > 0 {
			line("warning: %s: information lost: Ollama's tool format drops %s; the model never sees it, the validator still checks it", t.Exposed, strings.Join(l, ", "))
		}
	}
	for _, t := range tools {
		if l := bySeverity(t, servers.SeverityMinor); len(l) > 0 {
			line("warning: %s: %s dropped by Ollama's tool format; the model never sees it", t.Exposed, strings.Join(l, ", "))
		}
	}
	var closed, bounds, n int
	for _, t := range tools {
		for _, p := range bySeverity(t, servers.SeverityBenign) {
			n++
			if p == "additionalProperties" {
				closed++
			} else {
				bounds++
			}
		}
	}
	if n > 0 {
		line("note: %d benign drops not listed: top-level additionalProperties: false (%d tools), integer bounds at ±(2^53−1), JavaScript's MAX_SAFE_INTEGER (%d)", n, closed, bounds)
	}
}

// toolInfos is what a tool policy knows of every tool of the catalog.
func toolInfos(cat *servers.Catalog) []bridge.ToolInfo {
	var out []bridge.ToolInfo
	for _, t := range cat.Tools() {
		if info, ok := cat.ToolInfo(t.Exposed); ok {
			out = append(out, info)
		}
	}
	return out
}

// estimateTokens is a rough token count for JSON text (about four bytes a
// token for the tokenizers of common Ollama models).
func estimateTokens(bytes int) int { return (bytes + 3) / 4 }

// params lists a tool's parameters in the order the model sees them.
func params(t servers.Tool) string {
	p := t.Ollama.Function.Parameters
	required := map[string]bool{}
	for _, r := range p.Required {
		required[r] = true
	}
	var names []string
	for name, prop := range p.Properties.All() {
		s := name
		if required[name] {
			s += "*"
		}
		if len(prop.Type) > 0 {
			s += ": " + prop.Type.String()
		}
		names = append(names, s)
	}
	return strings.Join(names, ", ")
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// promptSize is the measured prompt size of the catalog on one model, as
// `tools --model` prints it and --json carries it.
type promptSize struct {
	Model string `json:"model"`
	// Tokens is the tools' share of the prompt: WithTools − WithoutTools.
	Tokens       int `json:"tokens"`
	WithTools    int `json:"with_tools"`
	WithoutTools int `json:"without_tools"`
	// NumCtx is the context the requests ran with; 0: Ollama did not say.
	NumCtx int `json:"num_ctx"`
	// Fits is false when the prompt with the tools reached num_ctx: Ollama
	// cut it, and Tokens is a lower bound.
	Fits bool `json:"fits"`
	// OverHalf: the tools take more than half of num_ctx.
	OverHalf bool `json:"over_half"`
}

func newPromptSize(model string, m llm.PromptSize) *promptSize {
	return &promptSize{
		Model: model, Tokens: m.Tools(), WithTools: m.WithTools, WithoutTools: m.WithoutTools,
		NumCtx: m.NumCtx, Fits: m.Fits(), OverHalf: m.NumCtx > 0 && 2*m.Tools() > m.NumCtx,
	}
}

// summary is the end of the size line: the measured tokens beside num_ctx.
func (p *promptSize) summary() string {
	s := fmt.Sprintf("%d tokens on %s (measured: a minimal prompt counts %d with them, %d without)",
		p.Tokens, p.Model, p.WithTools, p.WithoutTools)
	if !p.Fits {
		s = fmt.Sprintf("at least %d tokens on %s (measured: a minimal prompt counts %d with them, %d without)",
			p.Tokens, p.Model, p.WithTools, p.WithoutTools)
	}
	if p.NumCtx == 0 {
		return s + "; num_ctx unknown (Ollama did not report it; -o num_ctx=N sets it)"
	}
	return s + fmt.Sprintf("; num_ctx %d", p.NumCtx)
}

// warnings say when the tools leave too little of the context, or none.
func (p *promptSize) warnings() []string {
	switch {
	case !p.Fits:
		return []string{fmt.Sprintf("the tools do not fit: with them a minimal prompt reached num_ctx %d on %s, so Ollama cuts it "+
			"and the model does not see the whole catalog; raise num_ctx (-o num_ctx=N, or the suite's options) or offer fewer tools",
			p.NumCtx, p.Model)}
	case p.OverHalf:
		return []string{fmt.Sprintf("the tools take %d of the %d tokens of num_ctx on %s (%d%%), more than half: "+
			"little is left for the conversation and the tool results before Ollama cuts the prompt",
			p.Tokens, p.NumCtx, p.Model, 100*p.Tokens/p.NumCtx)}
	}
	return nil
}

// orUnset is s, or "(the suite's)" when it is empty.
func orUnset(s string) string {
	if s == "" {
		return "(the suite's)"
	}
	return s
}
