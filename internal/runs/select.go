package runs

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// The --outcome values beside the outcomes: outcomeFail is every scored
// trial that did not pass, whatever its outcome; outcomeTruncated every
// trial whose prompt reached num_ctx, which the rates leave out.
const (
	outcomeFail      = "fail"
	outcomeTruncated = "truncated"
)

// TrialFilter is the trials show selects: every filter given must match.
type TrialFilter struct {
	Model, Variant, Case string
	Repeat               OptionalRepeat
	outcomes             []string
	// Judge is the run's options, which say whether a trial is a failure
	// (--outcome fail) as its reports count it.
	Judge record.JudgeOptions
}

func (f *TrialFilter) SetOutcomes(list string) error {
	if list == "" {
		return nil
	}
	known := append(slices.Clone(record.Outcomes), outcomeFail, outcomeTruncated)
	for o := range strings.SplitSeq(list, ",") {
		o = strings.TrimSpace(o)
		if !slices.Contains(known, o) {
			return cli.Usagef("--outcome: %s", srcpos.Unknown("outcome", o, known))
		}
		f.outcomes = append(f.outcomes, o)
	}
	return nil
}

// Check refuses a glob path.Match cannot read, before any trial is read.
func (f *TrialFilter) Check() error {
	for _, g := range []struct{ flag, pattern string }{{"model", f.Model}, {"variant", f.Variant}, {"case", f.Case}} {
		if _, err := path.Match(g.pattern, ""); err != nil {
			return cli.Usagef("--%s %q: %v", g.flag, g.pattern, err)
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

func (f *TrialFilter) matchModel(t *record.Trial) bool { return nameMatches(f.Model, t.Model) }
func (f *TrialFilter) matchVariant(t *record.Trial) bool {
	return nameMatches(f.Variant, variantName(t))
}
func (f *TrialFilter) matchCase(t *record.Trial) bool { return nameMatches(f.Case, t.CaseID) }
func (f *TrialFilter) matchRepeat(t *record.Trial) bool {
	return !f.Repeat.Given || f.Repeat.N == t.Repeat
}

func (f *TrialFilter) matchOutcome(t *record.Trial) bool {
	if len(f.outcomes) == 0 {
		return true
	}
	if slices.Contains(f.outcomes, t.Score.Outcome) || (t.Score.Truncated && slices.Contains(f.outcomes, outcomeTruncated)) {
		return true
	}
	j := record.JudgeWith(t, f.Judge)
	return slices.Contains(f.outcomes, outcomeFail) && j.Pass.Defined && !j.Pass.OK
}

func (f *TrialFilter) Match(t *record.Trial) bool {
	return f.matchModel(t) && f.matchVariant(t) && f.matchCase(t) && f.matchRepeat(t) && f.matchOutcome(t)
}

// TrialsSeen is what show learns of a run while streaming it, so that a
// filter matching nothing can say what the run holds: names, never
// transcripts.
type TrialsSeen struct {
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

func NewTrialsSeen() *TrialsSeen {
	return &TrialsSeen{known: map[string]bool{}, rest: map[string]int{}, maxRepeat: -1}
}

func (s *TrialsSeen) note(kind, name string, list *[]string) {
	if k := kind + "\x00" + name; !s.known[k] {
		s.known[k] = true
		*list = append(*list, name)
	}
}

func (s *TrialsSeen) Add(t *record.Trial, f *TrialFilter) {
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

// NoMatch is the error when no trial matched: a usage error (exit 2) naming
// each filter that matches no trial of the run with what the run holds and
// did-you-mean, else (every filter matches some trial, but none matches
// them all) a plain failure (exit 1) with the outcomes the other filters
// leave, as grep exits 1 when nothing matches.
func (f *TrialFilter) NoMatch(dir string, s *TrialsSeen) error {
	if s.trials == 0 {
		return fmt.Errorf("show: %s has no trials yet", dir)
	}
	var typos []string
	if !s.model {
		typos = append(typos, noName("model", f.Model, s.models))
	}
	if !s.variant {
		typos = append(typos, noName("variant", f.Variant, s.variants))
	}
	if !s.caseID {
		typos = append(typos, noName("case", f.Case, s.ids))
	}
	if !s.repeat {
		typos = append(typos, fmt.Sprintf("no trial has --repeat %d (repeats of the run: 0 to %d)", f.Repeat.N, s.maxRepeat))
	}
	if len(typos) > 0 {
		return cli.Usagef("show: %s", strings.Join(typos, "; "))
	}
	var given []string
	for _, g := range []struct{ flag, v string }{{"model", f.Model}, {"variant", f.Variant}, {"case", f.Case}} {
		if g.v != "" {
			given = append(given, "--"+g.flag+" "+g.v)
		}
	}
	if f.Repeat.Given {
		given = append(given, fmt.Sprintf("--repeat %d", f.Repeat.N))
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

// OptionalRepeat is an int flag that knows whether it was given.
type OptionalRepeat struct {
	N     int
	Given bool
}

func (o *OptionalRepeat) String() string {
	if o == nil || !o.Given {
		return ""
	}
	return strconv.Itoa(o.N)
}

func (o *OptionalRepeat) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a repeat number, 0 or more", s)
	}
	o.N, o.Given = n, true
	return nil
}
