package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// TestRunRecordsEachModelsCost: after `toolgrade run` on the fake Ollama,
// run.json holds each model's cost: what /api/ps listed once it was loaded,
// and the speed, latency and truncated share of its trials; a resume that
// runs the rest measures every session's trials and keeps what /api/ps
// said. At num_ctx 500 the dog case's second prompt (547 tokens) is cut and
// the greeting's (465) is not: half the trials were truncated.
func TestRunRecordsEachModelsCost(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", smallSuite(t), "--out", dir, "--ollama", url, "--repeat", "2", "-o", "num_ctx=500")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	c := modelCost(t, dir)
	// The demo's scripted-good is an 8.2B Q4_K_M model: about 5 GB of file
	// and, at the run's num_ctx of 500 (the warm-up loads it at the
	// suite's options, not its own 8192), 66 MB of KV cache, on the fake's
	// CPU.
	if l := c.Loaded; l == nil || l.Size < 5e9 || l.Size > 5.1e9 || l.SizeVRAM != 0 || l.ContextLength != 500 {
		t.Errorf("loaded: %+v", l)
	}
	// The fake's durations are 20µs a prompt token and 4ms an output token.
	if c.Trials != 4 || c.Truncated != 2 || c.TruncatedShare() != 0.5 || c.PromptTokensPerSecond != 50000 || c.EvalTokensPerSecond != 250 ||
		c.P50 <= 0 || c.P95 < c.P50 {
		t.Errorf("cost: %+v", c)
	}

	// Keep the first trial only, as if the run had stopped there, and
	// resume it.
	trials := filepath.Join(dir, record.TrialsFile)
	data, err := os.ReadFile(trials)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if err := os.WriteFile(trials, []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, context.Background(), "run", "--resume", dir, "--ollama", url)
	if r.err != nil || !strings.Contains(r.stderr, "1 of the 4 trials") {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	again := modelCost(t, dir)
	if again.Trials != 4 || again.Truncated != 2 || again.Loaded == nil || *again.Loaded != *c.Loaded {
		t.Errorf("after the resume: %+v (loaded %+v), before %+v", again, again.Loaded, c.Loaded)
	}
}

// modelCost is the cost run.json in dir records for its one model.
func modelCost(t *testing.T, dir string) *record.Cost {
	t.Helper()
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Models) != 1 || meta.Models[0].Cost == nil {
		t.Fatalf("run.json models: %+v", meta.Models)
	}
	return meta.Models[0].Cost
}

// TestChooseAfterARun: `toolgrade choose` on a run of the demo's two
// models on the fake Ollama keeps scripted-good (scripted-weak is worse by
// far more than 5 points) and names the memory /api/ps listed; every format
// says the same; a margin, a format or a reference it cannot take is a
// usage error, exit 2.
func TestChooseAfterARun(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", dir, "--ollama", url, "--repeat", "2"); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	const rec = "scripted-good: keep it; scripted-weak is worse by more than 5 pts on pass (interval −"
	r := runCLI(t, context.Background(), "choose", dir)
	if r.err != nil || !strings.Contains(r.stdout, "Recommendation: "+rec) || !strings.Contains(r.stdout, "6.0 GB") || !strings.Contains(r.stdout, "1.3 GB") {
		t.Errorf("choose: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	for _, f := range []string{"markdown", "json", "html"} {
		out := filepath.Join(t.TempDir(), "choice."+f)
		if r := runCLI(t, context.Background(), "choose", dir, "--format", f, "-o", out, "--margin", "5%"); r.err != nil || r.stdout != "" {
			t.Errorf("--format %s: %v %q", f, r.err, r.stdout)
		}
		b, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(b), "keep it; scripted-weak is worse by more than 5 pts") {
			t.Errorf("--format %s wrote %d bytes without the recommendation (%v)", f, len(b), err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--margin", "5"}, `choose: --margin "5": a fraction is below 1`},
		{[]string{"--format", "pdf"}, `choose: --format "pdf": want one of terminal, json, markdown, html`},
		{[]string{"--reference", "scripted-god"}, `choose: --reference: unknown model "scripted-god"`},
	} {
		r := runCLI(t, context.Background(), append([]string{"choose", dir}, tc.args...)...)
		if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), tc.want) {
			t.Errorf("%v: exit %d: %v; want %q", tc.args, r.code, r.err, tc.want)
		}
	}
}
