package toolbox

import (
	"testing"

	"github.com/toolgrade/toolgrade/internal/suite"
)

// TestToolsChange: a case is rescored only when it brings the tools, by
// name and in order, that the run recorded it bringing.
func TestToolsChange(t *testing.T) {
	base := &Recorded{cases: map[string]*Recorded{"own": {names: []string{"a", "b"}}}}
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
		if got := base.ToolsChange(&tc.c); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.c.ID, tc.c.Tools, got, tc.want)
		}
	}
}
