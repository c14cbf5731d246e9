package runs

import (
	"context"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/casetools"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// Toolbox composes the catalogs a run's models are shown: the suite's
// servers, the cases' own tools and each variant's overlays, decoys and
// hints. cmd/toolgrade fills it with its connectSuiteServers,
// caseDropWarnings, variantNames and connectVariants until internal/toolbox
// offers them.
type Toolbox interface {
	// Connect connects the suite's servers of cfg; nil cfg (a suite whose
	// every case brings its own tools) gets an empty catalog.
	Connect(ctx context.Context, cfg *servers.Config) (*servers.Catalog, error)
	// DropWarnings are the warnings of what Ollama's format drops from the
	// cases' inline tools, one line each.
	DropWarnings(s *suite.Suite, cc *casetools.Catalogs) []string
	// Variants readies the variants a run runs, each with its tools and the
	// catalog run.json records of it.
	Variants(ctx context.Context, req *VariantsRequest) (*Variants, error)
}

// VariantsRequest is what Toolbox.Variants readies.
type VariantsRequest struct {
	// Suite has passed Check against Catalogs.
	Suite    *suite.Suite
	Catalogs *casetools.Catalogs
	// Tools is the base's toolbox over Catalogs: the suite's tool policy.
	Tools bridge.Toolbox
	// Names are a resumed run's variants, in run order ("" is the base);
	// nil for a fresh run, which runs Select.
	Names []string
	// Select is the variants a fresh run was asked for ("base" names the
	// base); nil: not given, the base and every variant.
	Select []string
}

// Variants are the variants one run runs, in run order (the base first
// when it runs).
type Variants struct {
	List []runner.Variant
	// Catalogs are what run.json records of each variant, in List's order.
	Catalogs []record.RunCatalog
	// Close ends the servers the variants connected of their own; nil:
	// none.
	Close func()
}

// Reporter writes a run's reports and judges its gates once it ends.
// cmd/toolgrade fills it with its writeReports, writeMarkdownReports,
// writeHTMLReport, writeJUnitFile and gateFlags.judgeRun until the summary
// packages offer them.
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
