package toolbox

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// Pool is the tools decoys are drawn from, each name once.
type Pool struct {
	tools []toolschema.Tool
	// warnings are the duplicate names left out, in pool order.
	warnings []string
}

// NewPool makes a pool of tools (from LoadDecoys, or a decoy servers
// catalog's Tools), in order; a name met again is left out, with a warning.
func NewPool(tools []toolschema.Tool) *Pool {
	p := &Pool{}
	seen := map[string]string{}
	for _, t := range tools {
		name := t.Ollama.Function.Name
		if from, dup := seen[name]; dup {
			p.warnings = append(p.warnings, fmt.Sprintf("decoys: %s of %s has the name of %s's, which is kept; it is left out", name, t.Server, from))
			continue
		}
		seen[name] = t.Server
		p.tools = append(p.tools, t)
	}
	return p
}

// Len is the number of tools in the pool.
func (p *Pool) Len() int { return len(p.tools) }

// Warnings are the problems of the pool that did not stop it.
func (p *Pool) Warnings() []string { return append([]string(nil), p.warnings...) }

// Decoyed offers the tools of an inner toolbox plus decoys: tools that no
// case expects and no server runs, drawn from a pool so that the same seed
// always offers the same tools in the same places, and a larger count only
// adds tools to a smaller one's. It runs only the inner's calls: a decoy's
// is answered "tool X is not available" (record.ExecDecoy), and scored
// wrong_tool with the decoy named. It is a suite.Catalog over both. It is
// safe for concurrent use.
type Decoyed struct {
	inner    bridge.Toolbox
	cat      suite.Catalog
	tools    api.Tools
	decoys   map[string]*toolschema.Tool
	drawn    []string
	warnings []string
}

// AddDecoys returns inner with n decoys of pool added, drawn with seed: the pool
// is put in one seeded order (so n decoys are the first n of any larger
// draw) and each decoy in turn is inserted at a seeded place among the
// tools so far, so the real tools keep their order and the catalog with n
// decoys is the one with more decoys less the later ones. The same inputs
// give the same catalog, byte for byte. A decoy whose name is a real tool's
// is left out of the pool (see Warnings). cat resolves and validates the
// real tools' calls (nil: inner, when it is a suite.Catalog). It fails when
// the pool holds fewer than n usable decoys.
func AddDecoys(inner bridge.Toolbox, cat suite.Catalog, pool *Pool, n int, seed int64) (*Decoyed, error) {
	if cat == nil {
		cat, _ = inner.(suite.Catalog)
	}
	real := inner.OllamaTools()
	t := &Decoyed{inner: inner, cat: cat, decoys: map[string]*toolschema.Tool{}}
	taken := map[string]bool{}
	for _, r := range real {
		taken[r.Function.Name] = true
	}
	var usable []*toolschema.Tool
	if pool != nil {
		var clash []string
		for i := range pool.tools {
			d := &pool.tools[i]
			name := d.Ollama.Function.Name
			if _, resolves := t.resolveReal(name); taken[name] || resolves {
				clash = append(clash, name)
				continue
			}
			usable = append(usable, d)
		}
		if len(clash) > 0 {
			t.warnings = append(t.warnings, fmt.Sprintf("decoys: %s %s the name of a real tool; left out of the pool", strings.Join(clash, ", "), termtext.Plural(len(clash), "has", "have")))
		}
	}
	if n > len(usable) {
		return nil, fmt.Errorf("%s asked for, but the pool has %d usable %s", termtext.Count(n, "decoy"), len(usable), termtext.Plural(len(usable), "tool", "tools"))
	}
	// The order of the pool: by a hash of the seed and the name, so it
	// depends on neither the pool's file order nor Go's random generators.
	sort.SliceStable(usable, func(i, j int) bool {
		return drawKey(seed, "order", usable[i].Ollama.Function.Name) < drawKey(seed, "order", usable[j].Ollama.Function.Name)
	})
	tools := append(api.Tools(nil), real...)
	for k := range n {
		d := usable[k]
		at := int(drawKey(seed, "place", fmt.Sprint(k)) % uint64(len(tools)+1))
		tools = slices.Insert(tools, at, d.Ollama)
		t.decoys[d.Ollama.Function.Name] = d
	}
	for _, x := range tools {
		if t.decoys[x.Function.Name] != nil {
			t.drawn = append(t.drawn, x.Function.Name)
		}
	}
	t.tools = tools
	return t, nil
}

