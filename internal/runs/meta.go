package runs

import (
	"slices"
	"time"

	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/shard"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// Meta is what a run's run.json is made of when it starts: the one builder
// of run.json (New for a fresh run, Session for each session of one). The
// zero value of each field leaves its part of run.json empty.
type Meta struct {
	// Suite is the suite as run, overrides applied; required by New.
	Suite *suite.Suite
	// Servers is the base's catalog: its hash, its servers' tools, and the
	// servers that failed to connect; nil: none.
	Servers *mcpclient.Catalog
	// Harness is the version of the program that ran the run.
	Harness string
	// Ollama is the Ollama(s) run on, the URL redacted.
	Ollama record.RunOllama
	Repeat int
	// Parallel is this session's trials of one model at once.
	Parallel int
	// Models are the models as Ollama described them this session.
	Models []record.Model
	// Catalogs are the variants' catalogs as sent, in run order.
	Catalogs  []record.RunCatalog
	Overrides *record.RunOverrides
	// StopEarly is the stopping rule; nil: every case runs every repeat.
	StopEarly *stats.SPRT
	// Shard is the part of the trials the run holds; zero: all.
	Shard shard.Spec
	// NoExecute and KeepTruncated are the run's --no-execute and
	// --keep-truncated; a session may add them, never remove them.
	NoExecute, KeepTruncated bool
	// Start is when the run began; zero: now.
	Start time.Time
	// JUnit is the file the JUnit report goes to; "": the run's own, if
	// any (a resume rewrites the file the run was started with).
	JUnit string
	// Commit is the suite's repository's commit (SuiteCommit); nil: none.
	Commit *record.RunCommit
	// Judge is this session's judge model; nil: the suite has no rubric.
	Judge *record.RunJudge
	// AllRepeats is run --all-repeats; a session may add it, never remove
	// it, so a resume sends to the model what the run did.
	AllRepeats bool
}

// New is a fresh run's run.json.
func (m *Meta) New() *record.Run {
	s := m.Suite
	r := &record.Run{
		Suite:     record.RunSuite{Name: s.Name, Path: record.AbsPath(s.Path), Hash: s.Hash},
		Harness:   m.Harness,
		Ollama:    m.Ollama,
		Repeat:    m.Repeat,
		Options:   s.Defaults.Options,
		Think:     s.Defaults.Think,
		MaxRounds: s.Defaults.MaxRounds,
		Start:     m.Start,
		Overrides: m.Overrides,
		Catalogs:  m.Catalogs,
		Cases:     s.CaseHashes(),
		Margin:    s.Margin,
		Shard:     m.Shard.Record(),
		Commit:    m.Commit,
	}
	if r.Start.IsZero() {
		r.Start = time.Now()
	}
	r.BaseSeed, _ = s.Defaults.Seed()
	if m.Servers != nil {
		r.CatalogHash = toolbox.CatalogHash(m.Servers)
		r.Servers = toolbox.RunServers(m.Servers)
		for _, f := range m.Servers.Failed() {
			r.FailedServers = append(r.FailedServers, f.Name)
			r.SkippedServers = append(r.SkippedServers, record.RunSkippedServer{Name: f.Name, Error: f.Err.Error(), Cases: casesNeeding(s, f.Name)})
		}
	}
	if rule := m.StopEarly; rule != nil {
		r.StopEarly = &record.RunStopEarly{Threshold: rule.Threshold, Delta: rule.Delta, Alpha: rule.Alpha, Beta: rule.Beta}
	}
	m.Session(r)
	return r
}

// Session records in r, a fresh or resumed run's run.json, what this
// session runs with: its parallelism, its models (merged with the earlier
// sessions'), and --no-execute and --keep-truncated, which only the reports
// depend on once the trials ran the same, so a resume may add them.
func (m *Meta) Session(r *record.Run) {
	r.Parallel = m.Parallel
	r.NoExecute = r.NoExecute || m.NoExecute
	r.KeepTruncated = r.KeepTruncated || m.KeepTruncated
	r.AllRepeats = r.AllRepeats || m.AllRepeats
	if m.JUnit != "" {
		r.JUnit = record.AbsPath(m.JUnit)
	}
	r.Models = store.MergeModels(r.Models, m.Models)
	if m.Judge != nil {
		r.Judge = m.Judge
	}
}

// casesNeeding is the ids of s's cases that expect a tool server may have
// offered, when it was skipped (suite.ExpectedCall.Skipped).
func casesNeeding(s *suite.Suite, server string) []string {
	var out []string
	for i := range s.Cases {
		if slices.Contains(s.Cases[i].Expect.SkippedServers(), server) {
			out = append(out, s.Cases[i].ID)
		}
	}
	return out
}
