package runs

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// Timeouts bound how long a command waits on Ollama.
type Timeouts struct {
	// Startup bounds each start-up request (version, model list and
	// details); zero: no limit.
	Startup time.Duration
	// Idle is the time without a chunk from Ollama before a request fails
	// as an infrastructure error; zero: no limit.
	Idle time.Duration
}

// Conn is an Ollama server that answered.
type Conn struct {
	Client *api.Client
	Base   *url.URL
	// Models checks and loads models under the start-up and idle timeouts.
	Models *llm.Ollama
	// Chat is the client under the idle timeout: what the loop talks to.
	Chat    bridge.Chatter
	Version string
}

// DialOllama finds Ollama (flagURL, else OLLAMA_HOST) and checks, before
// any work, that it answers: a bad URL is a cli.UsageError, no answer an
// InfraError.
func DialOllama(ctx context.Context, flagURL string, t Timeouts) (*Conn, error) {
	base, err := llm.Endpoint(flagURL)
	if err != nil {
		return nil, cli.AsUsage(err)
	}
	hc := llm.HTTPClient()
	client := api.NewClient(base, hc)
	models := &llm.Ollama{Client: client, Base: base, Source: llm.EndpointSource(flagURL), Timeout: t.Startup, Idle: t.Idle}
	version, err := models.Version(ctx)
	if err != nil {
		return nil, AsInfra(err)
	}
	return &Conn{
		Client: client, Base: base, Models: models, Version: version,
		// Not api.Client's Chat, which allocates 8 MB for every request:
		// a run's thousands of trials and serve's concurrent chats would pay
		// it in memory and GC (see llm.StreamChatter).
		Chat: &llm.IdleChatter{Next: llm.NewChatter(base, hc, client), Idle: t.Idle},
	}, nil
}

// ollamas is what connectOllamas found: the runner over the Ollama(s), the
// first host (for run.json) and the models as they described them.
type ollamas struct {
	runner *runner.Runner
	first  *Conn
	models []record.Model
}

// connectOllamas dials the Ollamas of hosts and checks the models there. One
// host (or none: OLLAMA_HOST) is a single Ollama, with URL#N setting
// *parallel; several make a pool, whose hosts without a model are named on
// stderr and not used for it.
func connectOllamas(ctx context.Context, hosts []Host, t Timeouts, models []string, parallel *int, stderr io.Writer) (*ollamas, error) {
	if len(hosts) <= 1 {
		var u string
		if len(hosts) == 1 {
			u = hosts[0].URL
			if hosts[0].Parallel > 0 {
				*parallel = hosts[0].Parallel
			}
		}
		ol, err := DialOllama(ctx, u, t)
		if err != nil {
			return nil, err
		}
		r := &runner.Runner{Chat: ol.Chat, Models: ol.Models}
		checked, err := r.CheckModels(ctx, models)
		if err != nil {
			return nil, AsInfra(err)
		}
		return &ollamas{r, ol, checked}, nil
	}
	pool, first, err := dialHosts(ctx, hosts, t)
	if err != nil {
		return nil, err
	}
	r := &runner.Runner{Hosts: pool, OnHost: func(msg string) { fmt.Fprintf(stderr, "toolgrade: %s\n", msg) }}
	checked, err := r.CheckHosts(ctx, models)
	if err != nil {
		return nil, AsInfra(err)
	}
	for _, m := range checked {
		for _, d := range m.HostDrift() {
			fmt.Fprintf(stderr, "toolgrade: warning: %s\n", d)
		}
	}
	return &ollamas{r, first, checked}, nil
}

// dialHosts checks that every host answers, as DialOllama does for one, and
// makes the runner's pool of them; first is the first host's connection.
func dialHosts(ctx context.Context, hosts []Host, t Timeouts) (pool []runner.Host, first *Conn, err error) {
	seen := map[string]bool{}
	for _, h := range hosts {
		ol, err := DialOllama(ctx, h.URL, t)
		if err != nil {
			return nil, nil, err
		}
		if first == nil {
			first = ol
		}
		name := redact.URL(ol.Base.String())
		if seen[name] {
			return nil, nil, cli.Usagef("--ollama: %s is listed twice (give it more trials with URL#N instead)", name)
		}
		seen[name] = true
		pool = append(pool, runner.Host{Name: name, Chat: ol.Chat, Models: ol.Models, Version: ol.Version, Parallel: h.Parallel})
	}
	return pool, first, nil
}

// url is the Ollama(s) as run.json's ollama.url names them: the host, or
// every host of a pool.
func (o *ollamas) url() string {
	if len(o.runner.Hosts) == 0 {
		return redact.URL(o.first.Base.String())
	}
	names := make([]string, len(o.runner.Hosts))
	for i, h := range o.runner.Hosts {
		names[i] = h.Name
	}
	return strings.Join(names, " ")
}
