package suite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseReview(t *testing.T) {
	src := `cases:
  - {id: drafted, ask: q, review: true, expect: {no_tool: true}}
  - {id: confirmed, ask: q, review: false, expect: {no_tool: true}}
  - {id: plain, ask: q, expect: {no_tool: true}}
`
	s, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := []bool{s.Cases[0].Review, s.Cases[1].Review, s.Cases[2].Review}
	if !cmp.Equal(got, []bool{true, false, false}) {
		t.Errorf("Review = %v, want [true false false]", got)
	}
	if n := s.AwaitingReview(); n != 1 {
		t.Errorf("AwaitingReview() = %d, want 1", n)
	}
}

func TestParseReviewErrors(t *testing.T) {
	src := `cases:
  - {id: a, ask: q, review: yes please, expect: {no_tool: true}}
  - {id: b, ask: q, reveiw: true, expect: {no_tool: true}}
`
	got := errLines(t, src)
	want := []string{
		`s.yaml:2:29: cases[0].review: must be true or false, not the string "yes please"`,
		`s.yaml:3:21: cases[1]: unknown key "reveiw" (did you mean "review"?)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
