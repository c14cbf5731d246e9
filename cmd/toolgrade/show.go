package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/reports"
	"golang.org/x/term"
)

// The --outcome values beside the outcomes: outcomeFail is every scored
// trial that did not pass, whatever its outcome; outcomeTruncated every
// trial whose prompt reached num_ctx, which the rates leave out.
const (
	outcomeFail      = "fail"
	outcomeTruncated = "truncated"
)

func runShow(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("show", "DIR | SHARD_DIR...", stderr)
	var f showFilter
	fs.StringVar(&f.model, "model", "", "show only the trials of this model: a `NAME`, or a glob such as 'qwen3:*'")
	fs.StringVar(&f.variant, "variant", "", "show only the trials of this variant (`NAME`; base: the servers' own descriptions), or a glob")
	fs.StringVar(&f.caseID, "case", "", "show only the trials of this case: an `ID`, or a glob such as 'menu-*'")
	fs.Var(&f.repeat, "repeat", "show only repeat `N` of each case (0 is the first)")
	outcomes := fs.String("outcome", "", "show only the trials with one of these `outcomes` (comma-separated; fail: every scored trial that did not pass)")
	colorMode := fs.String("color", "auto", "colour: auto (on a terminal, unless NO_COLOR is set), always or never")
	full := fs.Bool("full", false, "show every tool result and argument whole instead of cutting long ones")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErrorf("show: give a run directory, or the shard directories of one run")
	}
	if err := f.setOutcomes(*outcomes); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	color, err := colorOn(*colorMode, stdout, os.Getenv)
	if err != nil {
		return err
	}
	run, err := openRuns("show", pos, stderr)
	if err != nil {
		return err
	}
	f.judge = record.JudgeOptionsOf(run.Run)
	out := bufio.NewWriter(stdout)
	p := reports.NewTranscriptPrinter(out, &reports.TranscriptOptions{Color: color, Full: *full})
	seen := newShowSeen()
	// Trials streams one trial at a time, so only the one being printed
	// is held, whatever the size of the run.
	if err := eachTrial(run, stderr, func(t *record.Trial) {
		seen.add(t, &f)
		if ctx.Err() == nil && f.match(t) {
			p.Add(t)
		}
	}); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.Count() == 0 {
		return f.noMatch(run.Dir, seen)
	}
	return nil
}

// colorOn decides whether show colours its output: always and never say so;
// auto colours when w is a terminal, unless NO_COLOR is set to anything (as
// no-color.org asks) or TERM is dumb. A flag beats the environment, so
// always colours even under NO_COLOR.
func colorOn(mode string, w io.Writer, getenv func(string) string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
			return false, nil
		}
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, usageErrorf("--color %q: must be auto, always or never", mode)
}

// showFilter is the trials show selects: every filter given must match.
type showFilter struct {
	model, variant, caseID string
	repeat                 optionalInt
	outcomes               []string
	// judge is the run's options, which say whether a trial is a failure
	// (--outcome fail) as its reports count it.
	judge record.JudgeOptions
}

func (f *showFilter) setOutcomes(list string) error {
	if list == "" {
		return nil
	}
	known := append(slices.Clone(record.Outcomes), outcomeFail, outcomeTruncated)
	for o := range strings.SplitSeq(list, ",") {
		o = strings.TrimSpace(o)
		if !slices.Contains(known, o) {
			return usageErrorf("--outcome: %s", srcpos.Unknown("outcome", o, known))
		}
		f.outcomes = append(f.outcomes, o)
	}
	return nil
}

// check refuses a glob path.Match cannot read, before any trial is read.
func (f *showFilter) check() error {
	for _, g := range []struct{ flag, pattern string }{{"model", f.model}, {"variant", f.variant}, {"case", f.caseID}} {
		if _, err := path.Match(g.pattern, ""); err != nil {
			return usageErrorf("--%s %q: %v", g.flag, g.pattern, err)
		}
	}
	return nil
}

