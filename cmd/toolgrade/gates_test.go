package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/gate"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// recordedRun copies internal/report/testdata (the demo's two scripted models, run
// twice over the docs suite) into a fresh directory, so report may write
// its summary there.
func recordedRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := copyRecordedRun(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyRecordedRun copies internal/report/testdata's run into dir, made if missing.
func copyRecordedRun(dir string) error { return copyRun("../../internal/report/testdata", dir) }

// copyRun copies the run.json and trials.jsonl of the run in from into
// dir, made if missing.
func copyRun(from, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{record.RunFile, record.TrialsFile} {
		b, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n") + "\n"
}

// TestRunGatesEveryMetricFailsWithExit4: against the fake Ollama, the
// scripted-weak model fails one gate of each metric that scripted-good
// holds; the run exits 4 and its last lines on stderr are the failures.
func TestRunGatesEveryMetricFailsWithExit4(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"run", docsSuite(t), "--out", dir, "--ollama", url}
	for _, g := range []string{"pass>=0.9", "selection>=0.95", "arg_validity>=0.99", "arg_accuracy>=0.9", "irrelevance>=0.9",
		"round_limit<=0.03", "p50<=1h", "p95<1ns"} {
		args = append(args, "--gate", g)
	}
	r := runCLI(t, context.Background(), args...)
	if r.code != exitGate {
		t.Fatalf("exit %d (%v), want %d\n%s", r.code, r.err, exitGate, r.stderr)
	}
	wantFailed := "gate failed: scripted-weak pass 44% [26–63] < 90%\n" +
		"gate failed: scripted-weak tool_selection 79% [56–92] < 95%\n" +
		"gate failed: scripted-weak arg_validity 96% [71–100] < 99%\n" +
		"gate failed: scripted-weak arg_accuracy 80% [54–93] < 90%\n" +
		"gate failed: scripted-weak irrelevance 67% [29–91] < 90%\n" +
		"gate failed: scripted-weak round_limit 4% [0–20] > 3%\n"
	// Wall times vary; the p95 gate fails on both models whatever they are.
	latency := regexp.MustCompile(`^gate failed: scripted-(good|weak) p95 [0-9.]+(µs|ms|s) >= 1ns$`)
	tail := strings.Split(strings.TrimRight(lastLines(r.stderr, 8), "\n"), "\n")
	if got := strings.Join(tail[:6], "\n") + "\n"; got != wantFailed {
		t.Errorf("the failed rate gates:\n%s\nwant\n%s\nstderr:\n%s", got, wantFailed, r.stderr)
	}
	for i, m := range []string{"good", "weak"} {
		if l := tail[6+i]; !latency.MatchString(l) || !strings.Contains(l, m) {
			t.Errorf("latency line %q", l)
		}
	}
	for _, held := range []string{
		"gate held: scripted-good pass 100% [86–100] >= 90%\n",
		"gate held: scripted-good tool_selection 100% [83–100] >= 95%\n",
		"gate held: scripted-good arg_validity 100% [81–100] >= 99%\n",
		"gate held: scripted-good arg_accuracy 100% [83–100] >= 90%\n",
		"gate held: scripted-good irrelevance 100% [60–100] >= 90%\n",
		"gate held: scripted-good round_limit 0% [0–14] <= 3%\n",
	} {
		if !strings.Contains(r.stderr, held) {
			t.Errorf("stderr lacks %q", held)
		}
	}
	if n := strings.Count(r.stderr, "gate held: "); n != 8 { // 6 rates of good, p50 of both
		t.Errorf("%d held lines, want 8:\n%s", n, r.stderr)
	}
	// The run itself is complete and its report written: gates judge it,
	// they do not break it.
	if meta, err := record.ReadRun(dir); err != nil || meta.Status != "complete" {
		t.Errorf("run.json: %v %+v", err, meta)
	}
	var b bytes.Buffer
	printError(&b, r.err, false)
	if b.Len() != 0 {
		t.Errorf("printError adds %q after the gate lines", b.String())
	}
}

// TestRunGatesHoldExit0: the same command with gates scripted-good meets
// exits 0, listing them; a recorded run judged offline with --gate-on lower
// fails a gate the point estimate passes.
func TestRunGatesHoldExit0(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--models", "scripted-good",
		"--gate", "pass>=0.9", "--gate", "scripted-good:p95<=1h", "--gate", "round_limit<=5%")
	if r.code != exitOK || r.err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	want := regexp.MustCompile("\ngate held: scripted-good pass 100% \\[86–100\\] >= 90%\n" +
		"gate held: scripted-good p95 [0-9.]+(µs|ms|s) <= 1h0m0s\n" +
		"gate held: scripted-good round_limit 0% \\[0–14\\] <= 5%\n$")
	if !want.MatchString(r.stderr) {
		t.Errorf("stderr:\n%s\nwant it to end\n%s", r.stderr, want)
	}
	rep := runCLI(t, context.Background(), "report", dir, "--gate", "pass>=0.9", "--gate-on", "lower")
	if rep.code != exitGate || !strings.HasSuffix(rep.stderr, "gate failed: scripted-good pass 100% [86–100]: lower bound 86.7% < 90%\n") {
		t.Errorf("report --gate-on lower: exit %d\n%s", rep.code, rep.stderr)
	}
}

