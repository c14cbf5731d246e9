package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/casetools"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/reports"
)

// hasServers reports whether s names MCP servers.
func hasServers(s *suite.Suite) bool { return s.ServersPath != "" || s.ServersNode != nil }

// allOwnTools reports whether every case of s brings its own tools, so a
// suite without servers can run.
func allOwnTools(s *suite.Suite) bool {
	for i := range s.Cases {
		if s.Cases[i].Tools == nil {
			return false
		}
	}
	return len(s.Cases) > 0
}

// connectSuiteServers connects the servers of cfg; nil cfg (a suite without
// servers whose every case brings its own tools) gets an empty catalog, and
// no server starts.
func connectSuiteServers(ctx context.Context, cfg *servers.Config, sf *serverFlags, stderr io.Writer) (*servers.Catalog, error) {
	if cfg != nil {
		return connectServers(ctx, cfg, sf, stderr)
	}
	opts, err := sf.options(stderr)
	if err != nil {
		return nil, err
	}
	cat, err := servers.Connect(ctx, &servers.Config{}, opts)
	return cat, asInfra(err)
}

// caseDropWarnings are the warnings of what Ollama's format drops from the
// cases' inline tools: one line per distinct tool and severity, naming the
// cases that bring it (the servers' tools are shown by `toolgrade tools`).
func caseDropWarnings(s *suite.Suite, cc *casetools.Catalogs) []string {
	type entry struct {
		tool  servers.Tool
		cases []string
	}
	var order []string
	byKey := map[string]*entry{}
	for i := range s.Cases {
		c := &s.Cases[i]
		if !c.HasInline() {
			continue
		}
		st, err := cc.Static(c)
		if err != nil {
			continue // Check reported it
		}
		for _, t := range st.Tools() {
			if t.Server != "" || len(t.Drops) == 0 {
				continue
			}
			b, _ := json.Marshal(t.Ollama)
			key := string(b) + "\x00" + strings.Join(t.Dropped, ",")
			e := byKey[key]
			if e == nil {
				e = &entry{tool: t}
				byKey[key] = e
				order = append(order, key)
			}
			e.cases = append(e.cases, c.ID)
		}
	}
	var out []string
	for _, key := range order {
		e := byKey[key]
		who := fmt.Sprintf("tool %s of case %s", e.tool.Exposed, casesList(e.cases))
		if len(e.cases) > 1 {
			who = fmt.Sprintf("tool %s of cases %s", e.tool.Exposed, casesList(e.cases))
		}
		var lost, minor []string
		for _, d := range e.tool.Drops {
			switch d.Severity {
			case servers.SeverityLost:
				lost = append(lost, d.Path)
			case servers.SeverityMinor:
				minor = append(minor, d.Path)
			}
		}
		if len(lost) > 0 {
			out = append(out, reports.Printable(fmt.Sprintf("%s: information lost: Ollama's tool format drops %s; the model never sees it, the validator still checks it", who, strings.Join(lost, ", "))))
		}
		if len(minor) > 0 {
			out = append(out, reports.Printable(fmt.Sprintf("%s: %s dropped by Ollama's tool format; the model never sees it", who, strings.Join(minor, ", "))))
		}
	}
	return out
}

// casesList names up to five case ids, then counts the rest.
func casesList(ids []string) string {
	const show = 5
	if len(ids) <= show {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:show], ", "), len(ids)-show)
}

// caseTools is the catalog case c brings, over cat, with the variant's
// overlays checked (their Exposed set) for the transformation.
func (vt *variantTools) caseTools(cat *servers.Catalog, c *suite.Case) (*servers.Static, error) {
	cc := casetools.New(cat)
	if err := vt.suite.CheckCaseTools(cc); err != nil {
		return nil, asUsage(err)
	}
	if vt.variant != nil && len(vt.variant.Tools) > 0 {
		if err := vt.suite.CheckOverlays(vt.variant, cc); err != nil {
			return nil, asUsage(err)
		}
	}
	return cc.Static(c)
}
