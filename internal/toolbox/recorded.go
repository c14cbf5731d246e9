package toolbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// Recorded is one variant's tool catalog as a run's run.json recorded it,
// rebuilt offline for rescoring: a suite.Catalog for scoring and
// Suite.Check whose names resolve as the live catalog resolved them and
// whose arguments are validated against the parameters the model was
// shown. Those are the tools' schemas without the constraints Ollama's shape
// cannot carry (see hidden constraints), so offline validation is weaker
// than live: an argument breaking only a hidden constraint passes here.
// Executed trials are not affected: their executions recorded the live
// verdict.
type Recorded struct {
	tools   api.Tools
	names   []string
	schemas map[string]*jsonschema.Resolved
	partial map[string]*jsonschema.Resolved
	params  map[string]json.RawMessage // exposed name → the parameters as sent
	servers map[string][]string        // server → exposed tool names
	// cases are the catalogs of the cases that brought their own tools, by
	// case id; nil when none did.
	cases  map[string]*Recorded
	decoys []string // the decoys among tools (RunCatalog.Decoys)
	// skipped are the run's servers that failed to connect
	// (suite.SkipReporter), so a rescore leaves their cases as the run did.
	skipped []string
}

// RecordedCatalogs rebuilds, from run.json's catalogs, what scoring and
// Suite.Check need of each variant's tools, by variant name ("" the base).
func RecordedCatalogs(meta *record.Run) (map[string]*Recorded, error) {
	byServer := map[string][]string{}
	for _, srv := range meta.Servers {
		byServer[srv.Name] = srv.Tools
	}
	out := map[string]*Recorded{}
	for _, rc := range meta.Catalogs {
		c, err := newRecorded(rc.Tools, byServer)
		if err != nil {
			return nil, fmt.Errorf("catalog of variant %q: %w", rc.Variant, err)
		}
		c.decoys, c.skipped = rc.Decoys, meta.FailedServers
		for _, cc := range rc.Cases {
			own, err := newRecorded(cc.Tools, byServer)
			if err != nil {
				return nil, fmt.Errorf("catalog of variant %q for case %s: %w", rc.Variant, strings.Join(cc.Cases, ", "), err)
			}
			own.decoys = rc.Decoys // a variant draws the same decoys into every catalog
			if c.cases == nil {
				c.cases = map[string]*Recorded{}
			}
			for _, id := range cc.Cases {
				c.cases[id] = own
			}
		}
		out[rc.Variant] = c
	}
	return out, nil
}

// newRecorded reads one recorded tools array.
func newRecorded(data json.RawMessage, byServer map[string][]string) (*Recorded, error) {
	var tools api.Tools
	if err := json.Unmarshal(data, &tools); err != nil {
		return nil, err
	}
	c := &Recorded{tools: tools, schemas: map[string]*jsonschema.Resolved{}, partial: map[string]*jsonschema.Resolved{}, params: map[string]json.RawMessage{}, servers: byServer}
	for _, t := range tools {
		c.names = append(c.names, t.Function.Name)
		b, err := json.Marshal(t.Function.Parameters)
		if err != nil {
			return nil, err
		}
		c.params[t.Function.Name] = b
		var sch jsonschema.Schema
		if json.Unmarshal(b, &sch) != nil {
			continue // not checkable offline: left unchecked
		}
		if r, err := sch.Resolve(nil); err == nil {
			c.schemas[t.Function.Name] = r
		}
		p := sch
		p.Required = nil
		if r, err := p.Resolve(nil); err == nil {
			c.partial[t.Function.Name] = r
		}
	}
	return c, nil
}

// CaseCatalog is the recorded catalog of case k's own tools, for
// Suite.Check; a case the run sent the variant's catalog has none.
func (c *Recorded) CaseCatalog(k *suite.Case) (suite.Catalog, error) {
	own := c.cases[k.ID]
	if own == nil {
		return nil, fmt.Errorf("%s records no catalog of case %s's own tools: the run sent it the suite's tools", record.RunFile, k.ID)
	}
	return own, nil
}

// ForCase is the catalog a trial of case id was sent.
func (c *Recorded) ForCase(id string) *Recorded {
	if own := c.cases[id]; own != nil {
		return own
	}
	return c
}

// ToolsChange says how the edited case k's own tools differ from those the
// run recorded for it in c (the base variant's catalog), or "" when they do
// not: whether it brings tools at all, and their names in order. The
// schemas of the tools are the recorded ones either way, since those are
// what the model was shown.
func (c *Recorded) ToolsChange(k *suite.Case) string {
	own := c.cases[k.ID]
	switch {
	case own == nil && k.Tools == nil:
		return ""
	case own == nil:
		return "it brings its own tools now"
	case k.Tools == nil:
		return "it no longer brings its own tools"
	}
	var names []string
	for _, t := range k.Tools {
		if t.Exposed == "" {
			return "its tools changed" // a named tool Check did not resolve
		}
		names = append(names, t.Exposed)
	}
	if !slices.Equal(names, own.names) {
		return fmt.Sprintf("its tools changed from %s to %s", strings.Join(own.names, ", "), strings.Join(names, ", "))
	}
	return ""
}

// Coerce coerces arguments against the parameters the model was shown, as
// mcpclient.Catalog does against the full schema (toolschema.CoerceArgs).
func (c *Recorded) Coerce(exposed string, args json.RawMessage) (json.RawMessage, bool) {
	p, ok := c.params[exposed]
	if !ok {
		return args, false
	}
	return toolschema.CoerceArgs(p, args)
}

// SkippedServers names the run's servers that failed to connect.
func (c *Recorded) SkippedServers() []string { return c.skipped }

// Names lists the names the model saw, in catalog order.
func (c *Recorded) Names() []string { return c.names }

// Decoy reports whether the run offered name as a decoy, for scoring.
func (c *Recorded) Decoy(name string) bool { return slices.Contains(c.decoys, name) }

// OllamaTools returns the tools as the run sent them.
func (c *Recorded) OllamaTools() api.Tools { return c.tools }

// Resolve maps a name as a case writes it (plain, server.tool or
// server__tool) to the name the model saw.
func (c *Recorded) Resolve(name string) (string, bool) {
	if slices.Contains(c.names, name) {
		return name, true
	}
	for server, exposed := range c.servers {
		for _, sep := range []string{mcpclient.PrefixSep, "."} {
			rest, ok := strings.CutPrefix(name, server+sep)
			if !ok {
				continue
			}
			for _, e := range exposed {
				if (e == rest || e == server+mcpclient.PrefixSep+rest) && slices.Contains(c.names, e) {
					return e, true
				}
			}
		}
	}
	return "", false
}

// ValidateArgs checks args against the parameters the model was shown.
func (c *Recorded) ValidateArgs(exposed string, args json.RawMessage) error {
	return validateRecorded(c.schemas[exposed], exposed, args)
}

// ValidatePartial checks args like ValidateArgs without the required list.
func (c *Recorded) ValidatePartial(exposed string, args json.RawMessage) error {
	return validateRecorded(c.partial[exposed], exposed, args)
}

func validateRecorded(r *jsonschema.Resolved, exposed string, args json.RawMessage) error {
	if r == nil {
		return nil
	}
	var v any = map[string]any{}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &v); err != nil {
			return fmt.Errorf("arguments of %s are not JSON: %w", exposed, err)
		}
	}
	return toolschema.ExplainValidation(r.Validate(v), r, v)
}
