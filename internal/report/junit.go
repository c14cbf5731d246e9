package report

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// JUnit accumulates a run's trials into a JUnit XML report for CI: one
// testsuite per model (and variant, when the run has variants), one testcase
// per case, its repeats counted as k of n in its messages.
//
// A testcase fails (<failure>) when none of its scored trials passed. A
// flaky case, passing in some repeats and failing in others, passes, as Maven
// Surefire reports a test that passed on a rerun: one <flakyFailure> per
// failing repeat shown (Surefire's extended schema, read by Jenkins), and the
// k/n in <system-out> for readers that know no flakyFailure. Trials hit by an
// infrastructure error are an <error>, never a failure; a case with a failure
// and an infrastructure error carries both and counts as a failure.
//
// Memory grows with models × variants × cases, never with trials: a case
// keeps its counts and the details of its first few failing repeats.
type JUnit struct {
	run      *record.Run
	opts     JUnitOptions
	suites   map[rowKey]*junitSuiteAcc
	order    []string            // models in run order, then as they appear
	variants map[string][]string // each model's variants as they appear
	digests  map[string]string
}

// JUnitOptions are the settings of a JUnit report; the zero value is the
// defaults.
type JUnitOptions struct {
	// Name is the testsuites element's name; "" is "toolgrade SUITE".
	Name string
	// MaxDetails is how many failing (and how many infrastructure-failed)
	// repeats of one case the report shows in full, the lowest repeats;
	// 0 is 3.
	MaxDetails int
}

type junitSuiteAcc struct {
	cases map[string]*junitCaseAcc
	start time.Time // the earliest trial's
}

// junitCaseAcc is one case's repeats under one model and variant.
type junitCaseAcc struct {
	pass, scored, infra int
	// truncated counts the trials kept out because a prompt reached
	// num_ctx: neither a failure nor an error, said in system-out.
	truncated int
	// judged counts the judge's verdicts on the answers (k passed of n)
	// and its errors: said in system-out, never a failure.
	judged      tally
	judgeErrors int
	// failedPasses counts the passes in which the model was given an
	// error for a call, failedPass the lowest one's: said in system-out,
	// so such a pass is never silent.
	failedPasses     int
	failedPass       *junitDetail
	outcomes         map[string]int
	wall             time.Duration
	failures, errors []junitDetail // the lowest repeats, at most MaxDetails
}

type junitDetail struct {
	repeat  int
	outcome string
	detail  string
}

// NewJUnit returns an empty JUnit report of run (its suite, models in order,
// digests and status); opts nil is the defaults.
func NewJUnit(run *record.Run, opts *JUnitOptions) *JUnit {
	j := &JUnit{run: run, suites: map[rowKey]*junitSuiteAcc{}, variants: map[string][]string{}, digests: map[string]string{}}
	if opts != nil {
		j.opts = *opts
	}
	if j.opts.MaxDetails <= 0 {
		j.opts.MaxDetails = 3
	}
	for _, m := range run.Models {
		j.digests[m.Name] = m.Digest
		j.suite(m.Name, "")
	}
	return j
}

func (j *JUnit) suite(model, variant string) *junitSuiteAcc {
	k := rowKey{model, variant}
	if s, ok := j.suites[k]; ok {
		return s
	}
	s := &junitSuiteAcc{cases: map[string]*junitCaseAcc{}}
	j.suites[k] = s
	if _, ok := j.variants[model]; !ok {
		j.order = append(j.order, model)
	}
	j.variants[model] = append(j.variants[model], variant)
	return s
}

// Add counts one trial.
func (j *JUnit) Add(t *record.Trial) {
	s := j.suite(t.Model, t.Variant)
	if !t.Start.IsZero() && (s.start.IsZero() || t.Start.Before(s.start)) {
		s.start = t.Start
	}
	c := s.cases[t.CaseID]
	if c == nil {
		c = &junitCaseAcc{outcomes: map[string]int{}}
		s.cases[t.CaseID] = c
	}
	if t.Transcript != nil && !t.IsCopy() { // a copy took no time
		c.wall += t.Transcript.Wall
	}
	d := junitDetail{repeat: t.Repeat, outcome: t.Score.Outcome, detail: t.Score.Detail}
	// The judgement is the record's, so this report counts as the summary
	// and the gates do.
	jd := record.JudgeWith(t, record.JudgeOptionsOf(j.run))
	c.judged.add(jd.Judged)
	if jd.JudgeError {
		c.judgeErrors++
	}
	switch {
	case jd.Excluded:
		c.truncated++
	case jd.Infra:
		c.infra++
		c.errors = keepLowest(c.errors, d, j.opts.MaxDetails)
	case jd.Pass.OK:
		c.scored++
		c.pass++
		if jd.FailedCall.OK {
			c.failedPasses++
			if c.failedPass == nil || t.Repeat < c.failedPass.repeat {
				c.failedPass = &junitDetail{repeat: t.Repeat, detail: summary.FailedCallDetail(t)}
			}
		}
	default:
		c.scored++
		c.outcomes[d.outcome]++
		c.failures = keepLowest(c.failures, d, j.opts.MaxDetails)
	}
}

