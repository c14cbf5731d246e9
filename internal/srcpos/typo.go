package srcpos

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Suggest returns the candidate nearest to s in edit distance, ignoring case,
// or "" when none is near enough to be a plausible typo (see Limit).
func Suggest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := Distance(ls, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= Limit(s) {
		return best
	}
	return ""
}

// Limit is how many edits still count as a typo of s: longer names tolerate
// more (one for up to 3 characters, two for up to 8, three beyond).
func Limit(s string) int {
	switch n := len([]rune(s)); {
	case n <= 3:
		return 1
	case n <= 8:
		return 2
	default:
		return 3
	}
}

// Distance is the optimal-string-alignment distance between a and b, counted
// in characters: insertions, deletions, substitutions and swaps of neighbours
// ("aks" for "ask") cost one each.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// DidYouMean is the hint after a name that is not one of known:
// ` (did you mean "x"?)` for a plausible typo, else ` (known <noun>s: a, b)`
// listing every known name, or "" when there are none.
func DidYouMean(name string, known []string, noun string) string {
	if s := Suggest(name, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(known) == 0 {
		return ""
	}
	return fmt.Sprintf(" (known %ss: %s)", noun, strings.Join(known, ", "))
}

// Unknown is the message for a key that is not one of known: `unknown <noun>
// "name"` and the DidYouMean hint.
func Unknown(noun, name string, known []string) string {
	return fmt.Sprintf("unknown %s %q%s", noun, name, DidYouMean(name, known, noun))
}

// Nearest returns the n candidates nearest to s, nearest first: those that
// share more of its words (see Related) first, then by edit distance
// ignoring case, then by name. It is what to list when the candidates are
// too many to list them all.
func Nearest(s string, candidates []string, n int) []string {
	ls, sw := strings.ToLower(s), words(s)
	type near struct {
		name          string
		shared, edits int
	}
	all := make([]near, len(candidates))
	for i, c := range candidates {
		shared := 0
		for _, w := range words(c) {
			if slices.Contains(sw, w) {
				shared++
			}
		}
		all[i] = near{c, shared, Distance(ls, strings.ToLower(c))}
	}
	slices.SortFunc(all, func(a, b near) int {
		return cmp.Or(cmp.Compare(b.shared, a.shared), cmp.Compare(a.edits, b.edits), cmp.Compare(a.name, b.name))
	})
	out := make([]string, 0, min(n, len(all)))
	for _, a := range all[:min(n, len(all))] {
		out = append(out, a.name)
	}
	return out
}

// Related returns the candidate s most likely names when s is too far from
// every candidate for Suggest, but is one of them written longer, shorter or
// in another order: its words (split at _ - . and spaces, ignoring case) are
// all among the candidate's, or the candidate's all among its
// (search_documents for search_docs is not; docs_search and search_doc
// are). Of several, the nearest in edit distance wins; "" when none is
// related.
func Related(s string, candidates []string) string {
	sw := words(s)
	if len(sw) == 0 {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		cw := words(c)
		if len(cw) == 0 || !(subset(sw, cw) || subset(cw, sw)) {
			continue
		}
		if d := Distance(strings.ToLower(s), strings.ToLower(c)); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == ' '
	})
}

// subset reports whether every word of a is one of b's, or a prefix of one
// of at least three letters (doc for docs).
func subset(a, b []string) bool {
	for _, w := range a {
		if !slices.ContainsFunc(b, func(x string) bool {
			return x == w || (len(w) >= 3 && strings.HasPrefix(x, w))
		}) {
			return false
		}
	}
	return true
}
