// Package confusable measures how close two tools of a catalog are for a
// model that must choose between them, from what the model is shown: their
// names and descriptions, and their parameters' names and types. It ranks
// the pairs a model is most likely to confuse, so a docstring author sees
// them before any model runs (`toolgrade tools`), and `cases generate` asks
// for questions that tell them apart.
//
// The measure, Score, is in [0, 1]:
//
//   - Description overlap: the words of the name and the description
//     (lowercased, split at camelCase and snake_case joins, a plural dropped,
//     stop words and one-letter words left out) as two sets, each word
//     weighted by the square of its smoothed inverse document frequency in
//     the catalog, 1 + ln((n+1)/(df+1)) (the weight a word has in the
//     cosine of two tf-idf vectors), so the boilerplate a server repeats in every
//     description ("Only works within allowed directories") makes no two
//     tools alike. The overlap is the weight of the shared words over the
//     weight of the smaller set (the overlap coefficient), not over the union
//     (Jaccard) nor the geometric mean (cosine): a short description whose
//     every word is in a long one, such as a deprecated alias ("Read the
//     complete contents of a file as text. DEPRECATED: Use read_text_file
//     instead."), is as confusable as it looks, and the long one's extra
//     words would rank it low under either. So that a description of one or
//     two words is not contained in everything, the smaller set counts at
//     least MinWords. Sets rather than counts: a word repeated in one
//     description does not outweigh the others.
//   - Parameter overlap: over the union of parameter names, a name both
//     tools take counts 1 when its types agree, ½ when they differ; divided
//     by the union's size.
//
// Score is description × (DescriptionWeight + (1−DescriptionWeight) ×
// parameters), or the description overlap alone when neither tool takes
// parameters: the description is what a model reads to choose, so
// parameters alone never make two tools confusable (every file tool takes a
// path), while different parameters give a model a second way to tell two
// alike descriptions apart.
package confusable

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"
)

// DefaultThreshold is the score at or above which a pair is reported.
// Measured on the catalogs the tests use: the docs fake's closest pair
// (get_document and list_documents, whose descriptions name each other)
// scores 0.31; the filesystem server's list_directory and
// list_directory_with_sizes 0.77, read_file and read_text_file (a
// deprecated alias) 0.52, and its next pair 0.24.
const DefaultThreshold = 0.5

// DescriptionWeight is the share of the description overlap in Score: the
// description is what a model reads to choose; the parameters are the
// second thing it compares.
const DescriptionWeight = 0.7

// maxShared is how many shared words a Pair lists.
const maxShared = 8

// MinWords is the least weight a description counts as having, about
// four words: a description of one or two words is contained in many.
const MinWords = 4.0

// Tool is what the measure reads of a tool.
type Tool struct {
	Name, Description string
	Params            []Param
}

// Param is one parameter: its name and its JSON type ("" when the schema
// gives none, "string|null" for several).
type Param struct {
	Name, Type string
}

// Pair is two tools and how close they are.
type Pair struct {
	// A and B are the tools' names, A the one listed first in the catalog.
	A string `json:"a"`
	B string `json:"b"`
	// Score combines the two overlaps (see the package doc), rounded to
	// three decimals.
	Score       float64 `json:"score"`
	Description float64 `json:"description"`
	// Parameters is the parameter overlap; 0 when neither tool takes any.
	Parameters float64 `json:"parameters"`
	// Words are the words both descriptions use (as compared: lowercased,
	// singular), the rarest in the catalog first, at most eight.
	Words []string `json:"words"`
	// Params are the parameters both take, "name: type" (or "name: type1
	// / type2" when their types differ), in A's order.
	Params []string `json:"params,omitempty"`
}

// FromOllama is the catalog as the model is shown it.
func FromOllama(tools api.Tools) []Tool {
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		ct := Tool{Name: t.Function.Name, Description: t.Function.Description}
		if p := t.Function.Parameters.Properties; p != nil {
			for name, prop := range p.All() {
				ct.Params = append(ct.Params, Param{Name: name, Type: prop.Type.String()})
			}
		}
		out = append(out, ct)
	}
	return out
}