// keepLowest inserts d into list, sorted by repeat, keeping the lowest max,
// so the report does not depend on the order parallel trials finished in.
func keepLowest(list []junitDetail, d junitDetail, max int) []junitDetail {
	i, _ := slices.BinarySearchFunc(list, d, func(a, b junitDetail) int { return cmp.Compare(a.repeat, b.repeat) })
	if i >= max {
		return list
	}
	list = slices.Insert(list, i, d)
	if len(list) > max {
		list = list[:max]
	}
	return list
}

// The JUnit XML elements, named as gotestsum's internal/junitxml names them,
// with Surefire's flakyFailure; attributes in the order of the Jenkins
// junit-10.xsd, which internal/report/testdata/junit.xsd follows.
type junitTestSuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr,omitempty"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []junitTestSuite `xml:"testsuite"`
}

type junitTestSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitResult  `xml:"failure,omitempty"`
	Error     *junitResult  `xml:"error,omitempty"`
	Flaky     []junitRerun  `xml:"flakyFailure,omitempty"`
	SystemOut *junitCharset `xml:"system-out,omitempty"`
}

// junitResult is a <failure> or an <error>: a one-line message, the
// outcome as its type, the details as its text.
type junitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitRerun is Surefire's flakyFailure: one failing run of a test that
// also passed; the detail goes in stackTrace, where Surefire puts it.
type junitRerun struct {
	Message    string `xml:"message,attr"`
	Type       string `xml:"type,attr"`
	StackTrace string `xml:"stackTrace,omitempty"`
}

type junitCharset struct {
	Text string `xml:",chardata"`
}

