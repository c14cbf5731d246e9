package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgrade/toolgrade/internal/record"
)

func junitOf(t *testing.T, meta *record.Run, trials []*record.Trial, opts *JUnitOptions) []byte {
	t.Helper()
	j := NewJUnit(meta, opts)
	for _, tr := range trials {
		j.Add(tr)
	}
	var b bytes.Buffer
	if err := j.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// xmllint checks the XML document doc against testdata/junit.xsd and
// returns xmllint's complaint, "" when the document is valid.
func xmllint(t *testing.T, doc []byte) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the xmllint check against testdata/junit.xsd")
	}
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatal("xmllint is not installed: install libxml2-utils (.ci/run does)")
	}
	p := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(p, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), p).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v: %s", err, out)
	}
	return ""
}

func TestGoldenJUnit(t *testing.T) {
	meta, trials := fixture(t)
	got := junitOf(t, meta, trials, nil)
	golden(t, gallery+"junit.xml", got)
	// Parallel trials finish in any order; the bytes must not depend on it.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3 {
		shuffled := append([]*record.Trial(nil), trials...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if !bytes.Equal(junitOf(t, meta, shuffled, nil), got) {
			t.Fatal("the JUnit report depends on the order of the trials")
		}
	}
}

// TestJUnitMatchesTheSchema: the fixture's report, and one with every kind
// of testcase and hostile text, validate against testdata/junit.xsd; a
// document that breaks it does not, so the check can fail.
func TestJUnitMatchesTheSchema(t *testing.T) {
	meta, trials := fixture(t)
	if msg := xmllint(t, junitOf(t, meta, trials, nil)); msg != "" {
		t.Errorf("the fixture's report: %s", msg)
	}
	if msg := xmllint(t, junitOf(t, &record.Run{}, kindsOfCases(), nil)); msg != "" {
		t.Errorf("the report of every kind of case: %s", msg)
	}
	if msg := xmllint(t, junitOf(t, &record.Run{}, hostileTrials(), nil)); msg != "" {
		t.Errorf("the report of hostile text: %s", msg)
	}
	bad := `<?xml version="1.0"?><testsuites><testsuite name="m" tests="1" failures="0" errors="0"><testcase time="1"/></testsuite></testsuites>`
	if msg := xmllint(t, []byte(bad)); !strings.Contains(msg, "name") {
		t.Errorf("a testcase without a name passed the schema check: %q", msg)
	}
}

// The parsed form of what the tests read back.
type parsedSuites struct {
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Time     string        `xml:"time,attr"`
	Suites   []parsedSuite `xml:"testsuite"`
}

type parsedSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []parsedCase    `xml:"testcase"`
}

type parsedCase struct {
	Name      string       `xml:"name,attr"`
	Classname string       `xml:"classname,attr"`
	Time      string       `xml:"time,attr"`
	Failure   *junitResult `xml:"failure"`
	Error     *junitResult `xml:"error"`
	Flaky     []junitRerun `xml:"flakyFailure"`
	SystemOut string       `xml:"system-out"`
}

func parseJUnit(t *testing.T, doc []byte) parsedSuites {
	t.Helper()
	var p parsedSuites
	if err := xml.Unmarshal(doc, &p); err != nil {
		t.Fatalf("the report is not XML: %v\n%s", err, doc)
	}
	return p
}

func withDetail(tr *record.Trial, detail string) *record.Trial {
	tr.Score.Detail = detail
	return tr
}

// kindsOfCases: a passing case, a flaky one, a failing one, one that only
// hit infrastructure errors, a failing one with an infrastructure error, and
// a passing one with an infrastructure error.
func kindsOfCases() []*record.Trial {
	p, f, nc, infra := record.OutcomePass, record.OutcomeWrongTool, record.OutcomeNoCall, record.OutcomeInfraError
	return []*record.Trial{
		trial("m", "a-pass", 0, p, true), trial("m", "a-pass", 1, p, true),
		withDetail(trial("m", "b-flaky", 1, f, true), `got "search", want "get"`), trial("m", "b-flaky", 0, p, true),
		withDetail(trial("m", "c-fail", 1, nc, true), "answered without a tool call"),
		withDetail(trial("m", "c-fail", 0, f, true), `got "search", want "get"`),
		withDetail(trial("m", "c-fail", 2, f, true), `got "list", want "get"`),
		withDetail(trial("m", "d-infra", 0, infra, true), "ollama: connection refused"),
		withDetail(trial("m", "e-fail-infra", 0, f, true), "got x"), withDetail(trial("m", "e-fail-infra", 1, infra, true), "stream: no done line"),
		trial("m", "f-pass-infra", 0, p, true), withDetail(trial("m", "f-pass-infra", 1, infra, true), "canceled"),
	}
}

