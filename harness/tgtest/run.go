package tgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// checkTimeout bounds each start-up check of Ollama, so a port that accepts
// connections and never answers skips instead of hanging the test.
const checkTimeout = 10 * time.Second

// RunSuite runs the cases of s against srv and reports each case as a
// subtest of t. The servers a suite file names are not started: srv stands
// for them. Options that are set override s's defaults; s itself is not
// changed.
func RunSuite[S T[S]](t S, srv *mcp.Server, s *Suite, o *Options) {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	r, err := newRun(s.s, o)
	if err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}
	ctx := t.Context()
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	if err := r.setUp(ctx, t, srv); err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}
	checked, err := r.checkModels(ctx)
	if err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}
	var trials []*record.Trial
	if len(checked) > 0 {
		if trials, err = r.execute(ctx, t, checked); err != nil {
			t.Fatalf("tgtest: %v", err)
			return
		}
	}
	report(t, r, trials)
}

// run is one RunSuite: the suite with the options applied, and what setting
// it up found.
type run struct {
	o      *Options
	s      *suite.Suite
	models []string
	repeat int
	cat    *mcpclient.Catalog
	// own are the toolboxes of the cases that bring their own tools; nil
	// when none does.
	own map[string]runner.CaseTools
	ol  *llm.Ollama
	rn  *runner.Runner
	// skips maps a model to the message its subtests skip with.
	skips map[string]string
}

// newRun applies o to a copy of s and checks the options that need no
// server or Ollama.
func newRun(s *suite.Suite, o *Options) (*run, error) {
	var modelOpts map[string]any
	if o.ModelOptions != nil {
		v, err := jsonShape(o.ModelOptions)
		if err != nil {
			return nil, fmt.Errorf("Options.ModelOptions: %w", err)
		}
		modelOpts = v.(map[string]any)
	}
	r := &run{o: o, s: withOptions(s, o, modelOpts), models: o.Models, repeat: max(o.Repeat, 1), skips: map[string]string{}}
	if len(r.models) == 0 {
		r.models = r.s.Models
	}
	if len(r.models) == 0 {
		return nil, fmt.Errorf("no models: set Options.Models")
	}
	if err := checkMinPass(o.MinPass, r.repeat); err != nil {
		return nil, err
	}
	return r, nil
}

// setUp connects srv, checks the cases against its tools and finds the
// Ollama to run them with.
func (r *run) setUp(ctx context.Context, t TB, srv *mcp.Server) error {
	cat, err := connect(ctx, t, srv, r.o.ServerName)
	if err != nil {
		return fmt.Errorf("connecting the MCP server in-process: %w", err)
	}
	r.cat = cat
	cats := toolbox.NewBase(cat)
	if err := r.s.Check(cats); err != nil {
		return fmt.Errorf("the cases do not fit the server's tools:\n%w", err)
	}
	// The cases that bring their own tools are sent them, the others the
	// server's.
	if r.own, err = toolbox.CaseOffers(r.s, cats); err != nil {
		return err
	}
	r.ol, err = ollama(t, r.o)
	return err
}

// checkModels returns the models that can run, in order, and notes in
// r.skips why the others cannot: no Ollama answers, or it lacks the model.
// Its error is one that should fail the test.
func (r *run) checkModels(ctx context.Context) ([]record.Model, error) {
	if _, err := llm.Ping(ctx, r.ol.Client, r.ol.Base, r.ol.Source); err != nil {
		// The error names the URL tried, where it came from and OLLAMA_HOST.
		for _, m := range r.models {
			r.skips[m] = fmt.Sprintf("tgtest: skipped: %v", err)
		}
		return nil, nil
	}
	r.rn = &runner.Runner{Chat: r.ol.Client, Tools: r.cat, Catalog: r.cat, Models: r.ol}
	var checked []record.Model
	for _, name := range r.models {
		m, err := r.rn.CheckModels(ctx, []string{name})
		var np *llm.NotPulledError
		switch {
		case errors.As(err, &np):
			r.skips[name] = fmt.Sprintf("tgtest: %v", err)
		case err != nil:
			return nil, err
		default:
			checked = append(checked, m...)
		}
	}
	return checked, nil
}

