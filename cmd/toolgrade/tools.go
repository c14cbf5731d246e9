package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/confusable"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolbox"
	"github.com/toolgrade/toolgrade/reports"
)

func runTools(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("tools", "", stderr)
	var sf serverFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "print the tools exactly as sent to Ollama, as JSON")
	suitePath := fs.String("suite", "", "the suite `FILE` whose variants --variant names (its servers, when --servers is not given)")
	variant := fs.String("variant", "", "show the catalog variant `NAME` of --suite sends (default: base, the servers' own)")
	caseID := fs.String("case", "", "show the catalog case `ID` of --suite brings (its tools:) instead of the servers'")
	var mf measureFlags
	mf.register(fs)
	minConfusable := confusableFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("tools: unexpected argument %q", pos[0])
	}
	if err := mf.check(); err != nil {
		return err
	}
	if err := checkConfusable("tools", *minConfusable); err != nil {
		return err
	}
	if *caseID != "" && *suitePath == "" {
		return usageErrorf("tools: --case needs --suite FILE, the suite that defines it")
	}
	vt, err := loadVariantTools(*suitePath, *variant, sf.file)
	if err != nil {
		return err
	}
	kase, err := vt.kase(*caseID, *suitePath)
	if err != nil {
		return err
	}
	// Ollama and the model are checked before any server starts, as ask does.
	if err := mf.dial(ctx); err != nil {
		return err
	}
	conn, err := connectOptions(&sf, stderr)
	if err != nil {
		return err
	}
	cat, err := toolbox.Connect(ctx, vt.cfg, conn)
	if err != nil {
		return toolboxErr(err)
	}
	defer cat.Close()
	shown, err := toolbox.Show(ctx, cat, toolbox.ShowSpec{Suite: vt.suite, Variant: vt.variant, Case: kase, Connect: conn})
	if err != nil {
		return toolboxErr(err)
	}
	toolJSON, err := json.Marshal(shown.Tools)
	if err != nil {
		return err
	}
	size, err := mf.measure(ctx, shown.Tools, vt.variant)
	if err != nil {
		return err
	}
	pairs := confusable.Rank(confusable.FromOllama(shown.Tools), *minConfusable)
	if *asJSON {
		return printToolsJSON(stdout, stderr, toolJSON, size, pairs)
	}
	if err := printTools(stdout, shown, vt.variant, toolJSON, size); err != nil {
		return err
	}
	for _, p := range pairs {
		fmt.Fprintln(stdout, reports.Printable("confusable: "+p.String()))
	}
	return nil
}

// variantTools is what `toolgrade tools` shows: the servers file to connect
// and the variant (nil: the base) whose overlays apply.
type variantTools struct {
	// cfg is nil for a suite without servers whose cases bring their own
	// tools.
	cfg     *servers.Config
	suite   *suite.Suite
	variant *suite.Variant
}

// loadVariantTools reads --suite and finds --variant in it: the servers are
// the variant's own file, else --servers, else the suite's.
func loadVariantTools(suitePath, variant, serversFile string) (*variantTools, error) {
	vt := &variantTools{}
	if suitePath == "" {
		if variant != "" {
			return nil, usageErrorf("tools: --variant needs --suite FILE, the suite that defines it")
		}
		if serversFile == "" {
			return nil, usageErrorf("tools: --servers FILE is required")
		}
		cfg, err := servers.Load(serversFile)
		vt.cfg = cfg
		return vt, asUsage(err)
	}
	s, err := suite.Load(suitePath)
	if err != nil {
		return nil, asUsage(err)
	}
	vt.suite = s
	if variant != "" && variant != suite.BaseVariant {
		if vt.variant = s.Variant(variant); vt.variant == nil {
			return nil, usageErrorf("tools: --variant: %s", srcpos.Unknown("variant", variant, append([]string{suite.BaseVariant}, s.VariantNames()...)))
		}
	}
	var cfg *servers.Config
	switch {
	case vt.variant != nil && vt.variant.ServersPath != "":
		cfg, err = servers.Load(vt.variant.ServersPath)
	case serversFile != "":
		cfg, err = servers.Load(serversFile)
	case !toolbox.NeedsServers(s):
		// No servers to start: every case brings its own tools.
	default:
		cfg, err = suiteServers(s)
	}
	if err != nil {
		return nil, asUsage(err)
	}
	vt.cfg = cfg
	return vt, nil
}

