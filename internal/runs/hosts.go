package runs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// Host is one Ollama of --ollama or --ollama-hosts: its URL and the trials
// it runs at once.
type Host struct {
	URL string
	// Parallel is how many trials run at once there; zero: the run's
	// Parallel.
	Parallel int
}

// ParseHost reads URL or URL#N: a fragment is never sent to a server, so #N
// cannot clash with the address.
func ParseHost(s string) (Host, error) {
	u, n, ok := strings.Cut(strings.TrimSpace(s), "#")
	if u == "" {
		return Host{}, fmt.Errorf("no URL in %q", s)
	}
	if !ok {
		return Host{URL: u}, nil
	}
	p, err := strconv.Atoi(n)
	if err != nil || p < 1 {
		return Host{}, fmt.Errorf("%q: the parallelism after # must be a whole number of at least 1", redact.URL(s))
	}
	return Host{URL: u, Parallel: p}, nil
}

// ReadHostsFile reads --ollama-hosts: one host a line, as URL, URL#N or
// "URL N"; blank lines and text from a # that starts a word are comments.
// A bad line is an error at its file:line:col.
func ReadHostsFile(path string) ([]Host, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ollama-hosts: %w", err)
	}
	var out []Host
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
		h, err := ParseHost(spec)
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

// parseHosts is every Ollama of --ollama (urls), in order.
func parseHosts(urls []string) ([]Host, error) {
	var out []Host
	for _, u := range urls {
		h, err := ParseHost(u)
		if err != nil {
			return nil, cli.Usagef("--ollama: %v", err)
		}
		out = append(out, h)
	}
	return out, nil
}

// hosts is every Ollama of --ollama and --ollama-hosts, in order.
func (s *Spec) hosts() ([]Host, error) {
	out, err := parseHosts(s.Ollama)
	if err != nil || s.HostsFile == "" {
		return out, err
	}
	hs, err := ReadHostsFile(s.HostsFile)
	if err != nil {
		return nil, cli.AsUsage(err)
	}
	return append(out, hs...), nil
}
