package suite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseExecuteAndToolPatterns(t *testing.T) {
	src := `defaults:
  execute: false
  allow_tools: [write_file, "fs.*"]
  deny_tools: ["delete_?"]
cases:
  - {id: inherit, ask: q, expect: {no_tool: true}}
  - {id: own, ask: q, execute: true, expect: {no_tool: true}}
`
	s, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Defaults.Execute == nil || *s.Defaults.Execute {
		t.Errorf("Defaults.Execute = %v, want false", s.Defaults.Execute)
	}
	if got := []bool{s.Cases[0].NoExecute, s.Cases[1].NoExecute}; !cmp.Equal(got, []bool{true, false}) {
		t.Errorf("cases' NoExecute = %v, want [true false] (the case wins)", got)
	}
	wantAllow := []ToolPattern{
		{Glob: "write_file", Pos: Pos{File: "s.yaml", Line: 3, Col: 17}},
		{Glob: "fs.*", Pos: Pos{File: "s.yaml", Line: 3, Col: 29}},
	}
	if diff := cmp.Diff(wantAllow, s.Defaults.AllowTools); diff != "" {
		t.Errorf("AllowTools (-want +got):\n%s", diff)
	}
	if got := Globs(s.Defaults.DenyTools); !cmp.Equal(got, []string{"delete_?"}) {
		t.Errorf("DenyTools = %v", got)
	}
}

func TestParseExecuteDefaultsToTrue(t *testing.T) {
	s, err := Parse([]byte("cases:\n  - {id: a, ask: q, expect: {no_tool: true}}\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Cases[0].NoExecute || s.Defaults.Execute != nil {
		t.Errorf("NoExecute = %v, Defaults.Execute = %v; want false, nil", s.Cases[0].NoExecute, s.Defaults.Execute)
	}
	if s.Defaults.AllowTools != nil || s.Defaults.DenyTools != nil {
		t.Errorf("patterns = %v, %v; want nil", s.Defaults.AllowTools, s.Defaults.DenyTools)
	}
}

func TestParseToolPatternErrors(t *testing.T) {
	src := `defaults:
  execute: sometimes
  allow_tools: [ok, "write_[", ""]
  deny_tools: delete
cases:
  - {id: a, ask: q, execute: 1, expect: {no_tool: true}}
`
	got := errLines(t, src)
	want := []string{
		`s.yaml:2:12: defaults.execute: must be true or false, not the string "sometimes"`,
		`s.yaml:3:21: defaults.allow_tools[1]: bad pattern "write_[": syntax error in pattern (patterns use * ? [a-z] and \ to escape)`,
		`s.yaml:3:32: defaults.allow_tools[2]: must not be empty`,
		`s.yaml:4:15: defaults.deny_tools: must be a list of tool name patterns such as [write_file, "fs.*"], not the string "delete"`,
		`s.yaml:6:30: cases[0].execute: must be true or false, not the number 1`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
