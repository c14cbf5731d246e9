package draft

import (
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// Compose makes a draft of cases written elsewhere (by an author model:
// `toolgrade cases generate`), merging them as Build merges conversations:
// a question is merged into an earlier case when their similarity is at
// least o.MinSimilarity and their expected tools agree (questions equal
// once normalised have similarity 1); when the tools differ both are kept,
// the later with a note naming the earlier. Each case needs Messages,
// Expect and at least one Source; Lead names who wrote it. The cases keep
// their order; ids are made from their questions.
func Compose(cases []*Case, o *Options) *Draft {
	if o == nil {
		o = &Options{}
	}
	minSim := o.MinSimilarity
	if minSim == 0 {
		minSim = DefaultMinSimilarity
	}
	d := &Draft{Name: o.Name, Servers: o.Servers, Read: len(cases), composed: true}
	for _, c := range cases {
		if !mergeInto(d.Cases, c, minSim) {
			d.Cases = append(d.Cases, c)
		}
	}
	d.nameCases()
	return d
}

// count is how many conversations (or drafts, for a case an author model
// wrote) the case stands for: "2 conversations".
func (c *Case) count() string {
	if c.Lead != "" {
		return termtext.Count(len(c.Sources), "draft")
	}
	return termtext.Count(len(c.Sources), "conversation")
}

// noun is what the draft was made from, as Summary counts it.
func (d *Draft) noun() string {
	if d.composed {
		return "draft"
	}
	return "conversation"
}