// TestGatesJudgeCompleteRunsOnly: a run that did not complete keeps its
// own exit code, whatever gates it was given.
func TestGatesJudgeCompleteRunsOnly(t *testing.T) {
	t.Parallel()
	dir := recordedRun(t)
	b, _ := os.ReadFile(filepath.Join(dir, record.RunFile))
	os.WriteFile(filepath.Join(dir, record.RunFile), bytes.Replace(b, []byte(`"status": "complete"`), []byte(`"status": "interrupted"`), 1), 0o644)
	r := runCLI(t, context.Background(), "report", dir, "--gate", "pass>=0")
	if r.code != exitFailed || !strings.Contains(r.err.Error(), "is interrupted: gates judge complete runs only") || strings.Contains(r.stderr, "gate held") {
		t.Errorf("report --gate on an interrupted run: exit %d: %v\n%s", r.code, r.err, r.stderr)
	}

	// A run whose disk fails part-way exits 1, not 4, though its gate
	// could only fail.
	_, url := fakeOllama(t, nil)
	run := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", run, "--ollama", url, "--models", "scripted-good"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	p := filepath.Join(run, record.TrialsFile)
	os.Remove(p)
	if err := os.Symlink("/dev/full", p); err != nil {
		t.Skip(err)
	}
	r = runCLI(t, context.Background(), "run", "--resume", run, "--ollama", url, "--gate", "p95<1ns")
	if r.code != exitFailed || strings.Contains(r.stderr, "gate ") {
		t.Errorf("a failed run with a gate: exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
}

// TestSuiteGates: a suite's gates: are judged after its run, with --gate
// added to them; a bad one is a usage error at its file:line:col before
// any model runs.
func TestSuiteGates(t *testing.T) {
	t.Parallel()
	fake, url := fakeOllama(t, nil)
	suitePath := docsSuite(t)
	b, _ := os.ReadFile(suitePath)
	withGates := func(gates string) string {
		text := strings.Replace(string(b), "\ncases:\n", "\ngates: "+gates+"\ncases:\n", 1)
		p := filepath.Join(t.TempDir(), "docs.yaml")
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	good := withGates("['pass>=0.9', 'scripted-weak:pass>=0.4']")
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", good, "--out", dir, "--ollama", url, "--gate", "scripted-weak:selection>=0.5")
	want := "gate held: scripted-good pass 100% [86–100] >= 90%\n" +
		"gate held: scripted-weak pass 44% [26–63] >= 40%\n" +
		"gate held: scripted-weak tool_selection 79% [56–92] >= 50%\n" +
		"gate failed: scripted-weak pass 44% [26–63] < 90%\n"
	if r.code != exitGate || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("suite gates: exit %d\n%s\nwant it to end\n%s", r.code, r.stderr, want)
	}
	// report leaves the suite's gates to run: rebuilding the report of the
	// same run judges nothing and exits 0.
	if r := runCLI(t, context.Background(), "report", dir); r.code != exitOK || strings.Contains(r.stderr, "gate") {
		t.Errorf("report of a gated run: exit %d\n%s", r.code, r.stderr)
	}

	fake.Reset()
	bad := withGates("[pass>=0.9, 'scripted-good:pas>=0.9']")
	line := strings.Count(string(b)[:strings.Index(string(b), "\ncases:\n")], "\n") + 2
	r = runCLI(t, context.Background(), "run", bad, "--out", filepath.Join(t.TempDir(), "run"), "--ollama", url)
	wantErr := bad + ":" + strconv.Itoa(line) + ":35: gates[1]: unknown metric \"pas\" (did you mean \"pass\"?)"
	if r.code != exitUsage || r.err.Error() != wantErr {
		t.Errorf("bad suite gate: exit %d: %v\nwant %s", r.code, r.err, wantErr)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests reached Ollama before the bad gate was reported", n)
	}
}

// TestGateFlagsAreCheckedBeforeAnything: bad gate flags are usage errors
// (exit 2) that say what is wrong, before any suite, Ollama or server is
// touched.
func TestGateFlagsAreCheckedBeforeAnything(t *testing.T) {
	t.Parallel()
	base := recordedRun(t)
	missing := filepath.Join(t.TempDir(), "none")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "s.yaml", "--gate", "pas>=0.9"}, `run: --gate "pas>=0.9": unknown metric "pas" (did you mean "pass"?)`},
		{[]string{"run", "s.yaml", "--gate", "p95<=2"}, `run: --gate "p95<=2": p95 is a latency: give a duration such as 2s or 500ms, not "2"`},
		{[]string{"report", base, "--gate", "qwen3:8b:pass=0.9"}, `report: --gate "qwen3:8b:pass=0.9": "=" is not a comparison: use >=, <=, > or <; a gate is [MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE, such as pass>=0.9`},
		{[]string{"run", "s.yaml", "--gate-on", "upper"}, `--gate-on "upper": must be point or lower`},
		{[]string{"report", base, "--gate-on", "mean"}, `--gate-on "mean": must be point or lower`},
		{[]string{"run", "s.yaml", "--max-regressions", "2"}, "--max-regressions needs --baseline DIR, the run to compare with"},
		{[]string{"run", "s.yaml", "--baseline", base}, "--baseline needs --max-regressions N (0: no case may regress)"},
		{[]string{"run", "s.yaml", "--significant-only"}, "--significant-only needs --max-regressions N"},
		{[]string{"run", "s.yaml", "--baseline", base, "--max-regressions", "-1"}, "--max-regressions -1: must be 0 or more"},
		{[]string{"run", "s.yaml", "--baseline", missing, "--max-regressions", "0"}, "--baseline: "},
		{[]string{"run", "--resume", base, "--baseline", base, "--max-regressions", "0"}, "--baseline " + base + " is the run's own directory"},
		{[]string{"report", base, "--baseline", base}, "report: unknown flag --baseline (toolgrade report -h lists every flag)"},
	} {
		r := runCLI(t, context.Background(), tt.args...)
		if r.code != exitUsage || !strings.Contains(r.err.Error(), tt.want) {
			t.Errorf("%v: exit %d: %v\nwant %s", tt.args, r.code, r.err, tt.want)
		}
	}
}