// nameMatches: an empty pattern matches everything; a name matches itself
// exactly, or a path.Match glob (so a model name holding '[' still matches
// itself).
func nameMatches(pattern, name string) bool {
	if pattern == "" || pattern == name {
		return true
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// variantName is a trial's variant as the flags name it: base for the
// servers' own descriptions.
func variantName(t *record.Trial) string {
	if t.Variant == "" {
		return "base"
	}
	return t.Variant
}

func (f *showFilter) matchModel(t *record.Trial) bool { return nameMatches(f.model, t.Model) }
func (f *showFilter) matchVariant(t *record.Trial) bool {
	return nameMatches(f.variant, variantName(t))
}
func (f *showFilter) matchCase(t *record.Trial) bool { return nameMatches(f.caseID, t.CaseID) }
func (f *showFilter) matchRepeat(t *record.Trial) bool {
	return !f.repeat.set || f.repeat.n == t.Repeat
}

func (f *showFilter) matchOutcome(t *record.Trial) bool {
	if len(f.outcomes) == 0 {
		return true
	}
	if slices.Contains(f.outcomes, t.Score.Outcome) || (t.Score.Truncated && slices.Contains(f.outcomes, outcomeTruncated)) {
		return true
	}
	j := record.JudgeWith(t, f.judge)
	return slices.Contains(f.outcomes, outcomeFail) && j.Pass.Defined && !j.Pass.OK
}

func (f *showFilter) match(t *record.Trial) bool {
	return f.matchModel(t) && f.matchVariant(t) && f.matchCase(t) && f.matchRepeat(t) && f.matchOutcome(t)
}

// showSeen is what show learns of a run while streaming it, so that a
// filter matching nothing can say what the run holds: names, never
// transcripts.
type showSeen struct {
	trials                 int
	models, variants, ids  []string
	known                  map[string]bool // "model\x00name", "variant\x00name", "case\x00id"
	maxRepeat              int
	model, variant, caseID bool // some trial matched that filter alone
	repeat, outcome        bool
	// rest counts the outcomes of the trials matching every filter but
	// --outcome.
	rest map[string]int
}

func newShowSeen() *showSeen {
	return &showSeen{known: map[string]bool{}, rest: map[string]int{}, maxRepeat: -1}
}

func (s *showSeen) note(kind, name string, list *[]string) {
	if k := kind + "\x00" + name; !s.known[k] {
		s.known[k] = true
		*list = append(*list, name)
	}
}

func (s *showSeen) add(t *record.Trial, f *showFilter) {
	s.trials++
	s.note("model", t.Model, &s.models)
	s.note("variant", variantName(t), &s.variants)
	s.note("case", t.CaseID, &s.ids)
	s.maxRepeat = max(s.maxRepeat, t.Repeat)
	s.model = s.model || f.matchModel(t)
	s.variant = s.variant || f.matchVariant(t)
	s.caseID = s.caseID || f.matchCase(t)
	s.repeat = s.repeat || f.matchRepeat(t)
	s.outcome = s.outcome || f.matchOutcome(t)
	if f.matchModel(t) && f.matchVariant(t) && f.matchCase(t) && f.matchRepeat(t) {
		s.rest[t.Score.Outcome]++
	}
}

// noMatch is the error when no trial matched: a usage error (exit 2) naming
// each filter that matches no trial of the run with what the run holds and
// did-you-mean, else (every filter matches some trial, but none matches
// them all) a plain failure (exit 1) with the outcomes the other filters
// leave, as grep exits 1 when nothing matches.
func (f *showFilter) noMatch(dir string, s *showSeen) error {
	if s.trials == 0 {
		return fmt.Errorf("show: %s has no trials yet", dir)
	}
	var typos []string
	if !s.model {
		typos = append(typos, noName("model", f.model, s.models))
	}
	if !s.variant {
		typos = append(typos, noName("variant", f.variant, s.variants))
	}
	if !s.caseID {
		typos = append(typos, noName("case", f.caseID, s.ids))
	}
	if !s.repeat {
		typos = append(typos, fmt.Sprintf("no trial has --repeat %d (repeats of the run: 0 to %d)", f.repeat.n, s.maxRepeat))
	}
	if len(typos) > 0 {
		return usageErrorf("show: %s", strings.Join(typos, "; "))
	}
	var given []string
	for _, g := range []struct{ flag, v string }{{"model", f.model}, {"variant", f.variant}, {"case", f.caseID}} {
		if g.v != "" {
			given = append(given, "--"+g.flag+" "+g.v)
		}
	}
	if f.repeat.set {
		given = append(given, fmt.Sprintf("--repeat %d", f.repeat.n))
	}
	if len(f.outcomes) == 0 {
		return fmt.Errorf("show: no trial matches %s", strings.Join(given, " "))
	}
	without := "the trials without --outcome"
	if len(given) == 0 {
		without = "the run's trials"
	}
	given = append(given, "--outcome "+strings.Join(f.outcomes, ","))
	// In report order; an outcome of a newer toolgrade after the known ones.
	order := slices.Clone(record.Outcomes)
	for _, o := range slices.Sorted(maps.Keys(s.rest)) {
		if !slices.Contains(order, o) {
			order = append(order, o)
		}
	}
	var have []string
	for _, o := range order {
		if n := s.rest[o]; n > 0 {
			have = append(have, fmt.Sprintf("%s %d", o, n))
		}
	}
	return fmt.Errorf("show: no trial matches %s (outcomes of %s: %s)", strings.Join(given, " "), without, strings.Join(have, ", "))
}

// maxListed is how many names of a run a no-match message lists.
const maxListed = 20

// noName says that a name matches none of a run's: did you mean the
// nearest, else the names the run holds.
func noName(noun, name string, names []string) string {
	msg := fmt.Sprintf("no trial has --%s %q", noun, name)
	if s := srcpos.Suggest(name, names); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	list := names
	more := ""
	if len(list) > maxListed {
		list, more = list[:maxListed], fmt.Sprintf(" and %d more", len(names)-maxListed)
	}
	return fmt.Sprintf("%s (%ss of the run: %s%s)", msg, noun, strings.Join(list, ", "), more)
}

// optionalInt is an int flag that knows whether it was given.
type optionalInt struct {
	n   int
	set bool
}

func (o *optionalInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.n)
}

func (o *optionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a repeat number, 0 or more", s)
	}
	o.n, o.set = n, true
	return nil
}