// execute runs the checked models' trials and returns them as recorded,
// read back from Options.RunDir when it is set, so the subtests judge what
// `toolgrade report` will show. A run that stopped fails t; the error
// returned leaves nothing to judge.
func (r *run) execute(ctx context.Context, t TB, checked []record.Model) ([]*record.Trial, error) {
	var out bytes.Buffer
	r.rn.Out = record.NewWriter(&out)
	var w *store.Writer
	if r.o.RunDir != "" {
		var err error
		if w, err = createRun(r.o.RunDir, r.s, r.cat, r.own, r.ol, r.repeat, checked); err != nil {
			return nil, err
		}
		r.rn.Out = w.Trials()
	}
	cfg := runner.Config{Suite: r.s, Models: checked, Repeat: r.repeat, WaitOllama: -1}
	if r.own != nil {
		cfg.Variants = []runner.Variant{{Cases: r.own}}
	}
	_, runErr := r.rn.Run(ctx, cfg)
	switch {
	case runErr != nil && r.o.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		t.Errorf("tgtest: the run stopped: Options.Timeout (%s) ran out", termtext.Duration(r.o.Timeout))
	case runErr != nil:
		t.Errorf("tgtest: the run stopped: %v", runErr)
	}
	if w == nil {
		return parseTrials(&out)
	}
	if err := finishRun(ctx, w, runErr); err != nil {
		t.Errorf("tgtest: %v", err)
	}
	return readRun(r.o.RunDir)
}

// withOptions returns a copy of s with the options that are set applied to
// its defaults and cases, and modelOpts (Options.ModelOptions in a parsed
// suite's shapes) merged over its model options. The cases, their expected
// calls and their own tools are copied too: Suite.Check fills in their
// exposed names.
func withOptions(s *suite.Suite, o *Options, modelOpts map[string]any) *suite.Suite {
	c := *s
	c.Cases = append([]suite.Case(nil), s.Cases...)
	for i := range c.Cases {
		c.Cases[i].Expect.Calls = append([]suite.ExpectedCall(nil), c.Cases[i].Expect.Calls...)
		if c.Cases[i].Tools != nil {
			c.Cases[i].Tools = append([]suite.CaseTool{}, c.Cases[i].Tools...)
		}
	}
	if o.Think != "" {
		c.Defaults.Think = o.Think
	}
	if o.System != "" {
		c.Defaults.System = o.System
	}
	if modelOpts != nil {
		opts := maps.Clone(c.Defaults.Options)
		if opts == nil {
			opts = map[string]any{}
		}
		maps.Copy(opts, modelOpts)
		c.Defaults.Options = opts
	}
	if o.MaxRounds > 0 {
		c.Defaults.MaxRounds = o.MaxRounds
		for i := range c.Cases {
			c.Cases[i].MaxRounds = o.MaxRounds
		}
	}
	return &c
}

// connect lists srv's tools through internal/mcpclient, over an in-memory
// transport, exactly as a stdio server's would be.
func connect(ctx context.Context, t TB, srv *mcp.Server, name string) (*mcpclient.Catalog, error) {
	if name == "" {
		name = "server"
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	cfg := &serversfile.Config{Path: "tgtest", Dir: dir, Servers: []serversfile.Server{{
		Name: name,
		Dial: func(ctx context.Context) (mcp.Transport, error) {
			st, ct := mcp.NewInMemoryTransports()
			// The session outlives the dial's context: it lives as long as
			// the catalog, which closes it.
			ss, err := srv.Connect(context.WithoutCancel(ctx), st, nil)
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { ss.Close() })
			return ct, nil
		},
	}}}
	cat, err := mcpclient.Connect(ctx, cfg, &mcpclient.Options{RequireAll: true})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cat.Close() })
	return cat, nil
}

// ollama is the Ollama of o: the fake serving o.Fake, else the real one.
func ollama(t TB, o *Options) (*llm.Ollama, error) {
	if o.Fake != nil {
		if err := o.Fake.Validate(); err != nil {
			return nil, fmt.Errorf("Options.Fake: %w", err)
		}
		ts := httptest.NewServer(fakeollama.New(o.Fake, nil))
		t.Cleanup(ts.Close)
		base, err := url.Parse(ts.URL)
		if err != nil {
			return nil, err
		}
		return &llm.Ollama{Client: llm.NewClient(base), Base: base, Source: "the fake Ollama (Options.Fake)", Timeout: checkTimeout}, nil
	}
	base, err := llm.Endpoint(o.Ollama)
	if err != nil {
		return nil, err
	}
	source := "Options.Ollama"
	if o.Ollama == "" {
		source = llm.EndpointSource("")
	}
	return &llm.Ollama{Client: llm.NewClient(base), Base: base, Source: source, Timeout: checkTimeout}, nil
}

func parseTrials(b *bytes.Buffer) ([]*record.Trial, error) {
	rd := record.NewReader(bytes.NewReader(b.Bytes()), "trials")
	var out []*record.Trial
	for rd.Scan() {
		out = append(out, rd.Trial())
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if len(rd.Warnings) > 0 {
		return nil, rd.Warnings[0]
	}
	return out, nil
}