// fakeCounter is a regressionCounter that returns fixed counts and
// remembers what it was asked.
type fakeCounter struct {
	counts            []gate.RegressionCount
	err               error
	baseline, current string
	alpha             float64
}

func (f *fakeCounter) count(_ context.Context, baseline, current string, alpha float64) ([]gate.RegressionCount, error) {
	f.baseline, f.current, f.alpha = baseline, current, alpha
	return f.counts, f.err
}

// TestRegressionGateThroughTheSeam: run's --baseline and --max-regressions
// reach judgeRun, which asks the regressionCounter for the counts and fails
// with exit 4 when a model regressed on more than N cases.
func TestRegressionGateThroughTheSeam(t *testing.T) {
	t.Parallel()
	current, baseline := recordedRun(t), recordedRun(t)
	meta, err := record.ReadRun(current)
	if err != nil {
		t.Fatal(err)
	}
	counts := []gate.RegressionCount{
		{Model: "scripted-good", Paired: 25, Regressed: 0, Significant: 0, P: 1},
		{Model: "scripted-weak", Paired: 25, Regressed: 3, Significant: 0, P: 0.25},
	}
	for _, tt := range []struct {
		flags []string
		code  int
		tail  string
	}{
		{[]string{"--max-regressions", "2"}, exitGate,
			"gate held: scripted-good regressions 0 <= 2\ngate failed: scripted-weak regressions 3 > 2\n"},
		{[]string{"--max-regressions", "3"}, exitOK,
			"gate held: scripted-good regressions 0 <= 3\ngate held: scripted-weak regressions 3 <= 3\n"},
		// The McNemar test does not support 3 regressions and 0 fixes.
		{[]string{"--max-regressions", "2", "--significant-only"}, exitOK,
			"gate held: scripted-weak significant regressions 0 <= 2 (McNemar p=0.25)\n"},
		{[]string{"--max-regressions", "0", "--gate", "scripted-weak:pass>=0.9"}, exitGate,
			"gate failed: scripted-weak pass 44% [26–63] < 90%\ngate failed: scripted-weak regressions 3 > 0\n"},
	} {
		fs := newFlags("run", "", new(bytes.Buffer))
		var gf gateFlags
		gf.register(fs)
		gf.registerRegressions(fs, true)
		if _, err := parse(fs, append([]string{"--baseline", baseline}, tt.flags...)); err != nil {
			t.Fatal(err)
		}
		on, err := gf.check()
		if err != nil {
			t.Fatal(err)
		}
		fc := &fakeCounter{counts: counts}
		var stderr bytes.Buffer
		err = gf.judgeRun(context.Background(), &store.Reader{Dir: current, Run: meta}, nil, on, fc.count, &stderr)
		if code := exitCode(err, false); code != tt.code || !strings.HasSuffix(stderr.String(), tt.tail) {
			t.Errorf("%v: exit %d (%v)\n%s\nwant it to end\n%s", tt.flags, code, err, stderr.String(), tt.tail)
		}
		if fc.baseline != baseline || fc.current != current || fc.alpha != 0.05 {
			t.Errorf("%v: the counter was asked (%s, %s, %v)", tt.flags, fc.baseline, fc.current, fc.alpha)
		}
	}

	// A comparison that fails is an error of its own, not a gate verdict.
	fs := newFlags("run", "", new(bytes.Buffer))
	var gf gateFlags
	gf.register(fs)
	gf.registerRegressions(fs, true)
	parse(fs, []string{"--baseline", baseline, "--max-regressions", "0"})
	on, _ := gf.check()
	fc := &fakeCounter{err: errors.New("baseline ran another suite")}
	err = gf.judgeRun(context.Background(), &store.Reader{Dir: current, Run: meta}, nil, on, fc.count, new(bytes.Buffer))
	if code := exitCode(err, false); code != exitFailed || err.Error() != "--baseline "+baseline+": baseline ran another suite" {
		t.Errorf("a failed comparison: exit %d: %v", code, err)
	}
	// No counts at all: nothing was compared, and the gate cannot pass.
	var stderr bytes.Buffer
	err = gf.judgeRun(context.Background(), &store.Reader{Dir: current, Run: meta}, nil, on, (&fakeCounter{}).count, &stderr)
	if exitCode(err, false) != exitGate || stderr.String() != "gate failed: regressions <= 0: nothing to judge: no case was paired with the baseline\n" {
		t.Errorf("no counts: %v\n%s", err, stderr.String())
	}
}

