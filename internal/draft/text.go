package draft

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/toolgrade/toolgrade/internal/record"
)

// askText is the whole ask, every message with its role, system prompt
// included: normalised, the key by which questions are exact duplicates.
func askText(msgs []record.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		b.WriteString(": ")
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// questionText is what two asks of the same shape are compared by: the
// text of their turns normalised, the roles and the system prompt left out
// (sameShape requires them equal), so a long shared prompt does not make
// different questions look alike.
func questionText(msgs []record.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role != "system" {
			b.WriteString(m.Content)
			b.WriteString("\n")
		}
	}
	return normalize(b.String())
}

// normalize lowercases text, drops apostrophes, turns other punctuation
// and symbols into spaces, and collapses whitespace, so "Can I bring my dog?" and "can i bring  my dog" are one
// question.
func normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == '\'' || r == '’':
			// Inside a word: what's is one word, not two.
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}

// Similarity is 1 minus the Levenshtein distance between a and b (over
// runes) divided by the longer length: 1 for equal texts, 0 for texts with
// nothing in common. Build compares normalised questions with it; an edit
// distance rather than shared words, so "dogs" against "dog" counts as one
// letter, not one word in five.
func Similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	n := max(len(ra), len(rb))
	if n == 0 {
		return 1
	}
	return 1 - float64(levenshtein(ra, rb))/float64(n)
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// baseID is the id the case would like: the case id of the trial it was
// drafted from, else a slug of its question.
func (c *Case) baseID() string {
	if t := c.Sources[0].Trial; t != nil && t.CaseID != "" && !strings.ContainsFunc(t.CaseID, unicode.IsSpace) {
		return t.CaseID
	}
	return slug(lastUser(c.Messages))
}

// lastUser is the last user message: the question the model answered.
func lastUser(msgs []record.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// slug makes an id of a question: its first words, lowercased, joined by
// hyphens ("Can I bring my dog?" → can-i-bring-my-dog).
func slug(q string) string {
	const maxWords, maxLen = 6, 40
	words := strings.Fields(normalize(q))
	var b strings.Builder
	for i, w := range words {
		if i == maxWords || b.Len()+len(w) > maxLen && b.Len() > 0 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	if b.Len() == 0 {
		return "case"
	}
	return b.String()
}

// uniqueID returns id, or id-2, id-3, ... when taken, and takes it.
func uniqueID(id string, taken map[string]bool) string {
	out := id
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s-%d", id, i)
	}
	taken[out] = true
	return out
}
