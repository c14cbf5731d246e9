package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ollama/ollama/api"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/rescore"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// runRescore is `toolgrade rescore`: internal/rescore judges a run's
// recorded transcripts again against an edited suite, offline, into a new
// run directory, whose summary and terminal report it then writes.
func runRescore(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("rescore", "DIR --suite SUITE.yaml", stderr)
	var spec rescore.Spec
	fs.StringVar(&spec.Suite, "suite", "", "the edited suite `FILE` to judge the transcripts against (required)")
	fs.StringVar(&spec.Out, "out", "", "the new run `DIR` (default: DIR-rescored-TIMESTAMP; DIR itself is never written)")
	fs.BoolVar(&spec.KeepTruncated, "keep-truncated", false, keepTruncatedUsage+"; the new run.json records it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		spec.Run = pos[0]
	}
	rd, err := rescore.Rescore(&spec, &rescore.Options{Catalogs: rescoreCatalogs, Stderr: stderr})
	if err != nil {
		return err
	}
	_, err = writeReports(rd, stdout, stderr)
	return err
}

// rescoreCatalogs is rescore's Catalogs seam over recordedCatalogs.
func rescoreCatalogs(meta *record.Run) (map[string]rescore.Catalog, error) {
	cats, err := recordedCatalogs(meta)
	if err != nil {
		return nil, err
	}
	out := map[string]rescore.Catalog{}
	for v, c := range cats {
		out[v] = rescoreCatalog{c}
	}
	return out, nil
}

// rescoreCatalog is a recordedCatalog as a rescore.Catalog.
type rescoreCatalog struct{ *recordedCatalog }

func (c rescoreCatalog) For(caseID string) score.Catalog { return c.forCase(caseID) }

func (c rescoreCatalog) Own(caseID string) ([]string, bool) {
	own := c.cases[caseID]
	if own == nil {
		return nil, false
	}
	return own.names, true
}

// recordedCatalogs rebuilds, from run.json's catalogs, what scoring and
// Suite.Check need of each variant's tools, by variant name.
func recordedCatalogs(meta *record.Run) (map[string]*recordedCatalog, error) {
	servers := map[string][]string{}
	for _, srv := range meta.Servers {
		servers[srv.Name] = srv.Tools
	}
	out := map[string]*recordedCatalog{}
	for _, rc := range meta.Catalogs {
		c, err := newRecordedCatalog(rc.Tools, servers)
		if err != nil {
			return nil, fmt.Errorf("catalog of variant %q: %w", rc.Variant, err)
		}
		c.decoys = rc.Decoys
		for _, cc := range rc.Cases {
			own, err := newRecordedCatalog(cc.Tools, servers)
			if err != nil {
				return nil, fmt.Errorf("catalog of variant %q for case %s: %w", rc.Variant, strings.Join(cc.Cases, ", "), err)
			}
			own.decoys = rc.Decoys // a variant draws the same decoys into every catalog
			if c.cases == nil {
				c.cases = map[string]*recordedCatalog{}
			}
			for _, id := range cc.Cases {
				c.cases[id] = own
			}
		}
		out[rc.Variant] = c
	}
	return out, nil
}

// newRecordedCatalog reads one recorded tools array.
func newRecordedCatalog(data json.RawMessage, servers map[string][]string) (*recordedCatalog, error) {
	var tools api.Tools
	if err := json.Unmarshal(data, &tools); err != nil {
		return nil, err
	}
	c := &recordedCatalog{tools: tools, schemas: map[string]*jsonschema.Resolved{}, partial: map[string]*jsonschema.Resolved{}, params: map[string]json.RawMessage{}, servers: servers}
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

// CaseCatalog is the recorded catalog of case c's own tools, for
// Suite.Check; a case the run sent the variant's catalog has none.
func (c *recordedCatalog) CaseCatalog(k *suite.Case) (suite.Catalog, error) {
	own := c.cases[k.ID]
	if own == nil {
		return nil, fmt.Errorf("%s records no catalog of case %s's own tools: the run sent it the suite's tools", record.RunFile, k.ID)
	}
	return own, nil
}

// forCase is the catalog a trial of case id was sent.
func (c *recordedCatalog) forCase(id string) *recordedCatalog {
	if own := c.cases[id]; own != nil {
		return own
	}
	return c
}

// recordedCatalog is a run's recorded tool catalog as a score.Catalog and a
// suite.Catalog: names resolve as the live catalog resolves them, and
// arguments are validated against the parameters the model was shown. Those
// are the tools' schemas without the constraints Ollama's shape cannot carry
// (see hidden constraints), so offline validation is weaker than live: an
// argument breaking only a hidden constraint passes here. Executed trials
// are not affected: their executions recorded the live verdict.
type recordedCatalog struct {
	tools   api.Tools
	names   []string
	schemas map[string]*jsonschema.Resolved
	partial map[string]*jsonschema.Resolved
	params  map[string]json.RawMessage // exposed name → the parameters as sent
	servers map[string][]string        // server → exposed tool names
	// cases are the catalogs of the cases that brought their own tools, by
	// case id; nil when none did.
	cases  map[string]*recordedCatalog
	decoys []string // the decoys among tools (RunCatalog.Decoys)
}

// Coerce coerces arguments against the parameters the model was shown, as
// servers.Catalog does against the full schema (servers.CoerceArgs).
func (c *recordedCatalog) Coerce(exposed string, args json.RawMessage) (json.RawMessage, bool) {
	p, ok := c.params[exposed]
	if !ok {
		return args, false
	}
	return servers.CoerceArgs(p, args)
}

func (c *recordedCatalog) Names() []string { return c.names }

// Decoy reports whether the run offered name as a decoy, for scoring.
func (c *recordedCatalog) Decoy(name string) bool { return slices.Contains(c.decoys, name) }

func (c *recordedCatalog) OllamaTools() api.Tools { return c.tools }

func (c *recordedCatalog) Resolve(name string) (string, bool) {
	if slices.Contains(c.names, name) {
		return name, true
	}
	for server, exposed := range c.servers {
		for _, sep := range []string{servers.PrefixSep, "."} {
			rest, ok := strings.CutPrefix(name, server+sep)
			if !ok {
				continue
			}
			for _, e := range exposed {
				if (e == rest || e == server+servers.PrefixSep+rest) && slices.Contains(c.names, e) {
					return e, true
				}
			}
		}
	}
	return "", false
}

func (c *recordedCatalog) ValidateArgs(exposed string, args json.RawMessage) error {
	return validate(c.schemas[exposed], exposed, args)
}

func (c *recordedCatalog) ValidatePartial(exposed string, args json.RawMessage) error {
	return validate(c.partial[exposed], exposed, args)
}

func validate(r *jsonschema.Resolved, exposed string, args json.RawMessage) error {
	if r == nil {
		return nil
	}
	var v any = map[string]any{}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &v); err != nil {
			return fmt.Errorf("arguments of %s are not JSON: %w", exposed, err)
		}
	}
	return r.Validate(v)
}
