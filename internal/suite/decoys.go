package suite

import (
	"path/filepath"

	"github.com/toolgrade/toolgrade/internal/srcpos"
	"go.yaml.in/yaml/v3"
)

// DecoySource is one entry of a suite's decoys: pool, the tools a variant's
// decoys are drawn from. Decoys are offered to the model and never run.
type DecoySource struct {
	// Path is the absolute path of a file of tool definitions (the MCP
	// tools/list shape: {"tools": [...]} or a bare list) or of a folder whose
	// *.json files are read in name order; empty for a servers entry.
	Path string
	// ServersPath is the absolute path of an mcpServers file whose servers'
	// tools are listed once, at the start of a run, and used as decoys;
	// empty for a file entry.
	ServersPath string
	// Pos is where the entry is written.
	Pos Pos
}

// The keys of a {servers: FILE} decoys entry.
var decoySourceKeys = []string{"servers"}

// DrawSeed is the seed the decoys are drawn with: decoy_seed when the suite
// sets it, else defaults.options.seed, else 0. Every variant draws with the
// same seed, so a larger count only adds tools to a smaller one's.
func (s *Suite) DrawSeed() int64 {
	if s.DecoySeed != nil {
		return *s.DecoySeed
	}
	seed, _ := s.Defaults.Seed()
	return seed
}

// decoyPool reads decoys: a list of paths (files or folders, relative to the
// suite) and {servers: FILE} entries. The files are read when a run starts.
func (p *parser) decoyPool(n *yaml.Node, field string) []DecoySource {
	if !p.nonEmptyList(n, field, "a list of decoy files or folders and {servers: FILE} entries, such as [decoys/]", "must name at least one decoy file or folder (or leave decoys out)") {
		return nil
	}
	var out []DecoySource
	for i, c := range n.Content {
		c = srcpos.Deref(c)
		ip := index(field, i)
		src := DecoySource{Pos: p.pos(c)}
		switch c.Kind {
		case yaml.ScalarNode:
			path, ok := p.nonEmpty(c, ip)
			if !ok {
				continue
			}
			src.Path = p.abs(path)
		case yaml.MappingNode:
			for _, f := range p.fields(c, ip) {
				if f.key.Value != "servers" {
					p.unknownKey(f.key, ip, decoySourceKeys, "")
					continue
				}
				if path, ok := p.nonEmpty(f.val, join(ip, "servers")); ok {
					src.ServersPath = p.abs(path)
				}
			}
			if src.ServersPath == "" {
				if len(c.Content) == 0 {
					p.errorf(c, ip, "give servers: FILE, an mcpServers file whose tools are the decoys")
				}
				continue
			}
		default:
			p.errorf(c, ip, "must be the path of a decoy file or folder, or {servers: FILE}, not %s", srcpos.KindName(c))
			continue
		}
		out = append(out, src)
	}
	return out
}

// abs resolves a path written in the suite against the suite's folder.
func (p *parser) abs(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(p.dir, path)
}
