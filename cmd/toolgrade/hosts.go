package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// ollamaList is --ollama given any number of times, in order.
type ollamaList []string

func (l *ollamaList) String() string { return strings.Join(*l, ",") }

func (l *ollamaList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// hostSpec is one Ollama of --ollama or --ollama-hosts: its URL and the
// trials it runs at once (zero: --parallel).
type hostSpec struct {
	url      string
	parallel int
}

// parseHostSpec reads URL or URL#N: a fragment is never sent to a server,
// so #N cannot clash with the address.
func parseHostSpec(s string) (hostSpec, error) {
	u, n, ok := strings.Cut(strings.TrimSpace(s), "#")
	if u == "" {
		return hostSpec{}, fmt.Errorf("no URL in %q", s)
	}
	if !ok {
		return hostSpec{url: u}, nil
	}
	p, err := strconv.Atoi(n)
	if err != nil || p < 1 {
		return hostSpec{}, fmt.Errorf("%q: the parallelism after # must be a whole number of at least 1", redact.URL(s))
	}
	return hostSpec{url: u, parallel: p}, nil
}

// readHostsFile reads --ollama-hosts: one host a line, as URL, URL#N or
// "URL N"; blank lines and text from a # that starts a word are comments.
func readHostsFile(path string) ([]hostSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ollama-hosts: %w", err)
	}
	var out []hostSpec
	off := 0
	for line := range bytes.Lines(data) {
		start := off
		off += len(line)
		fields := strings.Fields(string(line))
		for i, f := range fields {
			if strings.HasPrefix(f, "#") {
				fields = fields[:i]
				break
			}
		}
		if len(fields) == 0 {
			continue
		}
		at := srcpos.Offset(path, data, start+bytes.Index(line, []byte(fields[0])))
		if len(fields) > 2 {
			return nil, srcpos.Errorf(at, "", "a line is URL, URL#N or URL N; this one has %d words", len(fields))
		}
		spec := fields[0]
		if len(fields) == 2 {
			spec += "#" + fields[1]
		}
		h, err := parseHostSpec(spec)
		if err != nil {
			return nil, srcpos.Errorf(at, "", "%v", err)
		}
		out = append(out, h)
	}
	if len(out) == 0 {
		return nil, srcpos.Errorf(srcpos.Pos{File: path}, "", "no Ollama host listed")
	}
	return out, nil
}

// hostSpecs is every Ollama of --ollama and --ollama-hosts, in order.
func hostSpecs(urls ollamaList, file string) ([]hostSpec, error) {
	var out []hostSpec
	for _, u := range urls {
		h, err := parseHostSpec(u)
		if err != nil {
			return nil, usageErrorf("--ollama: %v", err)
		}
		out = append(out, h)
	}
	if file != "" {
		hs, err := readHostsFile(file)
		if err != nil {
			return nil, asUsage(err)
		}
		out = append(out, hs...)
	}
	return out, nil
}

// dialHosts checks that every host answers, as dialOllama does for one, and
// makes the runner's pool of them; first is the first host's connection.
func dialHosts(ctx context.Context, specs []hostSpec, ot *ollamaTimeouts) (hosts []runner.Host, first *ollamaConn, err error) {
	seen := map[string]bool{}
	for _, h := range specs {
		ol, err := dialOllama(ctx, h.url, ot)
		if err != nil {
			return nil, nil, err
		}
		if first == nil {
			first = ol
		}
		name := redact.URL(ol.base.String())
		if seen[name] {
			return nil, nil, usageErrorf("--ollama: %s is listed twice (give it more trials with URL#N instead)", name)
		}
		seen[name] = true
		hosts = append(hosts, runner.Host{Name: name, Chat: ol.chat, Models: ol.models, Version: ol.version, Parallel: h.parallel})
	}
	return hosts, first, nil
}

// connectOllamas dials the Ollamas of specs and checks the models there. One
// host (or none: OLLAMA_HOST) is today's single Ollama, with URL#N setting
// --parallel; several make a pool, whose hosts without a model are named on
// stderr and not used for it. ol is the first host, for run.json.
func connectOllamas(ctx context.Context, specs []hostSpec, ot *ollamaTimeouts, models []string, parallel *int, stderr io.Writer) (*runner.Runner, *ollamaConn, []record.Model, error) {
	if len(specs) <= 1 {
		var url string
		if len(specs) == 1 {
			url = specs[0].url
			if specs[0].parallel > 0 {
				*parallel = specs[0].parallel
			}
		}
		ol, err := dialOllama(ctx, url, ot)
		if err != nil {
			return nil, nil, nil, err
		}
		r := &runner.Runner{Chat: ol.chat, Models: ol.models}
		checked, err := r.CheckModels(ctx, models)
		if err != nil {
			return nil, nil, nil, asInfra(err)
		}
		return r, ol, checked, nil
	}
	hosts, ol, err := dialHosts(ctx, specs, ot)
	if err != nil {
		return nil, nil, nil, err
	}
	r := &runner.Runner{Hosts: hosts, OnHost: func(msg string) { fmt.Fprintf(stderr, "toolgrade: %s\n", msg) }}
	checked, err := r.CheckHosts(ctx, models)
	if err != nil {
		return nil, nil, nil, asInfra(err)
	}
	for _, m := range checked {
		for _, d := range m.HostDrift() {
			fmt.Fprintf(stderr, "toolgrade: warning: %s\n", d)
		}
	}
	return r, ol, checked, nil
}

// hostNames is the hosts' names for run.json's ollama.url.
func hostNames(hosts []runner.Host) string {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	return strings.Join(names, " ")
}
