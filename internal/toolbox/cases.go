package toolbox

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// NeedsServers reports whether s runs with MCP servers: it names some, or
// one of its cases brings no tools of its own (a suite whose every case
// does can run without servers).
func NeedsServers(s *suite.Suite) bool {
	if s.ServersPath != "" || s.ServersNode != nil {
		return true
	}
	for i := range s.Cases {
		if s.Cases[i].Tools == nil {
			return true
		}
	}
	return len(s.Cases) == 0
}

// CaseDropWarnings are the warnings of what Ollama's format drops from the
// cases' inline tools: one line per distinct tool and severity, naming the
// cases that bring it (the servers' tools are shown by `toolgrade tools`).
// The text quotes the cases' tools as written: escape it for a terminal.
func CaseDropWarnings(s *suite.Suite, b *Base) []string {
	type entry struct {
		tool  toolschema.Tool
		cases []string
	}
	var order []string
	byKey := map[string]*entry{}
	for i := range s.Cases {
		c := &s.Cases[i]
		if !c.HasInline() {
			continue
		}
		st, err := b.Static(c)
		if err != nil {
			continue // Check reported it
		}
		for _, t := range st.Tools() {
			if t.Server != "" || len(t.Drops) == 0 {
				continue
			}
			data, _ := json.Marshal(t.Ollama)
			key := string(data) + "\x00" + strings.Join(t.Dropped, ",")
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
		out = append(out, dropWarnings(e.tool, e.cases)...)
	}
	return out
}

// dropWarnings are the warnings of what Ollama's format drops from tool t
// of cases: the information lost, then the lesser drops.
func dropWarnings(t toolschema.Tool, cases []string) []string {
	who := fmt.Sprintf("tool %s of case %s", t.Exposed, casesList(cases))
	if len(cases) > 1 {
		who = fmt.Sprintf("tool %s of cases %s", t.Exposed, casesList(cases))
	}
	var lost, minor []string
	for _, d := range t.Drops {
		switch d.Severity {
		case toolschema.SeverityLost:
			lost = append(lost, d.Path)
		case toolschema.SeverityMinor:
			minor = append(minor, d.Path)
		}
	}
	var out []string
	if len(lost) > 0 {
		out = append(out, fmt.Sprintf("%s: information lost: Ollama's tool format drops %s; the model never sees it, the validator still checks it", who, strings.Join(lost, ", ")))
	}
	if len(minor) > 0 {
		out = append(out, fmt.Sprintf("%s: %s dropped by Ollama's tool format; the model never sees it", who, strings.Join(minor, ", ")))
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
