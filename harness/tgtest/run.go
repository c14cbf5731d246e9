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
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// checkTimeout bounds each start-up check of Ollama, so a port that accepts
// connections and never answers skips instead of hanging the test.
const checkTimeout = 10 * time.Second

// RunSuite runs the cases of s (from suite.Load, or Suite) against srv and
// reports each case as a subtest of t. The servers s names are not started:
// srv stands for them. Options that are set override s's defaults; s itself
// is not changed.
func RunSuite[S T[S]](t S, srv *mcp.Server, s *suite.Suite, o *Options) {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	ctx := t.Context()
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	s = withOptions(s, o)
	models := o.Models
	if len(models) == 0 {
		models = s.Models
	}
	if len(models) == 0 {
		t.Fatalf("tgtest: no models: set Options.Models")
		return
	}
	repeat := max(o.Repeat, 1)

	cat, err := connect(ctx, t, srv, o.ServerName)
	if err != nil {
		t.Fatalf("tgtest: connecting the MCP server in-process: %v", err)
		return
	}
	cats := toolbox.NewBase(cat)
	if err := s.Check(cats); err != nil {
		t.Fatalf("tgtest: the cases do not fit the server's tools:\n%v", err)
		return
	}
	// The cases that bring their own tools are sent them, the others the
	// server's.
	own, err := toolbox.CaseOffers(s, cats)
	if err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}

	ol, err := ollama(t, o)
	if err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}
	if _, err := llm.Ping(ctx, ol.Client, ol.Base, ol.Source); err != nil {
		// The error names the URL tried, where it came from and OLLAMA_HOST.
		msg := fmt.Sprintf("tgtest: skipped: %v", err)
		skips := map[string]string{}
		for _, m := range models {
			skips[m] = msg
		}
		report(t, s, models, repeat, skips, nil)
		return
	}

	var out bytes.Buffer
	r := &runner.Runner{Chat: ol.Client, Tools: cat, Catalog: cat, Models: ol, Out: record.NewWriter(&out)}
	var checked []record.Model
	skips := map[string]string{}
	for _, name := range models {
		m, err := r.CheckModels(ctx, []string{name})
		var np *llm.NotPulledError
		switch {
		case errors.As(err, &np):
			skips[name] = fmt.Sprintf("tgtest: %v", err)
		case err != nil:
			t.Fatalf("tgtest: %v", err)
			return
		default:
			checked = append(checked, m...)
		}
	}
	if len(checked) == 0 {
		report(t, s, models, repeat, skips, nil)
		return
	}

	var w *store.Writer
	if o.RunDir != "" {
		if w, err = createRun(o.RunDir, s, cat, ol, repeat, checked); err != nil {
			t.Fatalf("tgtest: %v", err)
			return
		}
		r.Out = w.Trials()
	}
	cfg := runner.Config{Suite: s, Models: checked, Repeat: repeat, WaitOllama: -1}
	if own != nil {
		cfg.Variants = []runner.Variant{{Cases: own}}
	}
	_, runErr := r.Run(ctx, cfg)
	switch {
	case runErr != nil && o.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		t.Errorf("tgtest: the run stopped: Options.Timeout (%s) ran out", o.Timeout)
	case runErr != nil:
		t.Errorf("tgtest: the run stopped: %v", runErr)
	}
	var trials []*record.Trial
	if w != nil {
		if err := finishRun(w, runErr); err != nil {
			t.Errorf("tgtest: %v", err)
		}
		// The trials are read back from the directory, so the subtests judge
		// what `toolgrade report` will show.
		warnings, err := store.ReadTrials(o.RunDir, func(tr *record.Trial) { trials = append(trials, tr) })
		if err == nil && len(warnings) > 0 {
			err = warnings[0]
		}
		if err != nil {
			t.Fatalf("tgtest: %v", err)
			return
		}
	} else if trials, err = parseTrials(&out); err != nil {
		t.Fatalf("tgtest: %v", err)
		return
	}
	report(t, s, models, repeat, skips, trials)
}

// withOptions returns a copy of s with the options that are set applied to
// its defaults and cases. The cases, their expected calls and their own
// tools are copied too: Suite.Check fills in their exposed names.
func withOptions(s *suite.Suite, o *Options) *suite.Suite {
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
	if o.ModelOptions != nil {
		opts := maps.Clone(c.Defaults.Options)
		if opts == nil {
			opts = map[string]any{}
		}
		maps.Copy(opts, o.ModelOptions)
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

// connect lists srv's tools through internal/servers, over an in-memory
// transport, exactly as a stdio server's would be.
func connect(ctx context.Context, t TB, srv *mcp.Server, name string) (*servers.Catalog, error) {
	if name == "" {
		name = "server"
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	cfg := &servers.Config{Path: "tgtest", Dir: dir, Servers: []servers.Server{{
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
	cat, err := servers.Connect(ctx, cfg, &servers.Options{RequireAll: true})
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

// createRun makes the run directory `toolgrade report` reads.
func createRun(dir string, s *suite.Suite, cat *servers.Catalog, ol *llm.Ollama, repeat int, models []record.Model) (*store.Writer, error) {
	if err := store.CheckFresh(dir); err != nil {
		return nil, fmt.Errorf("Options.RunDir %s: %w", dir, err)
	}
	path, _ := filepath.Abs(s.Path)
	run := &record.Run{
		Suite:       record.RunSuite{Name: s.Name, Path: path, Hash: s.Hash},
		Harness:     "tgtest",
		Ollama:      record.RunOllama{URL: redact.URL(ol.Base.String())},
		CatalogHash: toolbox.CatalogHash(cat),
		Repeat:      repeat,
		Parallel:    1,
		Options:     s.Defaults.Options,
		Think:       s.Defaults.Think,
		MaxRounds:   s.Defaults.MaxRounds,
		Start:       time.Now(),
		Models:      models,
		Cases:       s.CaseHashes(),
		Servers:     toolbox.RunServers(cat),
	}
	run.BaseSeed, _ = s.Defaults.Seed()
	w, err := store.Create(dir, run)
	if err != nil {
		return nil, fmt.Errorf("Options.RunDir %s: %w", dir, err)
	}
	return w, nil
}

func finishRun(w *store.Writer, runErr error) error {
	status, errText := store.StatusComplete, ""
	if runErr != nil {
		status, errText = store.StatusFailed, runErr.Error()
	}
	err := w.Update(func(r *record.Run) {
		r.Status, r.Error, r.End = status, errText, time.Now()
	})
	return errors.Join(err, w.Close())
}
