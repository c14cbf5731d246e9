package suite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// skippingTools is a catalog whose servers file also held fs and git,
// which failed to connect.
type skippingTools struct{ *fakeTools }

func (skippingTools) SkippedServers() []string { return []string{"git", "web"} }

// TestCheckLeavesSkippedServersTools: an expected tool that no connected
// server offers is no error when a skipped server may have offered it: one
// written with its prefix is that server's, a plain name like no tool any
// skipped server's; typos and other servers' names stay errors.
func TestCheckLeavesSkippedServersTools(t *testing.T) {
	s, err := Parse([]byte(`cases:
  - id: prefixed
    ask: q
    expect: {tool: git.log}
  - id: plain
    ask: q
    expect:
      calls:
        - {tool: search, args: {query: dog}}
        - {tool: fetch_url}
  - id: typo
    ask: q
    expect: {tool: serch}
  - id: other-server
    ask: q
    expect: {tool: docs.fetch_url}
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(skippingTools{newFakeCatalog(t)})
	want := []string{
		`c.yaml:13:20: cases[2].expect.tool: unknown tool "serch" (did you mean "search"? tools: docs__info, fs__info, get_document, list_documents, search)`,
		`c.yaml:16:20: cases[3].expect.tool: unknown tool "docs.fetch_url"`,
	}
	if err == nil {
		t.Fatal("Check passed a typo")
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != 2 || got[0] != want[0] || !strings.HasPrefix(got[1], want[1]) {
		t.Errorf("Check errors:\n%s\nwant\n%s", err, strings.Join(want, "\n"))
	}
	skipped := [][]string{s.Cases[0].Expect.SkippedServers(), s.Cases[1].Expect.SkippedServers(), s.Cases[2].Expect.SkippedServers(), s.Cases[3].Expect.SkippedServers()}
	if diff := cmp.Diff([][]string{{"git"}, {"git", "web"}, nil, nil}, skipped); diff != "" {
		t.Errorf("skipped servers per case (-want +got):\n%s", diff)
	}
	if c := s.Cases[1].Expect.Calls[0]; c.Exposed != "search" || c.Skipped != nil {
		t.Errorf("a known tool beside a skipped one: %+v", c)
	}
	// Without skipped servers the same names are unknown tools.
	s2, _ := Parse([]byte("cases:\n  - {id: a, ask: q, expect: {tool: git.log}}\n"), "c.yaml")
	if err := s2.Check(newFakeCatalog(t)); err == nil || !strings.Contains(err.Error(), `unknown tool "git.log"`) {
		t.Errorf("Check without skipped servers = %v", err)
	}
}
