package runs

import (
	"context"

	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// Reporter writes a run's reports and judges its gates once it ends. This
// package computes the summary and hands it over, and renders nothing
// itself: cmd/toolgrade gives internal/report's RunFiles for the reports,
// with its gate flags' judgeRun, so a program that only finishes runs
// (harness/tgtest) links no renderer.
type Reporter interface {
	// Reports prints the terminal report of sum (stdout) and writes the
	// run's report files (report.md, report.html). A nil sum is a summary
	// that could not be made, already given to failed. Each report that
	// fails is given to failed, and Reports stops with what failed returns
	// when it is not nil.
	Reports(run *store.Reader, sum *summary.Summary, failed func(error) error) error
	// JUnit writes the run's JUnit XML to path, whole or not at all.
	JUnit(run *store.Reader, path string) error
	// Gates judges the gates of a run that ended without error: the
	// suite's, and those the command line gave. A failed gate is an error.
	Gates(ctx context.Context, run *store.Reader, s *suite.Suite) error
}

// Progress shows a run's progress as its trials end: Update with each
// model's latest count, Finish once the runner returns. cmd/toolgrade gives
// internal/report's (a bar on a terminal, plain lines elsewhere).
type Progress interface {
	Update(runner.Progress)
	Finish()
}

// noProgress shows nothing: Options without a Progress.
type noProgress struct{}

func (noProgress) Update(runner.Progress) {}
func (noProgress) Finish()                {}
