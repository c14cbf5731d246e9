package draft

import (
	"math"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Can I bring my dog?":        "can i bring my dog",
		"  can i   BRING my dog!!! ": "can i bring my dog",
		"Show me faq.txt, please":    "show me faq txt please",
		"Öffnungszeiten am Sonntag?": "öffnungszeiten am sonntag",
		"?!":                         "",
		"What's the time?":           "whats the time",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"can i bring my dog", "can i bring my dog", 1},
		{"", "", 1},
		{"abc", "", 0},
		{"can i bring my dog", "can i bring my dogs", 1 - 1.0/19},
		{"kitten", "sitting", 1 - 3.0/7},
		{"open on monday", "open on sunday", 1 - 2.0/14},
	} {
		if got := Similarity(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Similarity(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Similarity(c.b, c.a); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Similarity is not symmetric for %q, %q: %v", c.a, c.b, got)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Can I bring my dog?":                         "can-i-bring-my-dog",
		"What documents can you search for me today?": "what-documents-can-you-search-for",
		"?!": "case",
		"Supercalifragilisticexpialidocious-and-then-some-more-words": "supercalifragilisticexpialidocious-and",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
