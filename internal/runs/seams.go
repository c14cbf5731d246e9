package runs

import (
	"context"

	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Reporter writes a run's reports and judges its gates once it ends.
// cmd/toolgrade fills it with this package's WriteReports,
// WriteMarkdownReports, WriteHTMLReport and WriteJUnitFile, and with its
// gate flags' judgeRun, the part that still lives in the command.
type Reporter interface {
	// Reports writes summary.json, the terminal report (stdout), report.md
	// and report.html. Each report that fails is given to failed, and
	// Reports stops with what failed returns when it is not nil.
	Reports(run *store.Reader, failed func(error) error) error
	// JUnit writes the run's JUnit XML to path, whole or not at all.
	JUnit(run *store.Reader, path string) error
	// Gates judges the gates of a run that ended without error: the
	// suite's, and those the command line gave. A failed gate is an error.
	Gates(ctx context.Context, run *store.Reader, s *suite.Suite) error
}
