package record

import "testing"

// TestJudgeJudged: a verdict counts in judged, agreement only when judged
// more than once; a judge error or a stale verdict counts in neither, and
// the pass judgement stays the scorer's.
func TestJudgeJudged(t *testing.T) {
	v := func(s ...string) []Verdict {
		out := make([]Verdict, len(s))
		for i, x := range s {
			out[i] = Verdict{Verdict: x}
		}
		return out
	}
	for _, tc := range []struct {
		name              string
		jd                *Judged
		judged, agreement Judgement
		err, stale        bool
	}{
		{"none", nil, Judgement{}, Judgement{}, false, false},
		{"pass once", &Judged{Verdicts: v("pass"), Verdict: VerdictPass}, Judgement{true, true}, Judgement{}, false, false},
		{"fail thrice", &Judged{Verdicts: v("fail", "fail", "fail"), Verdict: VerdictFail}, Judgement{true, false}, Judgement{true, true}, false, false},
		{"split", &Judged{Verdicts: v("pass", "fail", "pass"), Verdict: VerdictPass}, Judgement{true, true}, Judgement{true, false}, false, false},
		{"error", &Judged{Verdicts: v("pass", ""), Error: "judge down"}, Judgement{}, Judgement{}, true, false},
		{"stale", &Judged{Verdicts: v("pass"), Verdict: VerdictPass, Stale: true}, Judgement{}, Judgement{}, false, true},
	} {
		tr := &Trial{Score: Score{Outcome: OutcomeWrongTool, CallExpected: true}, Judged: tc.jd}
		j := Judge(tr)
		if j.Judged != tc.judged || j.JudgeAgreement != tc.agreement || j.JudgeError != tc.err || j.JudgeStale != tc.stale {
			t.Errorf("%s: judged %+v agreement %+v error %v stale %v; want %+v %+v %v %v", tc.name, j.Judged, j.JudgeAgreement, j.JudgeError, j.JudgeStale, tc.judged, tc.agreement, tc.err, tc.stale)
		}
		if j.Pass != (Judgement{true, false}) {
			t.Errorf("%s: the judge changed the pass judgement: %+v", tc.name, j.Pass)
		}
	}
}

// TestMajority: more than half pass is a pass; a tie fails.
func TestMajority(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{{[]string{"pass"}, "pass"}, {[]string{"pass", "fail"}, "fail"}, {[]string{"pass", "fail", "pass"}, "pass"}, {[]string{"fail"}, "fail"}} {
		vs := make([]Verdict, len(tc.in))
		for i, s := range tc.in {
			vs[i].Verdict = s
		}
		if got := Majority(vs); got != tc.want {
			t.Errorf("Majority(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
