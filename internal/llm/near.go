package llm

import (
	"cmp"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// nearModels is what a model name that is not pulled is likely to mean,
// among the names pulled: the one it names but for case, or else every
// other tag of the name it names (otherTags: qwen3 means qwen3:latest, and
// qwen3:8b is pulled), or else the names a typo away. Nearest first, at
// most three for typos; a name shows without ":latest" when model has no
// tag, as the user would write it.
func nearModels(model string, pulled []string) (near []string, otherTags bool) {
	want := strings.ToLower(withTag(model))
	wantName, _ := splitTag(want)
	type cand struct {
		name string
		d    int
	}
	var tags, typos []cand
	for _, p := range pulled {
		got := strings.ToLower(withTag(p))
		d := srcpos.Distance(want, got)
		name, _ := splitTag(got)
		switch {
		case d == 0:
			return []string{shown(p, model)}, false
		case name == wantName:
			tags = append(tags, cand{p, d})
		case d <= srcpos.Limit(model):
			typos = append(typos, cand{p, d})
		}
	}
	list := typos
	if otherTags = len(tags) > 0; otherTags {
		list = tags
	}
	slices.SortStableFunc(list, func(a, b cand) int { return cmp.Or(a.d-b.d, strings.Compare(a.name, b.name)) })
	if !otherTags && len(list) > 3 {
		list = list[:3]
	}
	for _, c := range list {
		near = append(near, shown(c.name, model))
	}
	return near, otherTags
}

// splitTag splits a model name (lower-cased, with its tag) at the colon of
// its tag: a colon before the last slash is a registry's port.
func splitTag(name string) (base, tag string) {
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		return name[:i], name[i+1:]
	}
	return name, ""
}

// shown is a pulled name as a message suggests it to someone who wrote
// model: without the ":latest" Ollama lists, when model has none either.
func shown(pulled, model string) string {
	if _, tag := splitTag(model); tag == "" {
		return strings.TrimSuffix(pulled, ":latest")
	}
	return pulled
}
