package runner

import (
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
)

func TestSkippedFailure(t *testing.T) {
	why := map[string]string{"git": "exit status 1", "web": "timeout"}
	if f := skippedFailure(&suite.Expect{Calls: []suite.ExpectedCall{{Tool: "search", Exposed: "search"}}}, why); f != nil {
		t.Errorf("a case whose tools are offered is not run: %+v", f)
	}
	one := &suite.Expect{Calls: []suite.ExpectedCall{{Tool: "search", Exposed: "search"}, {Tool: "git.log", Skipped: []string{"git"}}}}
	want := `expects git.log, which no connected server offers: server "git" failed to connect and was skipped (exit status 1); not run`
	if f := skippedFailure(one, why); f == nil || f.Kind != record.FailureServerSkipped || f.Message != want {
		t.Errorf("one server: %+v\nwant %s", f, want)
	}
	two := &suite.Expect{Calls: []suite.ExpectedCall{{Tool: "fetch", Skipped: []string{"git", "web"}}}}
	want = `expects fetch, which no connected server offers: servers "git" and "web" failed to connect and were skipped (git: exit status 1; web: timeout); not run`
	if f := skippedFailure(two, why); f == nil || f.Message != want {
		t.Errorf("two servers: %+v\nwant %s", f, want)
	}
}