// kase is the case --case names, which must bring its own tools; nil when
// id is "".
func (vt *variantTools) kase(id, suitePath string) (*suite.Case, error) {
	if id == "" {
		return nil, nil
	}
	c := vt.suite.Case(id)
	if c == nil {
		var ids []string
		for _, c := range vt.suite.Cases {
			ids = append(ids, c.ID)
		}
		return nil, usageErrorf("tools: --case: %s", srcpos.Unknown("case", id, ids))
	}
	if c.Tools == nil {
		return nil, usageErrorf("tools: case %s brings no tools of its own: it is sent the suite's catalog, which `toolgrade tools --suite %s` shows", c.ID, suitePath)
	}
	return c, nil
}

// measureFlags are the flags of `tools` that measure the catalog's prompt
// tokens on a model, and the Ollama they reach once dialed.
type measureFlags struct {
	model, ollamaURL string
	options          optionList
	ot               ollamaTimeouts
	ol               *ollamaConn // nil until dial, and without --model
	info             *llm.Model
}

func (mf *measureFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&mf.model, "model", "", "measure the catalog's prompt tokens on Ollama model `NAME` (default: estimate them at 4 bytes a token)")
	fs.StringVar(&mf.ollamaURL, "ollama", "", "Ollama `URL` for --model (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	fs.Var(&mf.options, "o", "model option `key=value` for --model's requests (num_ctx sets the context to compare with); repeatable")
	mf.ot.register(fs)
}

func (mf *measureFlags) check() error {
	if mf.model == "" && (mf.ollamaURL != "" || len(mf.options) > 0) {
		return usageErrorf("tools: --ollama and -o measure tokens on a model: give --model NAME too")
	}
	return nil
}

// dial reaches Ollama and checks the model, when --model asks to measure.
func (mf *measureFlags) dial(ctx context.Context) error {
	if mf.model == "" {
		return nil
	}
	ol, err := dialOllama(ctx, mf.ollamaURL, &mf.ot)
	if err != nil {
		return err
	}
	info, err := ol.Models.Check(ctx, mf.model)
	if err != nil {
		return asInfra(err)
	}
	mf.ol, mf.info = ol, info
	return nil
}

// measure is the prompt size of tools (with v's system prompt) on the
// model; nil without --model.
func (mf *measureFlags) measure(ctx context.Context, tools api.Tools, v *suite.Variant) (*promptSize, error) {
	if mf.ol == nil {
		return nil, nil
	}
	req := llm.MeasureRequest{Model: mf.model, Tools: tools, Options: mf.options, NumCtx: mf.info.NumCtx, Running: mf.ol.Client}
	if v != nil {
		req.System = v.System
	}
	measured, err := llm.MeasureTools(ctx, mf.ol.Chat, req)
	if err != nil {
		return nil, asInfra(err)
	}
	return newPromptSize(mf.model, measured), nil
}

// printToolsJSON prints the tools exactly as sent, the pairs a model may
// confuse, and their measured size when there is one.
func printToolsJSON(stdout, stderr io.Writer, toolJSON []byte, size *promptSize, pairs []confusable.Pair) error {
	if size != nil {
		for _, w := range size.warnings() {
			fmt.Fprintf(stderr, "toolgrade: warning: %s\n", w)
		}
	}
	// Not MarshalIndent: it would escape <, > and & in the tools' JSON,
	// which is printed as sent.
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Tools      json.RawMessage   `json:"tools"`
		Confusable []confusable.Pair `json:"confusable"`
		Prompt     *promptSize       `json:"prompt,omitempty"`
	}{toolJSON, append([]confusable.Pair{}, pairs...), size})
}