// drawKey is a 64-bit hash of the seed, a purpose and a string.
func drawKey(seed int64, purpose, s string) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(s))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// OllamaTools returns the real tools and the decoys, in catalog order. The
// property maps are shared; do not modify them.
func (t *Decoyed) OllamaTools() api.Tools { return append(api.Tools{}, t.tools...) }

// Call runs a real tool's call through the inner Toolbox; a decoy's runs
// nothing and comes back as an error the model sees.
func (t *Decoyed) Call(ctx context.Context, name string, args json.RawMessage, callID string) record.Execution {
	d := t.decoys[name]
	if d == nil {
		return t.inner.Call(ctx, name, args, callID)
	}
	return record.Execution{
		CallID: callID, Name: name, Server: d.Server, Tool: d.Name, Arguments: args,
		Result:  fmt.Sprintf("tool %s is not available", name),
		IsError: true, ErrorKind: record.ExecDecoy,
		Error: fmt.Sprintf("%s is a decoy: offered to the model, run by no server", name),
	}
}

// Decoys are the names of the decoys offered, in catalog order.
func (t *Decoyed) Decoys() []string { return append([]string(nil), t.drawn...) }

// Decoy reports whether name is one of the decoys offered; score reads it
// to name the decoy a wrong_tool called.
func (t *Decoyed) Decoy(name string) bool { return t.decoys[name] != nil }

// Warnings are what AddDecoys left out of the pool and why.
func (t *Decoyed) Warnings() []string { return append([]string(nil), t.warnings...) }

// Names lists the names the model sees, real tools and decoys, in catalog
// order.
func (t *Decoyed) Names() []string {
	out := make([]string, len(t.tools))
	for i, x := range t.tools {
		out[i] = x.Function.Name
	}
	return out
}

// Resolve maps a name the model used to the exposed tool: a decoy's own
// name, else what the real catalog says.
func (t *Decoyed) Resolve(name string) (string, bool) {
	if t.decoys[name] != nil {
		return name, true
	}
	return t.resolveReal(name)
}

func (t *Decoyed) resolveReal(name string) (string, bool) {
	if t.cat == nil {
		return "", false
	}
	return t.cat.Resolve(name)
}

// ValidateArgs checks args against a decoy's input schema, or the real
// tool's through the real catalog.
func (t *Decoyed) ValidateArgs(exposed string, args json.RawMessage) error {
	if d := t.decoys[exposed]; d != nil {
		return d.ValidateArgs(args)
	}
	if t.cat == nil {
		return nil
	}
	return t.cat.ValidateArgs(exposed, args)
}

// HiddenOf returns, for schema hints, the constraints a decoy's parameters
// do not carry, and the inner's (hidden) for a real tool.
func (t *Decoyed) HiddenOf(hidden func(exposed string) []toolschema.Hidden) func(exposed string) []toolschema.Hidden {
	return func(exposed string) []toolschema.Hidden {
		if d := t.decoys[exposed]; d != nil {
			return d.Hidden
		}
		if hidden == nil {
			return nil
		}
		return hidden(exposed)
	}
}

// Tool returns the decoy offered as name; the zero Tool when there is none.
func (t *Decoyed) Tool(name string) toolschema.Tool {
	if d := t.decoys[name]; d != nil {
		return *d
	}
	return toolschema.Tool{}
}
