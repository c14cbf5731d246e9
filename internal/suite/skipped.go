package suite

import (
	"slices"
	"strings"
)

// SkipReporter is an optional extension of a Catalog: SkippedServers names
// the servers of its file that failed to connect and were skipped. An
// expected tool the catalog does not know is then not an error when one of
// them may have offered it: Check marks the call Skipped (see markSkipped),
// and its case cannot run.
type SkipReporter interface {
	SkippedServers() []string
}

// markSkipped marks the expected calls of the cases without their own tools
// whose tool no server of c offers but a skipped server may have: one
// written with a skipped server's prefix (fs.read_file, fs__read_file) is
// that server's; a plain name close to no tool of c (not a typo, which
// Check reports with "did you mean") may be any skipped server's. Names
// qualified with another server stay Check's errors.
func markSkipped(s *Suite, c Catalog) {
	sr, ok := c.(SkipReporter)
	if !ok {
		return
	}
	skipped := sr.SkippedServers()
	if len(skipped) == 0 {
		return
	}
	names := c.Names()
	for ci := range s.Cases {
		if s.Cases[ci].Tools != nil {
			continue
		}
		for j := range s.Cases[ci].Expect.Calls {
			call := &s.Cases[ci].Expect.Calls[j]
			if _, known := c.Resolve(call.Tool); known || clashes(c, call.Tool) {
				continue
			}
			call.Skipped = skippedOwners(call.Tool, skipped, names)
		}
	}
}

// clashes reports whether several connected servers offer name.
func clashes(c Catalog, name string) bool {
	cr, ok := c.(ClashReporter)
	return ok && len(cr.Clashes(name)) > 1
}

// skippedOwners is the skipped servers that may have offered the tool
// written as name; nil when it is rather a typo of a tool of names.
func skippedOwners(name string, skipped, names []string) []string {
	for _, server := range skipped {
		if strings.HasPrefix(name, server+".") || strings.HasPrefix(name, server+"__") {
			return []string{server}
		}
	}
	if strings.Contains(name, ".") || strings.Contains(name, "__") || closest(name, names) != "" {
		return nil // another server's, or a typo: Check says which
	}
	return slices.Clone(skipped)
}

// SkippedServers is every server an expected call of e was Skipped for, in
// order of first mention: the case cannot run without them.
func (e *Expect) SkippedServers() []string {
	var out []string
	for _, c := range e.Calls {
		for _, s := range c.Skipped {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
