package toolbox

import (
	"context"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// ShowSpec names the catalog Show shows. The zero value is the servers'
// own tools.
type ShowSpec struct {
	// Suite defines Variant and Case; nil: no suite, the servers' tools.
	Suite *suite.Suite
	// Variant is the variant whose overlays, decoys and hints apply; nil:
	// the base.
	Variant *suite.Variant
	// Case, when set, shows the catalog this case brings (its tools:)
	// instead of the servers'.
	Case *suite.Case
	// Connect says how decoy servers files are connected, and where
	// warnings go.
	Connect ConnectOptions
}

// Shown is one catalog as a variant sends it, for `toolgrade tools`.
type Shown struct {
	// Tools are the tools as sent, in order.
	Tools api.Tools
	// Listed are the catalog's own tools (the servers' or the case's), in
	// their order, as converted before the variant changes them.
	Listed []toolschema.Tool
	// Decoys are the decoys the variant adds; nil: none.
	Decoys *Decoyed
	// Info is what a tool policy reads of the Listed tools.
	Info bridge.Annotator
}

// Show is the catalog spec names over cat, the servers' catalog: its
// overlays are checked against it (a *cli.UsageError), and the variant applied as a
// run applies it.
func Show(ctx context.Context, cat *mcpclient.Catalog, spec ShowSpec) (*Shown, error) {
	s, v := spec.Suite, spec.Variant
	c := composer{s: s, v: v, pool: newDecoyPool(s, spec.Connect)}
	if spec.Case == nil {
		if v != nil && len(v.Tools) > 0 {
			if err := s.CheckOverlays(v, cat); err != nil {
				return nil, cli.AsUsage(err)
			}
		}
		out, err := c.compose(ctx, cat, cat, cat.HiddenOf)
		if err != nil {
			return nil, err
		}
		return &Shown{Tools: out.Tools.OllamaTools(), Listed: cat.Tools(), Decoys: out.decoys, Info: cat}, nil
	}
	b := NewBase(cat)
	if err := s.CheckCaseTools(b); err != nil {
		return nil, cli.AsUsage(err)
	}
	if v != nil && len(v.Tools) > 0 {
		if err := s.CheckOverlays(v, b); err != nil {
			return nil, cli.AsUsage(err)
		}
	}
	st, err := b.Static(spec.Case)
	if err != nil {
		return nil, err
	}
	out, err := c.compose(ctx, st, st, st.HiddenOf)
	if err != nil {
		return nil, err
	}
	return &Shown{Tools: out.Tools.OllamaTools(), Listed: st.Tools(), Decoys: out.decoys, Info: st}, nil
}
