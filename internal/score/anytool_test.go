package score

import (
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// TestScoreAnyTool: any_tool (BFCL's live_relevance) passes on any call to
// a tool of the catalog, whatever its arguments, and fails as other call
// cases do when no call came.
func TestScoreAnyTool(t *testing.T) {
	const anyTool = `{any_tool: true}`
	for _, tt := range []outcomeTest{
		{name: "any call passes", expect: anyTool, t: firstResponse("", searchCat), want: record.OutcomePass},
		{name: "another tool passes", expect: anyTool, t: firstResponse("", list), want: record.OutcomePass},
		{name: "no call", expect: anyTool, t: firstResponse("It is sunny."), want: record.OutcomeNoCall},
		{name: "empty", expect: anyTool, t: firstResponse(""), want: record.OutcomeEmptyAnswer},
		{name: "call in text", expect: anyTool, t: firstResponse(`{"name": "search", "arguments": {}}`), want: record.OutcomeCallInText},
		{name: "unknown tool", expect: anyTool, t: firstResponse("", tc{name: "get_weather", args: `{}`}), opts: Options{Tools: docsTools{}}, want: record.OutcomeHallucinatedTool, wantDetail: `"get_weather" is not a tool`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.t, expect(t, tt.expect), tt.opts)
			if got.Outcome != tt.want || !strings.Contains(got.Detail, tt.wantDetail) {
				t.Fatalf("Score = %s (%s), want %s (%s)", got.Outcome, got.Detail, tt.want, tt.wantDetail)
			}
		})
	}
}
