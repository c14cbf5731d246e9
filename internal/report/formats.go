package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// Kind is what a format writes: one of the things toolgrade computes.
type Kind int

const (
	// KindRun is a run's report: `report`, and the files `run` leaves.
	KindRun Kind = iota
	// KindComparison is two runs, models or variants paired: `compare`.
	KindComparison
	// KindSweep is a sweep's points paired along an axis: `compare --sweep`.
	KindSweep
	// KindChoice is a run's models, frontier and recommendation: `choose`.
	KindChoice
	// KindPlan is the pairs a margin takes: `plan`.
	KindPlan
)

// noun is how an error names what a kind is written as.
func (k Kind) noun() string {
	return [...]string{"a run's report", "a comparison", "a sweep's comparison", "a choice", "a plan"}[k]
}

// Run is a run to report on: its directory, and its summary, made by the
// caller (internal/runs summarizes a run; this package only renders), on
// demand since HTML and JUnit read the trials instead.
type Run struct {
	Reader *store.Reader
	// Summary gives the run's summary; only the formats that show one call
	// it.
	Summary func() (*summary.Summary, error)
	// Warn gets the warnings of reading the trials; nil: io.Discard.
	Warn io.Writer
}

// A Format is one way toolgrade writes what it computed: the name --format
// takes, the file a run leaves in it, and a writer for each kind it can
// write (nil: it cannot).
type Format struct {
	// Name is the name --format takes; Aliases are its other spellings.
	Name    string
	Aliases []string
	// File is the report a run leaves in its directory in this format
	// (report.md, report.html); "": none (the terminal report goes to
	// stdout, summary.json is the summary's, JUnit goes where --junit says).
	File string

	Run        func(io.Writer, *Run) error
	Comparison func(io.Writer, *compare.Comparison) error
	Sweep      func(io.Writer, *compare.SweepComparison) error
	Choice     func(io.Writer, *choose.Choice) error
	Plan       func(io.Writer, *compare.Plan) error
}

// Writes says whether f can write k.
func (f *Format) Writes(k Kind) bool {
	switch k {
	case KindRun:
		return f.Run != nil
	case KindComparison:
		return f.Comparison != nil
	case KindSweep:
		return f.Sweep != nil
	case KindChoice:
		return f.Choice != nil
	case KindPlan:
		return f.Plan != nil
	}
	return false
}

// Formats is the one registry of formats, in the order usage lists them:
// every command that takes --format (and plan's --json) asks it, so a
// format and what it can write are said once.
func Formats() []*Format {
	return []*Format{{
		Name: "terminal", Aliases: []string{"text"},
		Run:        writeRunTerminal,
		Comparison: WriteCompareTerminal, Sweep: WriteSweepCompareTerminal,
		Choice: WriteChooseTerminal, Plan: WritePlanTerminal,
	}, {
		Name:       "json",
		Run:        writeRunJSON,
		Comparison: WriteCompareJSON, Sweep: WriteSweepCompareJSON,
		Choice: WriteChooseJSON, Plan: WritePlanJSON,
	}, {
		Name: "markdown", Aliases: []string{"md"}, File: record.MarkdownFile,
		Run:   writeRunMarkdown,
		Sweep: WriteSweepCompareMarkdown, Choice: WriteChooseMarkdown,
	}, {
		Name: "junit",
		Run:  func(w io.Writer, r *Run) error { return WriteRunJUnit(w, r.Reader, orDiscard(r.Warn)) },
	}, {
		Name: "html", File: record.HTMLFile,
		Run:        func(w io.Writer, r *Run) error { return WriteRunHTML(w, r.Reader, orDiscard(r.Warn)) },
		Comparison: WriteCompareHTML, Choice: WriteChooseHTML,
	}}
}

// Names are the names of the formats that write k, in the registry's
// order, aliases left out.
func Names(k Kind) []string {
	var out []string
	for _, f := range Formats() {
		if f.Writes(k) {
			out = append(out, f.Name)
		}
	}
	return out
}

// Find is the format named name (or one of its aliases) that writes k. A
// name no format has, or whose format cannot write k, is a
// *cli.UsageError that lists the formats k can be written in, with a
// did-you-mean for a typo.
func Find(name string, k Kind) (*Format, error) {
	var known []string
	for _, f := range Formats() {
		if f.Name != name && !slices.Contains(f.Aliases, name) {
			if f.Writes(k) {
				known = append(known, f.Name)
				known = append(known, f.Aliases...)
			}
			continue
		}
		if f.Writes(k) {
			return f, nil
		}
		return nil, cli.Usagef("--format %s: %s is written as %s", name, k.noun(), List(k))
	}
	return nil, cli.Usagef("--format %q: want one of %s%s", name, strings.Join(Names(k), ", "), typo(name, known))
}

// typo is ` (did you mean "x"?)` for a plausible typo of one of known.
func typo(name string, known []string) string {
	if s := srcpos.Suggest(name, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// List is the formats that write k as a sentence says them: "terminal,
// json or html".
func List(k Kind) string {
	names := Names(k)
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// writeRunTerminal is a run's terminal report (WriteRunTerminal).
func writeRunTerminal(w io.Writer, r *Run) error {
	sum, err := r.Summary()
	if err != nil {
		return err
	}
	return WriteRunTerminal(w, r.Reader, sum)
}

// writeRunJSON is a run's summary.json.
func writeRunJSON(w io.Writer, r *Run) error {
	sum, err := r.Summary()
	if err != nil {
		return err
	}
	return summary.WriteJSON(w, sum)
}

// writeRunMarkdown is a run's report.md.
func writeRunMarkdown(w io.Writer, r *Run) error {
	sum, err := r.Summary()
	if err != nil {
		return err
	}
	return WriteMarkdown(w, sum, RunMarkdownOptions(r.Reader))
}