// printTools prints the catalog shown as a table, then its size, what the
// variant v sends besides, the tools a suite would block and the schema
// changes.
func printTools(w io.Writer, shown *toolbox.Shown, v *suite.Variant, toolJSON []byte, size *promptSize) error {
	rows := toolRows(shown)
	// reports.Table escapes the cells: names and descriptions are the servers'.
	if err := reports.Table(w, []string{"Tool", "Server", "Parameters (* required)", "Bytes", "Description"}, rows); err != nil {
		return err
	}
	if size == nil {
		fmt.Fprintf(w, "%s, %d bytes of tool JSON sent with every request, about %d tokens (an estimate at 4 bytes a token; --model NAME measures them)\n",
			termtext.Count(len(rows), "tool"), len(toolJSON), estimateTokens(len(toolJSON)))
	} else {
		fmt.Fprintf(w, "%s, %d bytes of tool JSON sent with every request, %s\n", termtext.Count(len(rows), "tool"), len(toolJSON), size.summary())
		for _, warn := range size.warnings() {
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
	}
	printVariantSends(w, v)
	// What a suite without allow_tools would do with each tool, from its
	// MCP annotations.
	policy := &bridge.Policy{Info: shown.Info}
	for _, t := range shown.Listed {
		ti, _ := shown.Info.ToolInfo(t.Exposed)
		if t.Server == "" {
			continue // inline: it never runs, so nothing blocks it
		}
		if why := policy.Blocks(ti); why != "" {
			fmt.Fprintln(w, reports.Printable(fmt.Sprintf("blocked: %s: a suite does not run it: %s", ti.Exposed, why)))
		}
	}
	for _, l := range servers.ChangeLines(shown.Listed) {
		fmt.Fprintln(w, reports.Printable(l))
	}
	return nil
}

// toolRows are the table rows of the tools shown, in the order sent.
func toolRows(shown *toolbox.Shown) [][]string {
	var rows [][]string
	byName := map[string]servers.Tool{}
	for _, t := range shown.Listed {
		byName[t.Exposed] = t
	}
	for _, x := range shown.Tools {
		// Overlays keep the catalog's order and change only descriptions;
		// decoys come between the real tools.
		t, real := byName[x.Function.Name]
		server := t.Server
		switch {
		case !real && shown.Decoys != nil && shown.Decoys.Decoy(x.Function.Name):
			t = shown.Decoys.Tool(x.Function.Name)
			server = "decoy (" + t.Server + ")"
		case server == "":
			server = "(inline)" // a case's own definition: nothing behind it
		}
		t.Ollama, t.Description = x, x.Function.Description
		one, _ := json.Marshal(t.Ollama)
		rows = append(rows, []string{t.Exposed, server, params(t), fmt.Sprint(len(one)), clip(t.Description, 60)})
	}
	return rows
}

// printVariantSends says what variant v sends besides its tools: its
// system prompt, think and options.
func printVariantSends(w io.Writer, v *suite.Variant) {
	if v != nil && v.System != "" {
		fmt.Fprintln(w, reports.Printable("system prompt of variant "+v.Name+": "+clip(v.System, 200)))
	}
	if v != nil && (v.Think != "" || len(v.Options) > 0) {
		// The JSON's keys are sorted.
		opts := ""
		if len(v.Options) > 0 {
			b, _ := json.Marshal(v.Options)
			opts = string(b)
		}
		fmt.Fprintln(w, reports.Printable(fmt.Sprintf("variant %s sends think %s and options %s over the suite's", v.Name, orUnset(v.Think), orUnset(opts))))
	}
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

// confusableFlag registers --confusable, the score from which `tools` and
// `cases generate` count two tools as a pair a model may confuse.
func confusableFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("confusable", confusable.DefaultThreshold, "list the pairs of tools scoring at least `S` (0..1) on description and parameter overlap as tools a model may confuse")
}

func checkConfusable(cmd string, s float64) error {
	if math.IsNaN(s) || s < 0 || s > 1 {
		return usageErrorf("%s: --confusable %g: give a score from 0 to 1", cmd, s)
	}
	return nil
}