// TestJUnitMarksFlakyAndInfra: every kind of case becomes the testcase the
// JUnit doc comment promises, with k/n in its message, and the counts of
// the suite count each testcase once.
func TestJUnitMarksFlakyAndInfra(t *testing.T) {
	doc := junitOf(t, &record.Run{Suite: record.RunSuite{Name: "x"}}, kindsOfCases(), nil)
	p := parseJUnit(t, doc)
	if len(p.Suites) != 1 {
		t.Fatalf("%d suites:\n%s", len(p.Suites), doc)
	}
	s := p.Suites[0]
	// Failures: c-fail, e-fail-infra; errors: d-infra, f-pass-infra.
	if p.Name != "toolgrade x" || p.Tests != 6 || p.Failures != 2 || p.Errors != 2 || s.Tests != 6 || s.Failures != 2 || s.Errors != 2 {
		t.Errorf("counts: suites %s %d/%d/%d, suite %d/%d/%d\n%s", p.Name, p.Tests, p.Failures, p.Errors, s.Tests, s.Failures, s.Errors, doc)
	}
	// Each trial of trial() took one second.
	if p.Time != "12.000" || s.Time != "12.000" {
		t.Errorf("times %s %s", p.Time, s.Time)
	}
	byName := map[string]parsedCase{}
	for _, c := range s.Cases {
		byName[c.Name] = c
	}
	infra := func(msg, text string) *junitResult {
		return &junitResult{Message: msg, Type: record.OutcomeInfraError, Text: text}
	}
	want := map[string]parsedCase{
		"a-pass": {Time: "2.000", SystemOut: "2/2 passed"},
		"b-flaky": {Time: "2.000", SystemOut: "flaky: 1/2 passed; failing: wrong_tool 1",
			Flaky: []junitRerun{{Message: "repeat #1: wrong_tool", Type: "wrong_tool", StackTrace: `got "search", want "get"`}}},
		"c-fail": {Time: "3.000", Failure: &junitResult{Message: "0/3 passed: wrong_tool 2, no_call 1", Type: "wrong_tool",
			Text: "repeat #0: wrong_tool: got \"search\", want \"get\"\nrepeat #1: no_call: answered without a tool call\nrepeat #2: wrong_tool: got \"list\", want \"get\"\n"}},
		"d-infra": {Time: "1.000", Error: infra("1 of 1 trial hit an infrastructure error (not a model failure)", "repeat #0: infra_error: ollama: connection refused\n")},
		"e-fail-infra": {Time: "2.000", Failure: &junitResult{Message: "0/1 passed: wrong_tool 1", Type: "wrong_tool", Text: "repeat #0: wrong_tool: got x\n"},
			Error: infra("1 of 2 trials hit an infrastructure error (not a model failure)", "repeat #1: infra_error: stream: no done line\n")},
		"f-pass-infra": {Time: "2.000", SystemOut: "1/1 passed", Error: infra("1 of 2 trials hit an infrastructure error (not a model failure)", "repeat #1: infra_error: canceled\n")},
	}
	for name, w := range want {
		w.Name, w.Classname = name, "m"
		if d := cmp.Diff(w, byName[name]); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
	if len(byName) != len(want) {
		t.Errorf("%d testcases, want %d", len(byName), len(want))
	}
}

// hostileTrials carry text that would break XML or a terminal reading it.
func hostileTrials() []*record.Trial {
	return []*record.Trial{
		withDetail(trial("m<&\"'>", "case]]><x>", 0, record.OutcomeWrongAnswer, false),
			"answer: \x1b[2J\x00\x07 ]]> <script>alert(1)</script> & \"q\" \ufffe\xff\u202e \xed\xa0\x80 end"),
		withDetail(trial("m<&\"'>", "case]]><x>", 1, record.OutcomePass, false), ""),
		withDetail(trial("m<&\"'>", "case]]><x>", 2, record.OutcomeWrongAnswer, false), "\x1b]0;title\x07"),
	}
}

// TestJUnitEscapesHostileText: control characters XML forbids are written
// as visible escapes instead of making the document unreadable; markup
// characters and "]]>" come back as the text they were.
func TestJUnitEscapesHostileText(t *testing.T) {
	doc := junitOf(t, &record.Run{}, hostileTrials(), nil)
	for _, raw := range []string{"\x1b", "\x00", "\x07", "\xff", "\xed\xa0\x80", "\ufffe", "\u202e", "<script>", "]]>"} {
		if bytes.Contains(doc, []byte(raw)) {
			t.Errorf("the report holds %q raw:\n%s", raw, doc)
		}
	}
	p := parseJUnit(t, doc)
	c := p.Suites[0].Cases[0]
	if p.Suites[0].Name != "m<&\"'>" || c.Name != "case]]><x>" || c.Classname != "m<&\"'>" {
		t.Errorf("names: suite %q case %q class %q", p.Suites[0].Name, c.Name, c.Classname)
	}
	if len(c.Flaky) != 2 {
		t.Fatalf("flaky failures %+v", c.Flaky)
	}
	want := `answer: \x1b[2J\x00\x07 ]]> <script>alert(1)</script> & "q" \ufffe\xff\u202e \xed\xa0\x80 end`
	if c.Flaky[0].StackTrace != want || c.Flaky[1].StackTrace != `\x1b]0;title\x07` {
		t.Errorf("details:\n%q\n%q\nwant\n%q", c.Flaky[0].StackTrace, c.Flaky[1].StackTrace, want)
	}
}

// TestJUnitRowsPerModelAndVariant: a run with variants has a suite per
// model and variant, named as the summary names its rows, with the variant
// as a property; the base first.
func TestJUnitRowsPerModelAndVariant(t *testing.T) {
	meta := &record.Run{Suite: record.RunSuite{Name: "x"}, Harness: "1.2.3", Status: "interrupted",
		Models: []record.Model{{Name: "m", Digest: "abc"}, {Name: "only-terse"}}}
	terse := func(tr *record.Trial) *record.Trial { tr.Variant = "terse"; return tr }
	start := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	first := trial("m", "a", 0, record.OutcomePass, true)
	first.Start = start.Add(time.Minute)
	early := trial("m", "b", 0, record.OutcomePass, true)
	early.Start = start
	doc := junitOf(t, meta, []*record.Trial{
		terse(trial("m", "a", 0, record.OutcomeWrongTool, true)), first, early,
		terse(trial("only-terse", "a", 0, record.OutcomePass, true)),
	}, &JUnitOptions{Name: "ci"})
	p := parseJUnit(t, doc)
	var names []string
	for _, s := range p.Suites {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ", "); got != "m (base), m (terse), only-terse (terse)" || p.Name != "ci" {
		t.Fatalf("suites %q named %q\n%s", got, p.Name, doc)
	}
	wantProps := []junitProperty{{"suite", "x"}, {"model", "m"}, {"model.digest", "abc"}, {"variant", "base"},
		{"toolgrade.version", "1.2.3"}, {"run.status", "interrupted"}}
	if d := cmp.Diff(wantProps, p.Suites[0].Properties); d != "" {
		t.Errorf("properties (-want +got):\n%s", d)
	}
	if !bytes.Contains(doc, []byte(`<testsuite name="m (base)" tests="2" failures="0" errors="0" skipped="0" time="2.000" timestamp="2026-12-01T08:00:00Z">`)) {
		t.Errorf("the base suite's attributes:\n%s", doc)
	}
	if p.Suites[1].Failures != 1 || p.Suites[1].Cases[0].Classname != "m (terse)" {
		t.Errorf("terse suite %+v", p.Suites[1])
	}
}

// TestJUnitMemoryIsBoundedByCases: a thousand failing repeats of one case
// keep MaxDetails of them, the lowest repeats, and say how many are left out.
func TestJUnitMemoryIsBoundedByCases(t *testing.T) {
	j := NewJUnit(&record.Run{}, &JUnitOptions{MaxDetails: 2})
	for i := range 1000 {
		j.Add(withDetail(trial("m", "c", 999-i, record.OutcomeWrongTool, true), fmt.Sprint("d", 999-i)))
	}
	acc := j.suites[rowKey{"m", ""}].cases["c"]
	if len(acc.failures) != 2 || acc.failures[0].repeat != 0 || acc.failures[1].repeat != 1 {
		t.Fatalf("kept %+v", acc.failures)
	}
	var b bytes.Buffer
	j.Write(&b)
	f := parseJUnit(t, b.Bytes()).Suites[0].Cases[0].Failure
	if f == nil || f.Message != "0/1000 passed: wrong_tool 1000" || f.Text != "repeat #0: wrong_tool: d0\nrepeat #1: wrong_tool: d1\n(998 more not shown)\n" {
		t.Errorf("failure %+v", f)
	}
}

// BenchmarkJUnit100k: the JUnit report of 100,000 trials (the fixture's 100,
// each repeated as 1,000 repeats), written once; its memory is that of the
// fixture's 50 testcases.
func BenchmarkJUnit100k(b *testing.B) {
	meta, err := record.ReadRun("testdata")
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", record.TrialsFile))
	if err != nil {
		b.Fatal(err)
	}
	r := record.NewReader(f, "trials.jsonl")
	var trials []*record.Trial
	for r.Scan() {
		trials = append(trials, r.Trial())
	}
	f.Close()
	copies := make([]record.Trial, len(trials))
	b.ResetTimer()
	for range b.N {
		j := NewJUnit(meta, nil)
		for rep := range 1000 {
			for i, t := range trials {
				copies[i] = *t
				copies[i].Repeat = rep
				j.Add(&copies[i])
			}
		}
		if err := j.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
