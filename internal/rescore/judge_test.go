package rescore

import (
	"encoding/json"
	"testing"

	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// catalog is a Catalog whose cases brought the tools in own.
type catalog struct{ own map[string][]string }

func (c catalog) Resolve(name string) (string, bool)         { return name, true }
func (c catalog) Names() []string                            { return nil }
func (c catalog) ValidateArgs(string, json.RawMessage) error { return nil }
func (c catalog) For(string) score.Catalog                   { return c }
func (c catalog) Own(id string) ([]string, bool)             { n, ok := c.own[id]; return n, ok }

// TestToolsChange: a case is rescored only when it brings the tools, by
// name and in order, that the run recorded it bringing.
func TestToolsChange(t *testing.T) {
	base := catalog{own: map[string][]string{"own": {"a", "b"}}}
	tools := func(names ...string) []suite.CaseTool {
		out := []suite.CaseTool{}
		for _, n := range names {
			out = append(out, suite.CaseTool{Exposed: n})
		}
		return out
	}
	for _, tc := range []struct {
		c    suite.Case
		want string
	}{
		{suite.Case{ID: "plain"}, ""},
		{suite.Case{ID: "own", Tools: tools("a", "b")}, ""},
		{suite.Case{ID: "plain", Tools: tools("a")}, "it brings its own tools now"},
		{suite.Case{ID: "own"}, "it no longer brings its own tools"},
		{suite.Case{ID: "own", Tools: tools("b", "a")}, "its tools changed from a, b to b, a"},
		{suite.Case{ID: "own", Tools: tools("a", "")}, "its tools changed"},
	} {
		if got := toolsChange(&tc.c, base); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.c.ID, tc.c.Tools, got, tc.want)
		}
	}
}

func TestSpecValidate(t *testing.T) {
	for _, s := range []Spec{{}, {Run: "d"}, {Suite: "s.yaml"}} {
		if err := s.Validate(); err == nil || err.Error() != "rescore: give one run directory and --suite SUITE.yaml" {
			t.Errorf("%+v: %v", s, err)
		}
	}
	if err := (&Spec{Run: "d", Suite: "s.yaml"}).Validate(); err != nil {
		t.Error(err)
	}
}
