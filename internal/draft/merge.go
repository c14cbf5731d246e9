package draft

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
)

// Build drafts a suite from conversations, in three steps:
//
//  1. Each conversation becomes a case-to-be (or a Skip saying why not).
//  2. Those whose questions are equal once normalised (case, whitespace and
//     punctuation ignored; every opening message counts, the system prompt
//     too) are one case. Its expectation is the one most of them share (a
//     tie: the first seen); the others are noted with their counts.
//  3. A question is then merged into an earlier case when their similarity
//     (see Similarity) is at least MinSimilarity and their expected tools
//     agree (the same tools in the same order, or as a set for parallel
//     calls); when the tools differ both are kept, the later with a note
//     naming the earlier.
//
// Cases keep the order of their first conversation, so the same input gives
// the same draft.
func Build(convs []Conversation, o *Options) *Draft {
	if o == nil {
		o = &Options{}
	}
	minSim := o.MinSimilarity
	if minSim == 0 {
		minSim = DefaultMinSimilarity
	}
	d := &Draft{Name: o.Name, Servers: o.Servers, Read: len(convs)}
	var groups []*group
	var all []*drafted
	byText := map[string]*group{}
	for _, c := range convs {
		one, why := draftOne(c)
		if one == nil {
			d.Skipped = append(d.Skipped, Skip{Source: c.Source, Reason: why})
			continue
		}
		if !slices.Contains(d.Models, one.model) {
			d.Models = append(d.Models, one.model)
		}
		key := normalize(askText(one.messages))
		g := byText[key]
		if g == nil {
			g = &group{}
			byText[key] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, one)
		all = append(all, one)
	}
	for _, g := range groups {
		c := g.caseOf()
		if merged := mergeInto(d.Cases, c, minSim); !merged {
			d.Cases = append(d.Cases, c)
		}
	}
	d.liftSystem()
	d.liftSettings(all)
	d.nameCases()
	return d
}

// nameCases gives each case its id and puts the ids in the notes that name
// similar cases.
func (d *Draft) nameCases() {
	ids := map[string]bool{}
	for _, c := range d.Cases {
		c.ID = uniqueID(c.baseID(), ids)
	}
	// Similar cases were named (by caseRef) before their ids were known.
	var refs []string
	for i, c := range d.Cases {
		refs = append(refs, caseRef(i), c.ID)
	}
	r := strings.NewReplacer(refs...)
	for _, c := range d.Cases {
		for i := range c.Notes {
			c.Notes[i] = r.Replace(c.Notes[i])
		}
	}
}

// caseRef stands in a note for the id of the i-th case until ids are made.
func caseRef(i int) string { return fmt.Sprintf("\x00case%d\x00", i) }

// group is the conversations whose questions are equal once normalised.
type group struct {
	members []*drafted
}

// caseOf makes the group's case: the first member's question, the
// expectation most members share.
func (g *group) caseOf() *Case {
	type tally struct {
		expect Expectation
		n      int
		models []string
	}
	var tallies []*tally
	byKey := map[string]*tally{}
	for _, m := range g.members {
		k := m.expect.key()
		t := byKey[k]
		if t == nil {
			t = &tally{expect: m.expect}
			byKey[k] = t
			tallies = append(tallies, t)
		}
		t.n++
		if !slices.Contains(t.models, m.model) {
			t.models = append(t.models, m.model)
		}
	}
	best := tallies[0]
	for _, t := range tallies[1:] {
		if t.n > best.n {
			best = t
		}
	}
	first := g.members[0]
	c := &Case{Messages: first.messages, Expect: best.expect}
	// The notes of the conversations whose expectation was kept: the others'
	// failures are theirs.
	seen := map[string]bool{}
	for _, m := range g.members {
		c.Sources = append(c.Sources, m.src)
		c.Models = append(c.Models, m.model)
		if m.expect.key() != best.expect.key() {
			continue
		}
		for _, n := range m.notes {
			if !seen[n] {
				seen[n] = true
				c.Notes = append(c.Notes, n)
			}
		}
	}
	for _, t := range tallies {
		if t != best {
			c.Notes = append(c.Notes, fmt.Sprintf("%d of %d conversations made other calls (%s): %s",
				t.n, len(g.members), strings.Join(t.models, ", "), t.expect))
		}
	}
	return c
}

// mergeInto merges case c into the most similar earlier case whose
// expected tools agree, and reports whether it did; the case merged into
// notes the question and any other arguments. Each similar case with other
// tools gets a note on c, which is kept apart from it.
func mergeInto(cases []*Case, c *Case, minSim float64) bool {
	var best *Case
	bestSim := 0.0
	mine := questionText(c.Messages)
	for i, other := range cases {
		if !sameShape(other.Messages, c.Messages) {
			continue
		}
		text := questionText(other.Messages)
		if la, lb := len([]rune(text)), len([]rune(mine)); 1-float64(max(la, lb)-min(la, lb))/float64(max(la, lb, 1)) < minSim {
			continue // the lengths alone rule it out, without the quadratic distance
		}
		sim := Similarity(text, mine)
		if sim < minSim {
			continue
		}
		if other.Expect.tools() != c.Expect.tools() {
			note := fmt.Sprintf("similar (%.2f) to case %s, which expects %s: keep both only if they differ", sim, caseRef(i), other.Expect)
			c.Notes = append(c.Notes, note)
			continue
		}
		if sim > bestSim {
			best, bestSim = other, sim
		}
	}
	if best == nil {
		return false
	}
	best.Notes = append(best.Notes, fmt.Sprintf("also asked (%.2f, %s) as %s", bestSim, c.count(), quote(lastUser(c.Messages), 120)))
	if c.Expect.key() != best.Expect.key() {
		best.Notes = append(best.Notes, "  with other arguments: "+c.Expect.String())
	}
	best.Sources = append(best.Sources, c.Sources...)
	best.Models = append(best.Models, c.Models...)
	best.Notes = append(best.Notes, c.Notes...)
	return true
}

// sameShape reports whether two asks have the same roles in the same order
// and the same system prompt: only the text of user and assistant turns may
// be near-identical rather than equal.
func sameShape(a, b []record.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Role != b[i].Role || a[i].Role == "system" && normalize(a[i].Content) != normalize(b[i].Content) {
			return false
		}
	}
	return true
}

// liftSystem moves the system prompt into defaults.system when every case
// opens with the same one, so the cases' asks are the questions alone.
func (d *Draft) liftSystem() {
	if len(d.Cases) == 0 {
		return
	}
	sys := ""
	for i, c := range d.Cases {
		if c.Messages[0].Role != "system" || i > 0 && c.Messages[0].Content != sys {
			return
		}
		sys = c.Messages[0].Content
	}
	d.System = sys
	for _, c := range d.Cases {
		c.Messages = c.Messages[1:]
	}
}

// liftSettings sets Think and Options to what every conversation's first
// request sent alike.
func (d *Draft) liftSettings(all []*drafted) {
	if len(all) == 0 {
		return
	}
	think := all[0].request.Think
	for _, one := range all {
		if one.request.Think != think {
			think = ""
		}
	}
	d.Think = think
	for _, k := range LiftedOptions {
		var same json.RawMessage
		for i, one := range all {
			v, ok := one.request.Options[k]
			b, err := json.Marshal(v)
			if !ok || err != nil || i > 0 && string(b) != string(same) {
				same = nil
				break
			}
			same = b
		}
		if same != nil {
			if d.Options == nil {
				d.Options = map[string]json.RawMessage{}
			}
			d.Options[k] = same
		}
	}
}
