package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/report"
)

// headerLine matches the first line of each trial show prints.
var headerLine = regexp.MustCompile(`(?m)^=== (\S+)(?: \((\S+)\))? (\S+) #(\d+) seed \d+  (\S+)$`)

// shown is one trial show printed, read back from its header.
type shown struct{ model, variant, caseID, repeat, outcome string }

func shownTrials(out string) []shown {
	var s []shown
	for _, m := range headerLine.FindAllStringSubmatch(out, -1) {
		s = append(s, shown{m[1], m[2], m[3], m[4], m[5]})
	}
	return s
}

// fixtureTrials reads the recorded run the way show does (the last line
// per key), for the expected counts.
func fixtureTrials(t *testing.T) []*record.Trial {
	t.Helper()
	f, err := os.Open("../../internal/report/testdata/" + record.TrialsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var trials []*record.Trial
	if _, err := record.ReadLast(f, "trials.jsonl", func(tr *record.Trial) { trials = append(trials, tr) }); err != nil {
		t.Fatal(err)
	}
	return trials
}

// TestShowFilters: each filter alone and together selects exactly the
// trials it names, in the file's order.
func TestShowFilters(t *testing.T) {
	t.Parallel()
	dir := recordedRun(t)
	all := fixtureTrials(t)
	judgedFail := func(tr *record.Trial) bool { j := record.Judge(tr); return j.Pass.Defined && !j.Pass.OK }
	for _, c := range []struct {
		name string
		args []string
		want func(*record.Trial) bool
	}{
		{"none", nil, func(*record.Trial) bool { return true }},
		{"model", []string{"--model", "scripted-weak"}, func(tr *record.Trial) bool { return tr.Model == "scripted-weak" }},
		{"model glob", []string{"--model", "*-good"}, func(tr *record.Trial) bool { return tr.Model == "scripted-good" }},
		{"variant base", []string{"--variant", "base"}, func(*record.Trial) bool { return true }},
		{"case", []string{"--case", "dog"}, func(tr *record.Trial) bool { return tr.CaseID == "dog" }},
		{"case glob", []string{"--case", "menu-*"}, func(tr *record.Trial) bool { return strings.HasPrefix(tr.CaseID, "menu-") }},
		{"repeat", []string{"--repeat", "1"}, func(tr *record.Trial) bool { return tr.Repeat == 1 }},
		{"outcome", []string{"--outcome", "wrong_args"}, func(tr *record.Trial) bool { return tr.Score.Outcome == "wrong_args" }},
		{"outcomes", []string{"--outcome", "wrong_args, round_limit"}, func(tr *record.Trial) bool {
			return tr.Score.Outcome == "wrong_args" || tr.Score.Outcome == "round_limit"
		}},
		{"fail", []string{"--outcome", "fail"}, judgedFail},
		{"combined", []string{"--model", "scripted-weak", "--case", "menu-in-full", "--repeat", "0", "--outcome", "wrong_args", "--variant", "base"},
			func(tr *record.Trial) bool {
				return tr.Model == "scripted-weak" && tr.CaseID == "menu-in-full" && tr.Repeat == 0
			}},
		{"model and outcome", []string{"--model", "scripted-weak", "--outcome", "fail", "--repeat", "1"},
			func(tr *record.Trial) bool { return tr.Model == "scripted-weak" && tr.Repeat == 1 && judgedFail(tr) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, context.Background(), append([]string{"show", dir}, c.args...)...)
			if r.code != exitOK {
				t.Fatalf("code %d, err %v\n%s", r.code, r.err, r.stderr)
			}
			var want []shown
			for _, tr := range all {
				if c.want(tr) {
					want = append(want, shown{tr.Model, "", tr.CaseID, itoa(tr.Repeat), tr.Score.Outcome})
				}
			}
			got := shownTrials(r.stdout)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("shown %d trials, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
			}
			if strings.Contains(r.stdout, "\x1b") {
				t.Error("output to a buffer is coloured")
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestShowMatchesThePrinter: show prints exactly what the reports printer
// renders for the trials it selects (the golden files of reports pin the
// rendering itself), plain to a buffer and coloured with --color always.
func TestShowMatchesThePrinter(t *testing.T) {
	dir := recordedRun(t)
	var sel []*record.Trial
	for _, tr := range fixtureTrials(t) {
		if tr.Model == "scripted-weak" && tr.Score.Outcome != record.OutcomePass {
			sel = append(sel, tr)
		}
	}
	for _, color := range []bool{false, true} {
		var want bytes.Buffer
		p := report.NewTranscriptPrinter(&want, &report.TranscriptOptions{Color: color})
		for _, tr := range sel {
			p.Add(tr)
		}
		mode := "never"
		if color {
			mode = "always"
		}
		r := runCLI(t, context.Background(), "show", dir, "--model", "scripted-weak", "--outcome", "fail", "--color", mode)
		if r.code != exitOK || r.stdout != want.String() {
			t.Errorf("--color %s: code %d, err %v; output differs from the printer's: %v", mode, r.code, r.err,
				len(r.stdout) != want.Len())
		}
	}
	r := runCLI(t, context.Background(), "show", dir, "--case", "faq-in-full", "--full")
	if r.code != exitOK || strings.Contains(r.stdout, "--full shows all") || !strings.Contains(r.stdout, "Which payment methods do you accept?") {
		t.Errorf("--full: code %d, err %v\n%s", r.code, r.err, r.stdout)
	}
}

// TestShowLastLineWins: a key written twice (a resumed infra_error) is
// shown once, from its last line.
func TestShowLastLineWins(t *testing.T) {
	t.Parallel()
	dir := recordedRun(t)
	first := fixtureTrials(t)[0]
	again := *first
	again.Score.Outcome = record.OutcomeInfraError
	b, _ := json.Marshal(&again)
	path := filepath.Join(dir, record.TrialsFile)
	old, _ := os.ReadFile(path)
	// The infra line first, the fixture's (pass) line after it.
	if err := os.WriteFile(path, append(append(b, '\n'), old...), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, context.Background(), "show", dir, "--model", first.Model, "--case", first.CaseID, "--repeat", "0")
	got := shownTrials(r.stdout)
	if r.code != exitOK || len(got) != 1 || got[0].outcome != first.Score.Outcome {
		t.Errorf("code %d, err %v, shown %v", r.code, r.err, got)
	}
}

// TestShowHostileAnswer: escape sequences in a recorded answer, tool result
// or name reach the terminal escaped, even with colour on.
func TestShowHostileAnswer(t *testing.T) {
	t.Parallel()
	dir := recordedRun(t)
	tr := fixtureTrials(t)[0]
	tr.CaseID = "evil\x1b]0;title\a"
	tr.Transcript.Answer = "ok\x1b[2J\x1b[H\u202egnp.exe"
	tr.Transcript.Rounds[0].Executions[0].Result = "\x1b[31mred\u009b"
	b, _ := json.Marshal(tr)
	f, err := os.OpenFile(filepath.Join(dir, record.TrialsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(b, '\n'))
	f.Close()
	for _, mode := range []string{"never", "always"} {
		r := runCLI(t, context.Background(), "show", dir, "--case", "evil*", "--color", mode)
		if r.code != exitOK {
			t.Fatalf("code %d, err %v", r.code, r.err)
		}
		// The only escapes left are the printer's SGR codes.
		rest := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(r.stdout, "")
		if strings.ContainsAny(rest, "\x1b\a\u202e\u009b") {
			t.Errorf("--color %s: a control character reached the terminal: %q", mode, r.stdout)
		}
		for _, want := range []string{`evil\x1b]0;title\x07`, `ok\x1b[2J\x1b[H\u202egnp.exe`, `\x1b[31mred\u009b`} {
			if !strings.Contains(rest, want) {
				t.Errorf("--color %s: %q not shown escaped:\n%s", mode, want, rest)
			}
		}
	}
}

// TestColorOn: always and never decide alone; auto colours only a
// terminal, never a buffer or a plain file, and never under NO_COLOR or
// TERM=dumb.
func TestColorOn(t *testing.T) {
	t.Parallel()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	var buf bytes.Buffer
	for _, c := range []struct {
		mode string
		w    any
		env  func(string) string
		want bool
	}{
		{"always", &buf, env(), true},
		{"always", &buf, env("NO_COLOR", "1"), true}, // the flag beats the environment
		{"never", &buf, env(), false},
		{"auto", &buf, env(), false},
		{"auto", file, env(), false},
		{"auto", file, env("NO_COLOR", "1"), false},
	} {
		got, err := colorOn(c.mode, c.w.(interface{ Write([]byte) (int, error) }), c.env)
		if err != nil || got != c.want {
			t.Errorf("%s %T %v: %v %v, want %v", c.mode, c.w, c.env("NO_COLOR"), got, err, c.want)
		}
	}
	pty := openPTY(t)
	if pty == nil {
		return
	}
	for _, c := range []struct {
		env  func(string) string
		want bool
	}{
		{env(), true},
		{env("NO_COLOR", "1"), false},
		{env("NO_COLOR", ""), true}, // set but empty does not count (no-color.org)
		{env("TERM", "dumb"), false},
	} {
		if got, err := colorOn("auto", pty, c.env); err != nil || got != c.want {
			t.Errorf("auto on a terminal, NO_COLOR %q TERM %q: %v %v, want %v", c.env("NO_COLOR"), c.env("TERM"), got, err, c.want)
		}
	}
}

// TestShowVariant: --variant picks a variant's trials by name, base the
// servers' own, and the header names the variant.
func TestShowVariant(t *testing.T) {
	t.Parallel()
	dir := recordedRun(t)
	f, err := os.OpenFile(filepath.Join(dir, record.TrialsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range fixtureTrials(t)[:2] {
		tr.Variant = "terse"
		b, _ := json.Marshal(tr)
		f.Write(append(b, '\n'))
	}
	f.Close()
	r := runCLI(t, context.Background(), "show", dir, "--variant", "terse")
	got := shownTrials(r.stdout)
	if r.code != exitOK || len(got) != 2 || got[0].variant != "terse" || got[1].variant != "terse" {
		t.Errorf("--variant terse: code %d, err %v, shown %v", r.code, r.err, got)
	}
	r = runCLI(t, context.Background(), "show", dir, "--variant", "base")
	got = shownTrials(r.stdout)
	if r.code != exitOK || len(got) != 100 || slices.ContainsFunc(got, func(s shown) bool { return s.variant != "" }) {
		t.Errorf("--variant base: code %d, err %v, %d shown", r.code, r.err, len(got))
	}
	// Each filter matches some trial, but no trial matches both.
	r = runCLI(t, context.Background(), "show", dir, "--variant", "terse", "--case", "parking")
	if want := "show: no trial matches --variant terse --case parking"; r.code != exitFailed || r.err == nil || r.err.Error() != want {
		t.Errorf("code %d, err %v; want exit 1 and %q", r.code, r.err, want)
	}
}

// TestShowFailJudgesAsTheRunRecorded: --outcome fail judges with the run's
// own options: a failing trial whose prompt reached num_ctx counts in no
// rate of a run that excludes such trials, so it is no failure there, and
// it is one in a run recorded with keep_truncated.
func TestShowFailJudgesAsTheRunRecorded(t *testing.T) {
	t.Parallel()
	dir := recordedRun(t)
	var cut *record.Trial
	for _, tr := range fixtureTrials(t) {
		if tr.Score.Outcome != record.OutcomePass && tr.Score.Outcome != record.OutcomeInfraError {
			cut = tr
			break
		}
	}
	cut.CaseID, cut.Score.Truncated = "cut", true
	b, _ := json.Marshal(cut)
	f, err := os.OpenFile(filepath.Join(dir, record.TrialsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(b, '\n'))
	f.Close()
	if r := runCLI(t, context.Background(), "show", dir, "--case", "cut", "--outcome", "fail"); r.code != exitFailed || len(shownTrials(r.stdout)) != 0 {
		t.Errorf("a run excluding truncated trials: code %d, shown %v; want exit %d and none", r.code, shownTrials(r.stdout), exitFailed)
	}
	run, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	run.KeepTruncated = true
	if err := record.WriteRun(dir, run); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, context.Background(), "show", dir, "--case", "cut", "--outcome", "fail")
	if got := shownTrials(r.stdout); r.code != exitOK || len(got) != 1 || got[0].caseID != "cut" {
		t.Errorf("a run keeping truncated trials: code %d, err %v, shown %v; want the truncated failure", r.code, r.err, got)
	}
}
