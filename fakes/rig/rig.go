// Package rig wires the fakes up for tests and benchmarks: a fake Ollama on
// a loopback HTTP server and fake MCP servers connected in-process, through
// the same client code that talks to the real ones.
package rig

import (
	"context"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fakemcp "github.com/toolgrade/toolgrade/fakes/mcp"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// Ollama serves script (nil: the embedded demo script) on a loopback HTTP
// server that lives as long as the test. Options nil keeps the script's
// latencies.
func Ollama(t testing.TB, script *fakeollama.Script, o *fakeollama.Options) (*fakeollama.Server, *url.URL) {
	t.Helper()
	if script == nil {
		var err error
		if script, err = fakeollama.DemoScript(); err != nil {
			t.Fatal(err)
		}
	}
	if o == nil {
		o = &fakeollama.Options{Latency: -1}
	}
	srv := fakeollama.New(script, o)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	base, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return srv, base
}

// Catalog connects the named fake MCP servers ("docs", "faulty", "notes")
// in-process and closes them when the test ends; "notes" keeps its notes in
// a directory of the test's, never in the package's.
func Catalog(t testing.TB, o *mcpclient.Options, names ...string) *mcpclient.Catalog {
	t.Helper()
	cfg := &serversfile.Config{Path: "rig.json", Dir: t.TempDir()}
	for _, name := range names {
		cfg.Servers = append(cfg.Servers, serversfile.Server{Name: name, Dial: func(ctx context.Context) (mcp.Transport, error) {
			s, err := fakemcp.New(name)
			if name == "notes" {
				s = fakemcp.Notes(&fakemcp.NotesOptions{Dir: cfg.Dir})
			}
			if err != nil {
				return nil, err
			}
			tr, stop, err := fakemcp.InMemory(context.Background(), s)
			t.Cleanup(stop)
			return tr, err
		}})
	}
	cat, err := mcpclient.Connect(context.Background(), cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}
