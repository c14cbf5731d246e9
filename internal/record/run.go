package record

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Run is run.json: what a run was made of, so that its trials can be read,
// resumed and compared later without the servers or Ollama.
type Run struct {
	Suite   RunSuite  `json:"suite"`
	Harness string    `json:"harness_version"`
	Ollama  RunOllama `json:"ollama"`
	// Models are the models in run order, as Ollama described them.
	Models []Model `json:"models"`
	// Servers are the MCP servers that connected, with a hash of the tools
	// each offered; CatalogHash covers the whole tool list sent to models.
	Servers []RunServer `json:"servers"`
	// FailedServers names the servers that failed to connect and were
	// skipped; SkippedServers says, for each, why and which cases needed
	// it (absent in runs recorded before it).
	FailedServers  []string           `json:"failed_servers,omitempty"`
	SkippedServers []RunSkippedServer `json:"skipped_servers,omitempty"`
	CatalogHash    string             `json:"catalog_hash"`
	Repeat         int                `json:"repeat"`
	Parallel       int                `json:"parallel"`
	// BaseSeed is the suite's seed; repeat i ran with BaseSeed+i.
	BaseSeed  int64          `json:"base_seed"`
	Options   map[string]any `json:"options,omitempty"`
	Think     string         `json:"think,omitempty"`
	MaxRounds int            `json:"max_rounds"`
	// NoExecute is true when the run was started with --no-execute: no
	// trial ran a tool; a resume keeps it.
	NoExecute bool `json:"no_execute,omitempty"`
	// KeepTruncated is true when the run's reports count the trials whose
	// prompt reached num_ctx in the rates (run --keep-truncated); false
	// excludes them (see JudgeOptions). Reports rebuilt from the run read
	// it, and --keep-truncated on report or compare sets it for that
	// report only.
	KeepTruncated bool      `json:"keep_truncated,omitempty"`
	Start         time.Time `json:"start"`
	End           time.Time `json:"end,omitzero"`
	// JUnit is the file (an absolute path) `run --junit` writes the JUnit
	// report to as the run ends; a resume rewrites it, with the run's
	// status of then, unless given another.
	JUnit string `json:"junit,omitempty"`
	// Status is "running" until the run ends, then "complete",
	// "interrupted" or "failed".
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`

	// Overrides are the settings the command line gave over the suite's;
	// nil when none. Options, Think and MaxRounds above already include them.
	Overrides *RunOverrides `json:"overrides,omitempty"`
	// Catalogs are the tool catalogs the run sent, one per variant in run
	// order ("" first: the servers' own descriptions), each exactly as sent,
	// so a comparison can show what changed and a report needs no server.
	Catalogs []RunCatalog `json:"catalogs,omitempty"`
	// Margin is the suite's margin: (0.05 for 5 points), the
	// non-inferiority margin compare judges the run at unless --margin is
	// given; 0 (absent) when the suite sets none.
	Margin float64 `json:"margin,omitempty"`
	// Cases maps each case id to a hash of what the case asks and expects,
	// so a comparison can tell a case edited under the same id.
	Cases map[string]string `json:"cases,omitempty"`

	// StopEarly is the early-stopping rule the run was started with
	// (--stop-early) and what it saved; nil when every case ran every
	// repeat. A resume keeps it.
	StopEarly *RunStopEarly `json:"stop_early,omitempty"`
	// AllRepeats is true when the run was started with --all-repeats: every
	// repeat was sent to the model, even where the first two of a case
	// agreed at temperature 0 (see Trial.CopyOf); a resume keeps it.
	AllRepeats bool `json:"all_repeats,omitempty"`
	// Schedule is how the trials of the run's models were ordered against
	// each other, so that a comparison of their cost can say what it rests
	// on: ScheduleInterleaved, ScheduleABBA or ScheduleBlocks; "" with one
	// model, and in runs recorded before format 1.7 (blocks).
	Schedule string `json:"schedule,omitempty"`
	// Rescored is set on a run made by `toolgrade rescore`: its trials are
	// those of another run, judged again against an edited suite.
	Rescored *RunRescored `json:"rescored,omitempty"`
	// Judge is the judge model of the cases with a rubric (answer: {judge:
	// ...}); nil when the suite has none, and before format 1.6.
	Judge *RunJudge `json:"judge,omitempty"`
	// Shard is the part of the trials this run holds (run --shard); nil:
	// all of them. `toolgrade merge` removes it.
	Shard *RunShard `json:"shard,omitempty"`
	// Commit is the commit the suite's repository was at when the run
	// began, so a trend over runs can be read against the suite's history;
	// nil when the suite is in no repository (and in runs recorded before
	// toolgrade looked).
	Commit *RunCommit `json:"commit,omitempty"`
}

// Schedules: how a run ordered its models' trials (Run.Schedule).
const (
	// ScheduleInterleaved: the models were loaded together on one Ollama
	// and their trials alternated case by case, the model going first
	// alternating too, so that whatever else the machine did fell on both.
	ScheduleInterleaved = "interleaved"
	// ScheduleABBA: the models could not stay loaded together (or ran on a
	// pool of Ollamas), so each ran in two blocks, the first half of the
	// cases in model order and the second half in reverse (A B B A): each
	// model has as much early as late time.
	ScheduleABBA = "abba"
	// ScheduleBlocks: each model's trials ran as one block, one model after
	// the other: a difference in latency may be the machine's, not the
	// models'.
	ScheduleBlocks = "blocks"
)

// ConfoundedNote warns that a run's models ran one after another, so a
// difference in their latency or speed may be the machine's, not theirs:
// every report of such a run says it.
const ConfoundedNote = "the models ran one after another (blocks): a difference in latency or speed may be the machine's load at the time, not the models'; a run by this toolgrade interleaves them or counterbalances their blocks"

// CostConfounded reports whether the run's latency and throughput
// comparisons between its models may be confounded with time: its models
// ran in plain blocks (and runs recorded before format 1.7 did).
func (r *Run) CostConfounded() bool {
	return r != nil && len(r.Models) > 1 && (r.Schedule == "" || r.Schedule == ScheduleBlocks)
}

// RunCommit is the revision of the repository holding a run's suite.
type RunCommit struct {
	// SHA is the full commit hash.
	SHA string `json:"sha"`
	// Dirty is true when the work tree had changes not in SHA (git status
	// showed any), so the suite run may not be the committed one; always
	// false when Source is an environment variable, which cannot tell.
	Dirty bool `json:"dirty,omitempty"`
	// Source is where SHA came from: "git", or the CI variable read
	// (GITHUB_SHA, CI_COMMIT_SHA, ...) when git could not say.
	Source string `json:"source"`
}

// Short is the commit's first 12 hex digits, with "+dirty" when the tree had
// changes; "" for a nil commit.
func (c *RunCommit) Short() string {
	if c == nil {
		return ""
	}
	s := c.SHA[:min(12, len(c.SHA))]
	if c.Dirty {
		s += "+dirty"
	}
	return s
}

// RunStopEarly is the rule of `run --stop-early`: Wald's sequential test of
// each case's pass rate, H0 p ≤ Threshold−Delta against H1 p ≥
// Threshold+Delta, with error rates Alpha and Beta (see stats.SPRT).
type RunStopEarly struct {
	Threshold float64 `json:"threshold"`
	Delta     float64 `json:"delta"`
	Alpha     float64 `json:"alpha"`
	Beta      float64 `json:"beta"`
	// TrialsSaved counts the trials not run because their case was settled,
	// over every model, variant and session.
	TrialsSaved int `json:"trials_saved"`
}

// RunRescored says where a rescored run's trials came from.
type RunRescored struct {
	// From is the directory of the run whose transcripts were judged again.
	From string `json:"rescored_from"`
	// FromSuiteHash is the suite hash that run ran; Suite.Hash above is the
	// edited suite's.
	FromSuiteHash string    `json:"from_suite_hash"`
	Time          time.Time `json:"time"`
	// Rescored counts the trials judged again; Copied lists the cases whose
	// conversation or catalog changed, whose trials were copied unchanged.
	Rescored int      `json:"rescored"`
	Copied   []string `json:"copied,omitempty"`
	// Missing lists the cases of the edited suite the run never ran.
	Missing []string `json:"missing,omitempty"`
	// Rejudged counts the answers judged again (rescore --rejudge) by
	// JudgeModel; Stale the verdicts kept though their rubric changed
	// (without --rejudge). Format 1.6.
	Rejudged   int    `json:"rejudged,omitempty"`
	JudgeModel string `json:"judge_model,omitempty"`
	Stale      int    `json:"stale_verdicts,omitempty"`
}

// RunJudge is the judge model a run (or a rescore --rejudge) graded its
// answers with: compare names a change of it as drift.
type RunJudge struct {
	Model  string `json:"model"`
	Digest string `json:"digest,omitempty"`
	// Repeat is how many times each answer was judged.
	Repeat  int            `json:"repeat"`
	Options map[string]any `json:"options,omitempty"`
}

// RunShard is shard I of N (counting from 0) of a run's trials, split By
// "trial" or "model" (see package shard).
type RunShard struct {
	I  int    `json:"i"`
	N  int    `json:"n"`
	By string `json:"by"`
}

// RunCatalog is the tool catalog one variant of a run sent with every
// request.
type RunCatalog struct {
	// Variant is the variant's name; "" is the servers' own catalog (shown
	// as "base").
	Variant string `json:"variant"`
	// Hash covers Tools and System.
	Hash string `json:"hash"`
	// System is the variant's system prompt when it replaces the suite's.
	System string `json:"system,omitempty"`
	// Tools is the tools array sent to Ollama (api.Tools JSON), byte for
	// byte.
	Tools json.RawMessage `json:"tools"`
	// Think is the think value the variant sends instead of the suite's
	// ("true", "false", "low", ...); empty when it sets none.
	Think string `json:"think,omitempty"`
	// Options are the Ollama options the variant sets over the suite's (as
	// the suite writes them); nil when it sets none. Hash covers Think and
	// Options too.
	Options map[string]any `json:"options,omitempty"`
	// Sweep is the point of the suite's sweep: grid this catalog is, axis →
	// value ({"decoys": 10, "think": true}; a system prompt by its name s0,
	// s1, ...); set on the base too when the base is the grid's defaults
	// point; nil for a variant outside the grid.
	Sweep map[string]any `json:"sweep,omitempty"`
	// Decoys are the names of the decoys among Tools, in catalog order; nil
	// when the variant offers none.
	Decoys []string `json:"decoys,omitempty"`
	// Cases are the catalogs this variant sent to the cases that bring their
	// own tools (a suite case's tools:), each distinct one once, in the order
	// of the first case using it; nil when every case used Tools. They are
	// kept inside their variant so that readers of one catalog per variant
	// (compare, merge, reports) read Tools as before.
	Cases []RunCaseCatalog `json:"case_catalogs,omitempty"`
}

// RunCaseCatalog is one distinct catalog of a variant's cases that bring
// their own tools.
type RunCaseCatalog struct {
	// Cases are the ids of the cases sent it, in suite order.
	Cases []string `json:"cases"`
	// Hash covers Tools and the variant's System, as RunCatalog.Hash does.
	Hash string `json:"hash"`
	// Tools is the tools array sent to Ollama, byte for byte.
	Tools json.RawMessage `json:"tools"`
}

// RunOverrides are the flags of `toolgrade run` that replaced a suite's
// settings for a run, as given; --resume applies them again. A zero field was
// not given.
type RunOverrides struct {
	// Servers is the absolute path of the mcpServers file used instead of
	// the suite's servers.
	Servers string `json:"servers,omitempty"`
	// System replaces defaults.system; nil when not given, "" for none.
	System *string `json:"system,omitempty"`
	// MaxRounds is the round limit of every case; nil when not given.
	MaxRounds *int `json:"max_rounds,omitempty"`
	// Think replaces defaults.think: true, false, low, medium or high.
	Think string `json:"think,omitempty"`
	// KeepAlive replaces defaults.keep_alive, as a Go duration ("10m").
	KeepAlive string `json:"keep_alive,omitempty"`
	// Options are the -o key=value model options in the order given, over
	// defaults.options (a later key wins).
	Options []string `json:"options,omitempty"`
	// JudgeModel replaces defaults.judge.model, JudgeRepeat
	// defaults.judge.repeat (--judge-model, --judge-repeat; format 1.6).
	JudgeModel  string `json:"judge_model,omitempty"`
	JudgeRepeat int    `json:"judge_repeat,omitempty"`
}

// RunSuite identifies the suite a run ran.
type RunSuite struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// RunOllama identifies the Ollama server.
type RunOllama struct {
	URL     string `json:"url"`
	Version string `json:"version"`
}

// RunServer is one MCP server of a run.
type RunServer struct {
	Name  string   `json:"name"`
	Hash  string   `json:"catalog_hash"`
	Tools []string `json:"tools"`
	// Restarts counts the times the server was restarted after its
	// connection ended (a crash), over every session of the run.
	Restarts int `json:"restarts,omitempty"`
}

// RunSkippedServer is a server of the run's servers file that failed to
// connect, so that its tools were never offered: why, and the cases that
// expect a tool it may have offered, whose trials were not run but recorded
// as infrastructure errors (FailureServerSkipped), never as a model's
// mistakes.
type RunSkippedServer struct {
	Name string `json:"name"`
	// Error is why it failed, as the connection reported it (it may quote
	// the server's stderr).
	Error string `json:"error"`
	// Cases are the ids of the cases that expect a tool no connected server
	// offers and this one may have, in suite order.
	Cases []string `json:"cases,omitempty"`
}

// AddRestarts adds one session's restart counts (server name → restarts) to
// the run's servers; a resumed run adds its own to the earlier ones.
func (r *Run) AddRestarts(restarts map[string]int) {
	for i := range r.Servers {
		r.Servers[i].Restarts += restarts[r.Servers[i].Name]
	}
}

// Model is what Ollama reports about one model: enough to tell exactly which
// weights produced a trial.
type Model struct {
	Name          string   `json:"name"`
	Digest        string   `json:"digest,omitempty"`
	Family        string   `json:"family,omitempty"`
	ParameterSize string   `json:"parameter_size,omitempty"`
	Quantization  string   `json:"quantization,omitempty"`
	Capabilities  []string `json:"capabilities"`
	// NumCtx is the model's default context length (zero when unset).
	NumCtx int `json:"num_ctx,omitempty"`
	// Load is the load time of the warm-up request, kept apart from trials
	// (with a pool of Ollamas, the longest of its hosts').
	Load time.Duration `json:"load_ns,omitempty"`
	// Cost is what the model cost on the machine that ran it (with a pool,
	// over every host: the largest memory, the speed of all its trials);
	// nil in runs recorded before toolgrade measured it.
	Cost *Cost `json:"cost,omitempty"`
	// Hosts are the Ollamas that had the model pulled, when the run spread
	// trials over several (--ollama given more than once); nil with one.
	Hosts []ModelHost `json:"hosts,omitempty"`
}

// ModelHost is one Ollama of a pool that served a model: a report warns when
// the hosts of one model differ in version or digest.
type ModelHost struct {
	Host    string `json:"host"` // its URL, redacted
	Version string `json:"ollama_version,omitempty"`
	Digest  string `json:"digest,omitempty"`
	// Load is the load time of the warm-up request on this host.
	Load time.Duration `json:"load_ns,omitempty"`
	// Cost is what the model cost on this host, measured on the trials it
	// ran; nil before toolgrade measured it.
	Cost *Cost `json:"cost,omitempty"`
}

// HostDrift says how the hosts of m differ in Ollama version or model
// digest, one line each; nil when they agree (or there is one host).
func (m *Model) HostDrift() []string {
	var out []string
	for _, f := range []struct {
		what string
		get  func(ModelHost) string
	}{{"Ollama version", func(h ModelHost) string { return h.Version }}, {"digest", func(h ModelHost) string { return h.Digest }}} {
		seen := map[string][]string{}
		var order []string
		for _, h := range m.Hosts {
			v := f.get(h)
			if _, ok := seen[v]; !ok {
				order = append(order, v)
			}
			seen[v] = append(seen[v], h.Host)
		}
		if len(order) < 2 {
			continue
		}
		parts := make([]string, len(order))
		for i, v := range order {
			parts[i] = fmt.Sprintf("%s on %s", cmp.Or(v, "(unknown)"), strings.Join(seen[v], ", "))
		}
		out = append(out, fmt.Sprintf("hosts of %s differ in %s: %s", m.Name, f.what, strings.Join(parts, "; ")))
	}
	return out
}

// Supports reports whether the model lists capability c ("tools", "thinking").
func (m *Model) Supports(c string) bool { return slices.Contains(m.Capabilities, c) }

// Files of a run directory.
const (
	RunFile     = "run.json"
	TrialsFile  = "trials.jsonl"
	SummaryFile = "summary.json"
)

// TranscriptsFile is the file of a `serve --record` directory: one
// Transcript a line, appended as each conversation ends, with no format
// field (a Transcript has none).
const TranscriptsFile = "transcripts.jsonl"

// MarkdownFile is the run's Markdown report, which `run` writes when it ends.
const MarkdownFile = "report.md"

// HTMLFile is the run's HTML report, which `run` writes when it ends.
const HTMLFile = "report.html"

// WriteRun writes run.json into dir atomically (see WriteAtomic).
func WriteRun(dir string, r *Run) error {
	b, err := json.MarshalIndent(runFile{Format: Format, Run: r}, "", "  ")
	if err != nil {
		return err
	}
	return WriteAtomic(filepath.Join(dir, RunFile), append(b, '\n'))
}

// WriteAtomic writes b to path as WriteAtomicWith does.
func WriteAtomic(path string, b []byte) error {
	return WriteAtomicWith(path, func(w io.Writer) error {
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	})
}

// WriteAtomicWith runs write on path+".tmp" and renames it over path once
// write succeeded, so a reader of path never sees half a file (a crash, a
// full disk) and a failed write leaves the old file in place. The temporary
// file is removed when anything fails; write's own error is returned as it
// is, the file system's are wrapped with the path.
func WriteAtomicWith(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", path, cerr)
	}
	if err == nil {
		if rerr := os.Rename(tmp, path); rerr != nil {
			err = fmt.Errorf("writing %s: %w", path, rerr)
		}
	}
	if err != nil {
		// A full disk leaves a partial tmp file: it is noise in the run.
		os.Remove(tmp)
		return err
	}
	return nil
}

// AbsPath is p made absolute, as run.json records the paths a run was given
// (its suite, its JUnit file, where it was rescored from); p as it is when
// the working directory cannot be read.
func AbsPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// runFile is run.json: the run and the format it is written in.
type runFile struct {
	Format string `json:"format,omitempty"`
	*Run
}

// ReadRun reads dir/run.json. A newer major format is a *FormatError.
func ReadRun(dir string) (*Run, error) {
	p := filepath.Join(dir, RunFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var r Run
	f := runFile{Run: &r}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if err := CheckFormat(f.Format); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &r, nil
}

// SameWeights says, for each set of m's models that share one digest (the
// same weights under several names, as `ollama cp` makes them), that they
// are one model, one line each in run order; nil when every digest differs
// or is unknown.
func SameWeights(m []Model) []string {
	names := map[string][]string{}
	var order []string
	for _, x := range m {
		if x.Digest == "" || slices.Contains(names[x.Digest], x.Name) {
			continue
		}
		if names[x.Digest] == nil {
			order = append(order, x.Digest)
		}
		names[x.Digest] = append(names[x.Digest], x.Name)
	}
	var out []string
	for _, d := range order {
		if n := names[d]; len(n) > 1 {
			out = append(out, fmt.Sprintf("%s are the same weights (digest %s): differences between them are noise", andList(n), shortDigest(d)))
		}
	}
	return out
}

// andList is "a and b", "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// shortDigest is a digest's first 8 hex digits, without its "sha256:".
func shortDigest(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	return d[:min(8, len(d))]
}
