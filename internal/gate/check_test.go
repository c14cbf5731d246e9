package gate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

func rate(k, n int) stats.Rate { return stats.Rate{K: k, N: n} }

// summary is two models: one good (all rates 100%, 25 trials, fast), one
// weak (44% pass as in the demo, slower), and a third with nothing scored.
func twoModels() *summary.Summary {
	return &summary.Summary{Models: []summary.ModelSummary{
		{Model: "qwen3:8b", Pass: rate(25, 25), Selection: rate(19, 19), ArgValidity: rate(22, 22), ArgAccuracy: rate(19, 19),
			Irrelevance: rate(6, 6), RoundLimit: rate(0, 25), TrialLatency: summary.Latency{P50: 0.8, P95: 1.42}},
		{Model: "qwen3:1.7b", Pass: rate(11, 25), Selection: rate(15, 19), ArgValidity: rate(21, 22), ArgAccuracy: rate(12, 15),
			Irrelevance: rate(4, 6), RoundLimit: rate(1, 25), TrialLatency: summary.Latency{P50: 1.1, P95: 2.5}},
	}}
}

func mustParse(t *testing.T, exprs ...string) []expr.Gate {
	t.Helper()
	gs, err := expr.Parse(exprs...)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// TestCheckEveryMetric: each metric kind holds on the good model and fails
// on the weak one, with the line CI shows.
func TestCheckEveryMetric(t *testing.T) {
	for _, tt := range []struct {
		expr       string
		held, fail string // the lines for qwen3:8b and qwen3:1.7b
	}{
		{"pass>=0.9", "qwen3:8b pass 100% [86–100] >= 90%", "qwen3:1.7b pass 44% [26–63] < 90%"},
		{"selection>=0.95", "qwen3:8b tool_selection 100% [83–100] >= 95%", "qwen3:1.7b tool_selection 79% [56–92] < 95%"},
		{"arg_validity>0.99", "qwen3:8b arg_validity 100% [85–100] > 99%", "qwen3:1.7b arg_validity 95% [78–100] <= 99%"},
		{"arg_accuracy>=0.9", "qwen3:8b arg_accuracy 100% [83–100] >= 90%", "qwen3:1.7b arg_accuracy 80% [54–93] < 90%"},
		{"irrelevance>=90%", "qwen3:8b irrelevance 100% [60–100] >= 90%", "qwen3:1.7b irrelevance 67% [29–91] < 90%"},
		{"round_limit<0.04", "qwen3:8b round_limit 0% [0–14] < 4%", "qwen3:1.7b round_limit 4% [0–20] >= 4%"},
		{"p50<=1s", "qwen3:8b p50 800ms <= 1s", "qwen3:1.7b p50 1.1s > 1s"},
		{"p95<=2s", "qwen3:8b p95 1.42s <= 2s", "qwen3:1.7b p95 2.5s > 2s"},
	} {
		rs := Check(twoModels(), mustParse(t, tt.expr), OnPoint)
		if len(rs) != 2 || !rs[0].Held || rs[1].Held || Failed(rs) != 1 {
			t.Errorf("%s: %+v", tt.expr, rs)
			continue
		}
		if got := rs[0].String(); got != tt.held {
			t.Errorf("%s held: %q, want %q", tt.expr, got, tt.held)
		}
		if got := rs[1].String(); got != tt.fail {
			t.Errorf("%s failed: %q, want %q", tt.expr, got, tt.fail)
		}
	}
}

func TestCheckPerModel(t *testing.T) {
	rs := Check(twoModels(), mustParse(t, "qwen3:1.7b:pass>=0.4", "qwen3:8b:p95<1s", "llama3:pass>=0.5"), OnPoint)
	if len(rs) != 3 {
		t.Fatalf("%d results, want one per gate: %+v", len(rs), rs)
	}
	if !rs[0].Held || rs[0].Model != "qwen3:1.7b" || rs[0].String() != "qwen3:1.7b pass 44% [26–63] >= 40%" {
		t.Errorf("per-model gate: %+v %s", rs[0], rs[0])
	}
	if rs[1].Held || rs[1].String() != "qwen3:8b p95 1.42s >= 1s" {
		t.Errorf("per-model latency gate: %s", rs[1])
	}
	// A model the run does not have cannot pass.
	if rs[2].Held || rs[2].String() != "llama3 pass >= 50%: nothing to judge: the run has no results for llama3 (it has qwen3:8b, qwen3:1.7b)" {
		t.Errorf("missing model: %s", rs[2])
	}
	// Nor can a variant it does not have, nor any gate on an empty run.
	if rs := Check(twoModels(), mustParse(t, "@new:pass>=0"), OnPoint); len(rs) != 1 || rs[0].Held || !strings.Contains(rs[0].Msg, "no results for @new") {
		t.Errorf("missing variant: %+v", rs)
	}
	if rs := Check(nil, mustParse(t, "pass>=0"), OnPoint); len(rs) != 1 || rs[0].Held {
		t.Errorf("nil summary: %+v", rs)
	}
	if rs := Check(&summary.Summary{}, mustParse(t, "pass>=0"), OnPoint); len(rs) != 1 || rs[0].Held || rs[0].String() != "pass >= 0%: nothing to judge: the run has no results" {
		t.Errorf("empty run: %+v", rs)
	}
	// base names the servers' own catalog, which every row is until
	// variants land.
	if rs := Check(twoModels(), mustParse(t, "qwen3:8b@base:pass>=0.9"), OnPoint); len(rs) != 1 || !rs[0].Held {
		t.Errorf("base variant: %+v", rs)
	}
}

// TestCheckNothingToJudge: a rate over no trial fails, whichever way it
// points, and says why.
func TestCheckNothingToJudge(t *testing.T) {
	s := &summary.Summary{Models: []summary.ModelSummary{{Model: "m", Pass: rate(0, 0), Irrelevance: rate(0, 0), RoundLimit: rate(0, 0)}}}
	for _, tt := range []struct{ expr, want string }{
		{"irrelevance>=0", "m irrelevance >= 0%: nothing to judge: no trial counts toward irrelevance"},
		{"round_limit<=1", "m round_limit <= 100%: nothing to judge: no trial counts toward round_limit"},
		{"p95<=1h", "m p95 <= 1h0m0s: nothing to judge: no scored trial has a latency"},
	} {
		for _, on := range []On{OnPoint, OnLower} {
			rs := Check(s, mustParse(t, tt.expr), on)
			if len(rs) != 1 || rs[0].Held || rs[0].String() != tt.want {
				t.Errorf("%s on %s: %+v\n%s\nwant %s", tt.expr, on, rs, rs[0], tt.want)
			}
		}
	}
}

// TestCheckOnLower: the pessimistic end of the interval turns a verdict
// the point estimate gives, in both directions.
func TestCheckOnLower(t *testing.T) {
	s := twoModels()
	for _, tt := range []struct {
		expr        string
		point, lowr string
	}{
		// 25/25 is 100%, but its interval reaches down to 86%.
		{"qwen3:8b:pass>=0.9", "qwen3:8b pass 100% [86–100] >= 90%", "qwen3:8b pass 100% [86–100]: lower bound 86.7% < 90%"},
		// 1/25 is 4%, but its interval reaches up to 20%: an upper bound.
		{"qwen3:1.7b:round_limit<=0.05", "qwen3:1.7b round_limit 4% [0–20] <= 5%", "qwen3:1.7b round_limit 4% [0–20]: upper bound 19.5% > 5%"},
		// Latencies have no interval: the same verdict either way.
		{"qwen3:8b:p95<=2s", "qwen3:8b p95 1.42s <= 2s", "qwen3:8b p95 1.42s <= 2s"},
	} {
		p := Check(s, mustParse(t, tt.expr), OnPoint)
		l := Check(s, mustParse(t, tt.expr), OnLower)
		if len(p) != 1 || len(l) != 1 || p[0].String() != tt.point || l[0].String() != tt.lowr {
			t.Errorf("%s:\npoint %s\nlower %s\nwant\npoint %s\nlower %s", tt.expr, p[0], l[0], tt.point, tt.lowr)
		}
		if !p[0].Held || l[0].Held == strings.Contains(tt.lowr, "bound") {
			t.Errorf("%s: held on point %v, on lower %v", tt.expr, p[0].Held, l[0].Held)
		}
	}
	// A gate the lower bound also clears holds.
	if rs := Check(s, mustParse(t, "qwen3:8b:pass>=0.8"), OnLower); !rs[0].Held || rs[0].String() != "qwen3:8b pass 100% [86–100]: lower bound 86.7% >= 80%" {
		t.Errorf("lower bound above the threshold: %s", rs[0])
	}
}

func TestParseOn(t *testing.T) {
	for in, want := range map[string]On{"point": OnPoint, "": OnPoint, "lower": OnLower} {
		if got, err := ParseOn(in); got != want || err != nil {
			t.Errorf("ParseOn(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseOn("upper"); err == nil || err.Error() != `"upper": must be point or lower` {
		t.Errorf("ParseOn(upper) = %v", err)
	}
}

// TestRenderTellsCloseValuesApart: a rate or a latency that rounds to its
// threshold is shown with the decimals that make the verdict readable.
func TestRenderTellsCloseValuesApart(t *testing.T) {
	s := &summary.Summary{Models: []summary.ModelSummary{{Model: "m", Pass: rate(8996, 10000), TrialLatency: summary.Latency{P95: 2.0004}}}}
	rs := Check(s, mustParse(t, "pass>=0.9", "p95<=2s", "pass>=0.8996"), OnPoint)
	for i, want := range []string{"m pass 89.96% [89–91] < 90%", "m p95 2.0004s > 2s", "m pass 90% [89–91] >= 89.96%"} {
		if got := rs[i].String(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestWriteListsFailuresLast(t *testing.T) {
	var b bytes.Buffer
	Write(&b, Check(twoModels(), mustParse(t, "pass>=0.9", "p95<=3s"), OnPoint))
	want := "gate held: qwen3:8b pass 100% [86–100] >= 90%\n" +
		"gate held: qwen3:8b p95 1.42s <= 3s\n" +
		"gate held: qwen3:1.7b p95 2.5s <= 3s\n" +
		"gate failed: qwen3:1.7b pass 44% [26–63] < 90%\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestRegressions(t *testing.T) {
	counts := []RegressionCount{
		{Model: "qwen3:8b", Paired: 25, Regressed: 3, Significant: 0, P: 0.25},
		{Model: "qwen3:1.7b", Paired: 25, Regressed: 8, Significant: 8, P: 0.0391},
		{Model: "llama3", Variant: "new", Paired: 25, Regressed: 0},
		{Model: "gone", Paired: 0},
	}
	var b bytes.Buffer
	Write(&b, Regressions(counts, 2, false))
	want := "gate held: llama3@new regressions 0 <= 2\n" +
		"gate failed: qwen3:8b regressions 3 > 2\n" +
		"gate failed: qwen3:1.7b regressions 8 > 2\n" +
		"gate failed: gone regressions <= 2: nothing to judge: no case was paired with the baseline\n"
	if b.String() != want {
		t.Errorf("all regressions:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	rs := Regressions(counts, 2, true)
	Write(&b, rs)
	want = "gate held: qwen3:8b significant regressions 0 <= 2 (McNemar p=0.25)\n" +
		"gate held: llama3@new significant regressions 0 <= 2 (McNemar p=0)\n" +
		"gate failed: qwen3:1.7b significant regressions 8 > 2 (McNemar p=0.0391)\n" +
		"gate failed: gone significant regressions <= 2: nothing to judge: no case was paired with the baseline\n"
	if b.String() != want || Failed(rs) != 2 {
		t.Errorf("significant only:\n%s\nwant\n%s", b.String(), want)
	}
	// The limit is inclusive: exactly N regressions hold.
	if rs := Regressions([]RegressionCount{{Model: "m", Paired: 5, Regressed: 2}}, 2, false); !rs[0].Held {
		t.Errorf("2 regressions with max 2: %s", rs[0])
	}
	if rs := Regressions(nil, 0, false); len(rs) != 1 || rs[0].Held || rs[0].String() != "regressions <= 0: nothing to judge: no case was paired with the baseline" {
		t.Errorf("no counts: %+v", rs)
	}
}

// TestRatesReadAsInTheReport: a gate's line shows a rate exactly as the
// report's table above it does.
func TestRatesReadAsInTheReport(t *testing.T) {
	s := twoModels()
	var table bytes.Buffer
	if err := report.WriteTerminal(&table, s); err != nil {
		t.Fatal(err)
	}
	for _, r := range Check(s, mustParse(t, "pass>=0.9", "selection>=0.9", "arg_validity>=0.9", "arg_accuracy>=0.9", "irrelevance>=0.9"), OnPoint) {
		shown := interval(termtext.Percent(r.Value, r.Threshold, 0), r.Lo, r.Hi)
		if !strings.Contains(table.String(), "│ "+shown+" ") {
			t.Errorf("%s: %q is not in the table:\n%s", r.Gate.Expr, shown, table.String())
		}
	}
}
