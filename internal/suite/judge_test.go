package suite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseJudge: a rubric alone or beside a matcher, and defaults.judge.
func TestParseJudge(t *testing.T) {
	src := `defaults:
  judge: {model: judge-pass, options: {temperature: 0.2, seed: 7}, repeat: 3}
cases:
  - {id: a, ask: q, expect: {no_tool: true, answer: {judge: "says the hours the tool gave"}}}
  - {id: b, ask: q, expect: {no_tool: true, answer: {contains: open, judge: grounded}}}
  - {id: c, ask: q, expect: {no_tool: true, answer: {contains: open}}}
`
	s, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j := s.Defaults.Judge
	if j.Model != "judge-pass" || j.Repeat != 3 || j.Options["temperature"] != 0.2 || j.Options["seed"] != int64(7) {
		t.Errorf("defaults.judge = %+v", j)
	}
	a, b, c := s.Cases[0].Expect, s.Cases[1].Expect, s.Cases[2].Expect
	if a.Judge == nil || a.Judge.Text != "says the hours the tool gave" || a.Answer != nil || a.Judge.Pos.Line != 4 {
		t.Errorf("case a: judge %+v, answer %+v", a.Judge, a.Answer)
	}
	if b.Judge == nil || b.Judge.Text != "grounded" || b.Answer == nil || b.Answer.Substring != "open" {
		t.Errorf("case b: judge %+v, answer %+v", b.Judge, b.Answer)
	}
	if c.Judge != nil || s.Rubrics() != 2 {
		t.Errorf("case c has a rubric, or Rubrics() = %d, want 2", s.Rubrics())
	}
	if err := s.CheckJudge(); err != nil {
		t.Errorf("CheckJudge with a judge model: %v", err)
	}
	s.Defaults.Judge.Model = ""
	err = s.CheckJudge()
	want := []string{
		`s.yaml:4:61: cases[0].expect.answer.judge: a rubric needs a judge model: set defaults.judge.model in the suite, or give run --judge-model MODEL`,
		`s.yaml:5:77: cases[1].expect.answer.judge: a rubric needs a judge model: set defaults.judge.model in the suite, or give run --judge-model MODEL`,
	}
	if err == nil {
		t.Fatal("CheckJudge without a judge model succeeded")
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("CheckJudge (-want +got):\n%s", diff)
	}
}

// TestParseJudgeErrors: every mistake in a rubric or defaults.judge is
// found with its place.
func TestParseJudgeErrors(t *testing.T) {
	src := `defaults:
  judge: {model: "", repeat: 0, modle: x, options: {temprature: 0}}
cases:
  - {id: a, ask: q, expect: {no_tool: true, answer: {judge: ""}}}
  - {id: b, ask: q, expect: {no_tool: true, answer: {judge: [x]}}}
  - {id: c, ask: q, expect: {no_tool: true, answer: {judje: x}}}
`
	want := []string{
		`s.yaml:2:18: defaults.judge.model: must not be empty`,
		`s.yaml:2:30: defaults.judge.repeat: must be between 1 and 25, not 0 (an odd number avoids ties, which fail)`,
		`s.yaml:2:33: defaults.judge: unknown key "modle" (did you mean "model"?)`,
		`s.yaml:2:53: defaults.judge.options.temprature: unknown Ollama option "temprature" (did you mean "temperature"?)`,
		`s.yaml:4:61: cases[0].expect.answer.judge: must not be empty`,
		`s.yaml:5:61: cases[1].expect.answer.judge: must be a string, not a list`,
		`s.yaml:6:54: cases[2].expect.answer: unknown key "judje" (did you mean "judge"?)`,
	}
	if diff := cmp.Diff(want, errLines(t, src)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
