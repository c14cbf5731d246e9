package confusable

import "strings"

// stopWordList are the English function words and the words every tool
// description uses ("use", "tool", "return"), which say nothing about what
// one tool does that another does not. A constant, made a set per call
// (stopWords), so the package holds no mutable state.
const stopWordList = `a about above after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing down during each either else
etc every few for from further had has have having he her here hers him his how i if in into is it its
itself just may me might more most much must my need no nor not now of off on once one only or other
our ours out over own per same shall she should so some such than that the their theirs them then there
these they this those through to too under until up upon us use used using very via was we were what
when where whether which while who whom why will with within without would yes yet you your yours
tool tools function return returns given e.g eg ie`

// stopWords is stopWordList as a set.
func stopWords() map[string]bool {
	words := stopWordList
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