// TestRunBaselineCountsRegressionsEndToEnd: `run --baseline` compares the
// finished run with a baseline through internal/compare. The baseline is a
// scripted-good run relabelled as scripted-weak, so the real scripted-weak
// run regresses 14 of its 25 cases against it, pass 100% → 44%: McNemar
// calls that worse, so --significant-only counts them too.
func TestRunBaselineCountsRegressionsEndToEnd(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good")
	if r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", good, "--ollama", url, "--models", "scripted-good"); r.code != exitOK {
		t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
	}
	baseline := filepath.Join(tmp, "baseline")
	if err := os.Mkdir(baseline, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{record.RunFile, record.TrialsFile} {
		b, err := os.ReadFile(filepath.Join(good, f))
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(`"scripted-good"`), []byte(`"scripted-weak"`))
		if err := os.WriteFile(filepath.Join(baseline, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		flags []string
		code  int
		tail  string
	}{
		{[]string{"--max-regressions", "0"}, exitGate, "gate failed: scripted-weak regressions 14 > 0\n"},
		{[]string{"--max-regressions", "14"}, exitOK, "gate held: scripted-weak regressions 14 <= 14\n"},
		{[]string{"--max-regressions", "3", "--significant-only"}, exitGate, "gate failed: scripted-weak significant regressions 14 > 3"},
	} {
		dir := filepath.Join(tmp, fmt.Sprint("cur", len(tt.flags), tt.code))
		args := append([]string{"run", docsSuite(t), "--out", dir, "--ollama", url, "--models", "scripted-weak", "--baseline", baseline}, tt.flags...)
		r := runCLI(t, context.Background(), args...)
		if r.code != tt.code || !strings.Contains(lastLines(r.stderr, 1), strings.TrimSuffix(tt.tail, "\n")) {
			t.Errorf("%v: exit %d (%v), want %d; stderr ends\n%s\nwant\n%s", tt.flags, r.code, r.err, tt.code, lastLines(r.stderr, 2), tt.tail)
		}
	}
	// compare applies the same gates to the comparison it prints.
	cur := filepath.Join(tmp, fmt.Sprint("cur", 2, exitGate))
	r := runCLI(t, context.Background(), "compare", baseline, cur, "--max-regressions", "0", "--gate", "pass>=0.9")
	want := "gate failed: scripted-weak pass 44% [26–63] < 90%\ngate failed: scripted-weak regressions 14 > 0\n"
	if r.code != exitGate || !strings.HasSuffix(r.stderr, want) || !strings.Contains(r.stdout, "worse") {
		t.Errorf("compare with gates: exit %d (%v)\nstderr:\n%s\nwant it to end\n%s", r.code, r.err, r.stderr, want)
	}
	if r := runCLI(t, context.Background(), "compare", baseline, cur); r.code != exitOK {
		t.Errorf("compare without gates: exit %d (%v)", r.code, r.err)
	}
}
