package termtext

import "strconv"

// Count is n with its noun, singular for exactly one: Count(1, "repeat") is
// "1 repeat", Count(3, "repeat") "3 repeats", Count(0, "model") "0 models".
// The plural adds "s"; a noun that does not (entry, entries) is spelled out
// with Plural. Every count toolgrade prints goes through one of the two, so
// no screen says "1 models".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun, noun+"s")
}

// Plural is one for n == 1 and many otherwise: for irregular nouns and for
// verbs that agree with a count ("1 call was", "2 calls were").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
