package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"math"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/confusable"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
	"github.com/toolgrade/toolgrade/internal/toolsview"
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
		return cli.Usagef("tools: unexpected argument %q", pos[0])
	}
	if err := mf.check(); err != nil {
		return err
	}
	if err := checkConfusable("tools", *minConfusable); err != nil {
		return err
	}
	if *caseID != "" && *suitePath == "" {
		return cli.Usagef("tools: --case needs --suite FILE, the suite that defines it")
	}
	vt, err := loadVariantTools(ctx, *suitePath, *variant, sf.file)
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
		return runs.ToolboxErr(err)
	}
	defer cat.Close()
	shown, err := toolbox.Show(ctx, cat, toolbox.ShowSpec{Suite: vt.suite, Variant: vt.variant, Case: kase, Connect: conn})
	if err != nil {
		return runs.ToolboxErr(err)
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
		return toolsview.PrintJSON(stdout, stderr, toolJSON, size, pairs)
	}
	return toolsview.Print(stdout, shown, vt.variant, toolJSON, size, pairs)
}

// variantTools is what `toolgrade tools` shows: the servers file to connect
// and the variant (nil: the base) whose overlays apply.
type variantTools struct {
	// cfg is nil for a suite without servers whose cases bring their own
	// tools.
	cfg     *serversfile.Config
	suite   *suite.Suite
	variant *suite.Variant
}

// loadVariantTools reads --suite and finds --variant in it: the servers are
// the variant's own file, else --servers, else the suite's.
func loadVariantTools(ctx context.Context, suitePath, variant, serversFile string) (*variantTools, error) {
	vt := &variantTools{}
	if suitePath == "" {
		if variant != "" {
			return nil, cli.Usagef("tools: --variant needs --suite FILE, the suite that defines it")
		}
		if serversFile == "" {
			return nil, cli.Usagef("tools: --servers FILE is required")
		}
		cfg, err := serversfile.Load(ctx, serversFile)
		vt.cfg = cfg
		return vt, cli.AsUsage(err)
	}
	s, err := suite.Load(suitePath, 0)
	if err != nil {
		return nil, cli.AsUsage(err)
	}
	vt.suite = s
	if variant != "" && variant != suite.BaseVariant {
		if vt.variant = s.Variant(variant); vt.variant == nil {
			return nil, cli.Usagef("tools: --variant: %s", srcpos.Unknown("variant", variant, append([]string{suite.BaseVariant}, s.VariantNames()...)))
		}
	}
	var cfg *serversfile.Config
	switch {
	case vt.variant != nil && vt.variant.ServersPath != "":
		cfg, err = serversfile.Load(ctx, vt.variant.ServersPath)
	case serversFile != "":
		cfg, err = serversfile.Load(ctx, serversFile)
	case !toolbox.NeedsServers(s):
		// No servers to start: every case brings its own tools.
	default:
		cfg, err = runs.SuiteServers(ctx, s)
	}
	if err != nil {
		return nil, cli.AsUsage(err)
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
		return nil, cli.Usagef("tools: --case: %s", srcpos.Unknown("case", id, ids))
	}
	if c.Tools == nil {
		return nil, cli.Usagef("tools: case %s brings no tools of its own: it is sent the suite's catalog, which `toolgrade tools --suite %s` shows", c.ID, suitePath)
	}
	return c, nil
}

// measureFlags are the flags of `tools` that measure the catalog's prompt
// tokens on a model, and the Ollama they reach once dialed.
type measureFlags struct {
	model, ollamaURL string
	options          optionList
	ot               ollamaTimeouts
	ol               *runs.Conn // nil until dial, and without --model
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
		return cli.Usagef("tools: --ollama and -o measure tokens on a model: give --model NAME too")
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
		return runs.AsInfra(err)
	}
	mf.ol, mf.info = ol, info
	return nil
}

// measure is the prompt size of tools (with v's system prompt) on the
// model; nil without --model.
func (mf *measureFlags) measure(ctx context.Context, tools api.Tools, v *suite.Variant) (*toolsview.PromptSize, error) {
	if mf.ol == nil {
		return nil, nil
	}
	req := llm.MeasureRequest{Model: mf.model, Tools: tools, Options: mf.options, NumCtx: mf.info.NumCtx, Running: mf.ol.Client}
	if v != nil {
		req.System = v.System
	}
	measured, err := llm.MeasureTools(ctx, mf.ol.Chat, req)
	if err != nil {
		return nil, runs.AsInfra(err)
	}
	return toolsview.NewPromptSize(mf.model, measured), nil
}

// confusableFlag registers --confusable, the score from which `tools` and
// `cases generate` count two tools as a pair a model may confuse.
func confusableFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("confusable", confusable.DefaultThreshold, "the score `S` (0..1) of description and parameter overlap from which two tools count as a pair a model may confuse (tools lists them; cases generate asks for questions telling them apart)")
}

func checkConfusable(cmd string, s float64) error {
	if math.IsNaN(s) || s < 0 || s > 1 {
		return cli.Usagef("%s: --confusable %g: give a score from 0 to 1", cmd, s)
	}
	return nil
}