// Rank scores every pair of tools and returns those at or above threshold,
// closest first (ties in catalog order).
func Rank(tools []Tool, threshold float64) []Pair {
	stop := stopWords()
	words := make([]map[string]bool, len(tools))
	df := map[string]int{}
	for i, t := range tools {
		words[i] = wordSet(t.Name+" "+t.Description, stop)
		for w := range words[i] {
			df[w]++
		}
	}
	weights := make([]weighted, len(tools))
	for i := range tools {
		weights[i] = weigh(words[i], df, len(tools))
	}
	var pairs []Pair
	for i := range tools {
		for j := i + 1; j < len(tools); j++ {
			// Score is at most the description overlap: most pairs of a
			// large catalog end here, before their words are listed.
			desc := overlap(weights[i], weights[j])
			if round3(desc) < threshold {
				continue
			}
			if p := compare(tools[i], tools[j], words[i], words[j], df, desc); p.Score >= threshold {
				pairs = append(pairs, p)
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b Pair) int { return cmp.Compare(b.Score, a.Score) })
	return pairs
}

// Score is the closeness of two tools alone (see the package doc): every
// word weighs the same, there being no catalog to weigh them by.
func Score(a, b Tool) float64 {
	stop := stopWords()
	wa, wb := wordSet(a.Name+" "+a.Description, stop), wordSet(b.Name+" "+b.Description, stop)
	df := map[string]int{}
	desc := overlap(weigh(wa, df, 0), weigh(wb, df, 0))
	return compare(a, b, wa, wb, df, desc).Score
}

// compare measures one pair whose description overlap is desc; df (how many
// tools use each word) orders the shared words, the rarest first, as those
// are what makes the two alike.
func compare(a, b Tool, wa, wb map[string]bool, df map[string]int, desc float64) Pair {
	p := Pair{A: a.Name, B: b.Name, Description: desc}
	for w := range wa {
		if wb[w] {
			p.Words = append(p.Words, w)
		}
	}
	slices.SortFunc(p.Words, func(x, y string) int {
		return cmp.Or(cmp.Compare(df[x], df[y]), cmp.Compare(x, y))
	})
	if len(p.Words) > maxShared {
		p.Words = p.Words[:maxShared]
	}
	p.Parameters, p.Params = params(a.Params, b.Params)
	score := p.Description
	if len(a.Params)+len(b.Params) > 0 {
		score = p.Description * (DescriptionWeight + (1-DescriptionWeight)*p.Parameters)
	}
	p.Score, p.Description, p.Parameters = round3(score), round3(p.Description), round3(p.Parameters)
	return p
}

// params is the parameter overlap and the parameters both take.
func params(a, b []Param) (float64, []string) {
	bt := map[string]string{}
	for _, p := range b {
		bt[p.Name] = p.Type
	}
	union := len(b)
	sum := 0.0
	var shared []string
	for _, p := range a {
		t, ok := bt[p.Name]
		if !ok {
			union++
			continue
		}
		if t == p.Type {
			sum++
			shared = append(shared, p.Name+": "+orAny(p.Type))
		} else {
			sum += 0.5
			shared = append(shared, p.Name+": "+orAny(p.Type)+" / "+orAny(t))
		}
	}
	if union == 0 {
		return 0, nil
	}
	return sum / float64(union), shared
}

func orAny(t string) string {
	if t == "" {
		return "any"
	}
	return t
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// wordSet is the words of text as the measure compares them: split at
// anything not a letter or digit (and at camelCase and snake_case joins, so
// a tool's name counts as its words), lowercased, a plural "s" dropped,
// stop words and one-letter words left out.
func wordSet(text string, stop map[string]bool) map[string]bool {
	set := map[string]bool{}
	var b strings.Builder
	flush := func() {
		w := stem(b.String())
		b.Reset()
		if len(w) > 1 && !stop[w] {
			set[w] = true
		}
	}
	prevLower := false
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush() // readFile: read, file
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		case r == '\'' || r == '’':
			// what's is one word
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return set
}

// stem drops a plural "s" (files → file, but not "ss" as in "access" nor
// "us", "is"), the one inflection that changes nothing a model reads.
func stem(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "ies") {
		return strings.TrimSuffix(w, "ies") + "y" // directories: directory
	}
	for _, end := range []string{"xes", "ches", "shes", "sses"} {
		if strings.HasSuffix(w, end) {
			return strings.TrimSuffix(w, "es") // prefixes: prefix
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		return strings.TrimSuffix(w, "s")
	}
	return w
}

// weighted is a tool's word set with each word's weight, and their sum.
type weighted struct {
	w   map[string]float64
	sum float64
}

// weigh weighs each word by how few of the catalog's n tools use it: the
// square of the smoothed inverse document frequency 1 + ln((n+1)/(df+1)),
// so 1 for a word every tool uses ("Only works within allowed directories"
// in each of a server's descriptions makes no two of them alike) and more
// for rarer ones. n 0: every word weighs 1.
func weigh(words map[string]bool, df map[string]int, n int) weighted {
	out := weighted{w: make(map[string]float64, len(words))}
	for w := range words {
		x := 1.0
		if n > 0 {
			x = 1 + math.Log(float64(n+1)/float64(df[w]+1))
		}
		out.w[w] = x * x
		out.sum += x * x
	}
	return out
}

// overlap is the weight of the words two sets share over the weight of the
// smaller set, counted as at least MinWords.
func overlap(a, b weighted) float64 {
	if a.sum == 0 || b.sum == 0 {
		return 0
	}
	if len(b.w) < len(a.w) {
		a, b = b, a
	}
	dot := 0.0
	for w, x := range a.w {
		if _, ok := b.w[w]; ok {
			dot += x
		}
	}
	return dot / max(min(a.sum, b.sum), MinWords)
}

// String is the pair as `toolgrade tools` lists it: the score, its two
// parts, and what the tools share.
func (p Pair) String() string {
	s := fmt.Sprintf("%s ~ %s %.2f (description %.2f, parameters %.2f)", p.A, p.B, p.Score, p.Description, p.Parameters)
	if len(p.Words) > 0 {
		s += ": both say " + strings.Join(p.Words, ", ")
	}
	if len(p.Params) > 0 {
		s += "; both take " + strings.Join(p.Params, ", ")
	}
	return s
}