// Write writes the report so far as an XML document. Everything in it comes
// from the trials and run.json (times are the trials' own), so the same run
// gives the same bytes.
func (j *JUnit) Write(w io.Writer) error {
	doc := j.generate()
	b, err := xml.MarshalIndent(doc, "", "\t")
	if err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	var out bytes.Buffer
	out.WriteString(xml.Header)
	out.Write(b)
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

func (j *JUnit) generate() junitTestSuites {
	doc := junitTestSuites{Name: xmlSafe(cmp.Or(j.opts.Name, "toolgrade "+j.run.Suite.Name))}
	hasVariants := false
	for k, s := range j.suites {
		if k.variant != "" && len(s.cases) > 0 {
			hasVariants = true
		}
	}
	var total time.Duration
	for _, model := range j.order {
		variants := slices.Clone(j.variants[model])
		slices.Sort(variants) // "" (the base) first
		for _, v := range variants {
			acc := j.suites[rowKey{model, v}]
			// As in the summary: a model listed in run.json but run only
			// with other variants has no base suite.
			if v == "" && len(acc.cases) == 0 && len(variants) > 1 {
				continue
			}
			s, wall := j.testSuite(model, v, hasVariants, acc)
			total += wall
			doc.Tests += s.Tests
			doc.Failures += s.Failures
			doc.Errors += s.Errors
			doc.Suites = append(doc.Suites, s)
		}
	}
	doc.Time = seconds(total)
	return doc
}

func (j *JUnit) testSuite(model, variant string, hasVariants bool, acc *junitSuiteAcc) (junitTestSuite, time.Duration) {
	name := xmlSafe((&summary.ModelSummary{Model: model, Variant: variant}).Label(hasVariants))
	s := junitTestSuite{Name: name, Cases: []junitTestCase{}}
	if !acc.start.IsZero() {
		s.Timestamp = acc.start.UTC().Format(time.RFC3339)
	}
	props := [][2]string{{"suite", j.run.Suite.Name}, {"model", model}}
	if d := j.digests[model]; d != "" {
		props = append(props, [2]string{"model.digest", d})
	}
	if hasVariants {
		props = append(props, [2]string{"variant", cmp.Or(variant, "base")})
	}
	props = append(props, [2]string{"toolgrade.version", j.run.Harness}, [2]string{"run.status", j.run.Status})
	for _, sk := range summary.Skipped(j.run) {
		props = append(props, [2]string{"server." + sk.Name + ".skipped", skippedServerText(sk)})
	}
	for _, p := range props {
		if p[1] == "" {
			continue // unknown, as in a run.json written before it was recorded
		}
		s.Properties = append(s.Properties, junitProperty{Name: p[0], Value: xmlSafe(p[1])})
	}
	var wall time.Duration
	for _, id := range slices.Sorted(maps.Keys(acc.cases)) {
		c := acc.cases[id]
		tc := j.testCase(name, id, c)
		wall += c.wall
		s.Tests++
		switch {
		case tc.Failure != nil:
			s.Failures++
		case tc.Error != nil:
			s.Errors++
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Time = seconds(wall)
	return s, wall
}

func (j *JUnit) testCase(suite, id string, c *junitCaseAcc) junitTestCase {
	tc := junitTestCase{Name: xmlSafe(id), Classname: suite, Time: seconds(c.wall)}
	kn := fmt.Sprintf("%d/%d passed", c.pass, c.scored)
	var out []string
	if c.scored > 0 {
		switch stats.Label(c.scored, c.pass) {
		case stats.StablePass:
			out = append(out, kn)
		case stats.StableFail:
			tc.Failure = &junitResult{
				Message: xmlSafe(kn + ": " + outcomeCounts(c.outcomes)),
				Type:    mostCommon(c.outcomes),
				Text:    xmlSafe(detailText(c.failures, c.scored-c.pass)),
			}
		default:
			out = append(out, fmt.Sprintf("flaky: %s; failing: %s", kn, outcomeCounts(c.outcomes)))
			for _, f := range c.failures {
				tc.Flaky = append(tc.Flaky, junitRerun{
					Message:    xmlSafe(fmt.Sprintf("repeat #%d: %s", f.repeat, f.outcome)),
					Type:       xmlSafe(f.outcome),
					StackTrace: xmlSafe(f.detail),
				})
			}
		}
	}
	if c.infra > 0 {
		tc.Error = &junitResult{
			Message: fmt.Sprintf("%d of %s hit %s", c.infra, termtext.Count(c.infra+c.scored, "trial"),
				termtext.Plural(c.infra, "an infrastructure error (not a model failure)", "infrastructure errors (not model failures)")),
			Type: record.OutcomeInfraError,
			Text: xmlSafe(detailText(c.errors, c.infra)),
		}
	}
	if c.truncated > 0 {
		out = append(out, fmt.Sprintf("%s not judged: a prompt reached num_ctx, so the model may never have seen its tools (raise num_ctx; --keep-truncated counts %s)",
			termtext.Count(c.truncated, "trial"), termtext.Plural(c.truncated, "it", "them")))
	}
	out = append(out, judgedText(c)...)
	if f := c.failedPass; f != nil {
		out = append(out, fmt.Sprintf("%d of %s passed although a call failed (its answer rests on no result of that call); repeat #%d: %s",
			c.failedPasses, strconv.Itoa(c.pass)+" "+termtext.Plural(c.pass, "pass", "passes"), f.repeat, f.detail))
	}
	if len(out) > 0 {
		tc.SystemOut = &junitCharset{Text: xmlSafe(strings.Join(out, "\n"))}
	}
	return tc
}

// outcomeCounts is "wrong_tool 2, no_call 1", in report order.
func outcomeCounts(counts map[string]int) string {
	var parts []string
	for _, o := range record.Outcomes {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	return strings.Join(parts, ", ")
}

// mostCommon is the outcome with the most trials, the first in report
// order on a tie.
func mostCommon(counts map[string]int) string {
	best := ""
	for _, o := range record.Outcomes {
		if counts[o] > counts[best] {
			best = o
		}
	}
	return best
}

// detailText is one paragraph per kept repeat, then how many were left out.
func detailText(list []junitDetail, total int) string {
	var b strings.Builder
	for _, d := range list {
		fmt.Fprintf(&b, "repeat #%d: %s", d.repeat, d.outcome)
		if d.detail != "" {
			b.WriteString(": " + d.detail)
		}
		b.WriteByte('\n')
	}
	if n := total - len(list); n > 0 {
		fmt.Fprintf(&b, "(%d more not shown)\n", n)
	}
	return b.String()
}

// seconds is a duration as JUnit times are written: seconds to the
// millisecond, as Surefire writes them; Jenkins' junit-10.xsd allows no more
// decimals (gotestsum's six do not validate against it).
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// xmlSafe returns s with every character XML 1.0 forbids (C0 controls other
// than tab, newline and carriage return; U+FFFE, U+FFFF; bytes that are not
// UTF-8), and those a terminal would act on (carriage return, C1, bidi
// overrides: see termtext.Printable), written as escapes such as \x1b. encoding/xml
// would turn the forbidden ones into U+FFFD, losing what the model wrote; the rest it escapes itself.
func xmlSafe(s string) string { return termtext.Escape(s, xmlUnsafe) }

func xmlUnsafe(r rune) bool { return termtext.Unsafe(r) || r == 0xfffe || r == 0xffff }

// tally is k met of n judged.
type tally struct{ k, n int }

func (t *tally) add(j record.Judgement) {
	if j.Defined {
		t.n++
		if j.OK {
			t.k++
		}
	}
}

// judgedText is what the judge model said of a case's answers, for
// system-out: a judged answer is its own rate, never the test's verdict.
func judgedText(c *junitCaseAcc) []string {
	var out []string
	if c.judged.n > 0 {
		out = append(out, fmt.Sprintf("judged: %d/%d answers pass the rubric (the judge model's verdict; the outcome is the matcher's)", c.judged.k, c.judged.n))
	}
	if c.judgeErrors > 0 {
		out = append(out, termtext.Count(c.judgeErrors, "judge error")+": the judge failed on the answer (not a model failure)")
	}
	return out
}
