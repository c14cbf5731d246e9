package draft

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildMerges is the merge rules, one table row each: which
// conversations become one case, which expectation it keeps, and what the
// reviewer is told.
func TestBuildMerges(t *testing.T) {
	dog := call("search", `{"query":"dog"}`)
	dogs := call("search", `{"query":"dogs"}`)
	q := call("search", `{"q":"dog"}`)
	faq := call("get_document", `{"name":"faq.txt"}`)
	type want struct {
		id, ask, expect string
		sources         int
		notes           []string // each a substring of one note, in order
	}
	for _, c := range []struct {
		name  string
		min   float64
		convs []Conversation
		want  []want
	}{
		{
			name:  "equal once normalised: one case",
			convs: []Conversation{conv(1, "a", "Can I bring my dog?", dog), conv(2, "a", "can i bring  my DOG", dog)},
			want:  []want{{id: "can-i-bring-my-dog", ask: "Can I bring my dog?", expect: `search({"query":"dog"})`, sources: 2}},
		},
		{
			name: "equal questions, different calls: the majority's, the others noted",
			convs: []Conversation{
				conv(1, "weak", "Can I bring my dog?", q),
				conv(2, "good", "Can I bring my dog?", dog),
				conv(3, "good", "Can I bring my dog?", dog),
			},
			want: []want{{id: "can-i-bring-my-dog", ask: "Can I bring my dog?", expect: `search({"query":"dog"})`, sources: 3,
				notes: []string{`1 of 3 conversations made other calls (weak): search({"q":"dog"})`}}},
		},
		{
			name:  "a tie: the first seen",
			convs: []Conversation{conv(1, "weak", "Can I bring my dog?", q), conv(2, "good", "Can I bring my dog?", dog)},
			want: []want{{id: "can-i-bring-my-dog", ask: "Can I bring my dog?", expect: `search({"q":"dog"})`, sources: 2,
				notes: []string{`1 of 2 conversations made other calls (good): search({"query":"dog"})`}}},
		},
		{
			name:  "near-identical, same tools: merged, other arguments noted",
			convs: []Conversation{conv(1, "a", "Can I bring my dog?", dog), conv(2, "a", "Can I bring my dogs?", dogs)},
			want: []want{{id: "can-i-bring-my-dog", ask: "Can I bring my dog?", expect: `search({"query":"dog"})`, sources: 2,
				notes: []string{`also asked (0.95, 1 conversation) as "Can I bring my dogs?"`, `with other arguments: search({"query":"dogs"})`}}},
		},
		{
			name:  "near-identical, same tools, below the threshold: kept apart",
			min:   0.99,
			convs: []Conversation{conv(1, "a", "Can I bring my dog?", dog), conv(2, "a", "Can I bring my dogs?", dogs)},
			want: []want{
				{id: "can-i-bring-my-dog", ask: "Can I bring my dog?", expect: `search({"query":"dog"})`, sources: 1},
				{id: "can-i-bring-my-dogs", ask: "Can I bring my dogs?", expect: `search({"query":"dogs"})`, sources: 1},
			},
		},
		{
			name:  "near-identical, other tools: both kept, the later one told",
			convs: []Conversation{conv(1, "a", "Show me faq.txt", faq), conv(2, "a", "Show me faq.txt!!", faq), conv(3, "a", "Show me faqs.txt", dog)},
			want: []want{
				{id: "show-me-faq-txt", ask: "Show me faq.txt", expect: `get_document({"name":"faq.txt"})`, sources: 2},
				{id: "show-me-faqs-txt", ask: "Show me faqs.txt", expect: `search({"query":"dog"})`, sources: 1,
					notes: []string{`similar (0.94) to case show-me-faq-txt, which expects get_document({"name":"faq.txt"}): keep both only if they differ`}},
			},
		},
		{
			name:  "near-identical, no tool both: merged",
			convs: []Conversation{conv(1, "a", "Tell me a joke."), conv(2, "a", "Tell me a joke, please")},
			want: []want{{id: "tell-me-a-joke", ask: "Tell me a joke.", expect: "no tool", sources: 2,
				notes: []string{`also asked (0.67`}}},
			min: 0.6,
		},
		{
			name:  "different questions: one case each, ids unique, first seen first",
			convs: []Conversation{conv(1, "a", "Hours?", dog), conv(2, "a", "Parking?"), conv(3, "a", "hours!!!", dog), conv(4, "a", "Hours, today", faq)},
			want: []want{
				{id: "hours", ask: "Hours?", expect: `search({"query":"dog"})`, sources: 2},
				{id: "parking", ask: "Parking?", expect: "no tool", sources: 1},
				{id: "hours-today", ask: "Hours, today", expect: `get_document({"name":"faq.txt"})`, sources: 1},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Build(c.convs, &Options{MinSimilarity: c.min})
			if len(d.Cases) != len(c.want) {
				t.Fatalf("%d cases, want %d: %+v", len(d.Cases), len(c.want), d.Cases)
			}
			for i, w := range c.want {
				got := d.Cases[i]
				if got.ID != w.id || lastUser(got.Messages) != w.ask || got.Expect.String() != w.expect || len(got.Sources) != w.sources {
					t.Errorf("case %d: id %q ask %q expect %s sources %d; want %q %q %s %d",
						i, got.ID, lastUser(got.Messages), got.Expect, len(got.Sources), w.id, w.ask, w.expect, w.sources)
				}
				if len(got.Notes) != len(w.notes) {
					t.Errorf("case %d: notes %q, want %d like %q", i, got.Notes, len(w.notes), w.notes)
					continue
				}
				for j, n := range w.notes {
					if !strings.Contains(got.Notes[j], n) {
						t.Errorf("case %d note %d: %q lacks %q", i, j, got.Notes[j], n)
					}
				}
			}
			// Whatever was merged, the draft is a suite.
			s, _ := parsed(t, d)
			if len(s.Cases) != len(c.want) || s.AwaitingReview() != len(c.want) {
				t.Errorf("parsed %d cases, %d awaiting review; want %d of each", len(s.Cases), s.AwaitingReview(), len(c.want))
			}
		})
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	convs := []Conversation{
		conv(1, "a", "Hours?", call("search", `{"query":"hours","top_k":5}`)),
		conv(2, "b", "Hours?", call("search", `{"top_k":5,"query":"hours"}`)),
		conv(3, "a", "Parking?"),
		conv(4, "a", "Check both", call("get", `{"name":"a"}`), call("get", `{"name":"b"}`)),
		conv(5, "b", "Check both", call("get", `{"name":"b"}`), call("get", `{"name":"a"}`)),
	}
	_, first := parsed(t, Build(convs, nil))
	for range 5 {
		if _, again := parsed(t, Build(convs, nil)); again != first {
			t.Fatalf("drafts differ:\n%s\n---\n%s", first, again)
		}
	}
	d := Build(convs, nil)
	// Arguments agree by value, and parallel calls in any order.
	if got := []int{len(d.Cases[0].Notes), len(d.Cases[2].Notes)}; !cmp.Equal(got, []int{0, 0}) {
		t.Errorf("notes %q and %q; the conversations agree", d.Cases[0].Notes, d.Cases[2].Notes)
	}
}
