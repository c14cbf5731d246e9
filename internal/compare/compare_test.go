package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
)

const sec = time.Second

// Two recorded runs with one case of every kind: the regressions, fixes,
// unpaired and changed cases must be exactly these.
func TestRunsCasesEqualAHandMadeList(t *testing.T) {
	O := record.OutcomePass
	baseRunJSON, curRunJSON := baseRun(), baseRun()
	baseRunJSON.Cases = map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "f": "1", "g": "1", "h": "1"}
	curRunJSON.Cases = map[string]string{"a": "1", "b": "1", "c": "1", "e": "1", "f": "2", "g": "1", "h": "1"}
	base := writeRun(t, baseRunJSON, []*record.Trial{
		trial("m", "", "a", 0, O, sec),
		trial("m", "", "b", 0, O, sec),
		trial("m", "", "c", 0, record.OutcomeNoCall, sec),
		trial("m", "", "d", 0, O, sec),
		trial("m", "", "d", 1, O, sec),
		trial("m", "", "f", 0, O, sec),
		trial("m", "", "g", 0, O, sec),
		trial("m", "", "h", 0, record.OutcomeWrongTool, sec),
	})
	cur := writeRun(t, curRunJSON, []*record.Trial{
		trial("m", "", "a", 0, O, sec),
		trial("m", "", "b", 0, record.OutcomeWrongArgs, sec),
		trial("m", "", "c", 0, O, sec),
		trial("m", "", "e", 0, O, sec),
		trial("m", "", "f", 0, record.OutcomeWrongTool, sec),
		trial("m", "", "g", 0, record.OutcomeInfraError, sec),
		trial("m", "", "h", 0, record.OutcomeNoCall, sec),
	})
	c, warnings, err := Runs(base, cur, nil)
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	if len(c.Groups) != 1 {
		t.Fatalf("%d groups", len(c.Groups))
	}
	g := c.Groups[0]
	type change struct {
		Case, Kind, Old, New, Detail string
	}
	var got []change
	for _, ch := range g.Cases {
		got = append(got, change{ch.Case, ch.Kind, ch.Outcome.Base, ch.Outcome.Current, ch.Detail})
	}
	want := []change{
		{"b", KindRegression, O, record.OutcomeWrongArgs, "top_k: 5 != 3"},
		{"c", KindFix, record.OutcomeNoCall, O, "no tool call"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cases (-want +got):\n%s", d)
	}
	wantUnpaired := []Unpaired{{Side: "base", Case: "d", Repeats: []int{0, 1}}, {Side: "current", Case: "e", Repeats: []int{0}}}
	if d := cmp.Diff(wantUnpaired, g.Unpaired); d != "" {
		t.Errorf("unpaired (-want +got):\n%s", d)
	}
	if g.UnpairedCount != (SidePair[int]{2, 1}) {
		t.Errorf("unpaired count %+v", g.UnpairedCount)
	}
	if !slices.Equal(c.ChangedCases, []string{"f"}) || g.ChangedTrials != (SidePair[int]{1, 1}) {
		t.Errorf("changed %v, trials %+v", c.ChangedCases, g.ChangedTrials)
	}
	// a, b, c, g, h are paired; g is infra on current and counts nowhere.
	if g.Pairs != 5 || g.Scored != 4 || g.Infra != (SidePair[int]{0, 1}) {
		t.Errorf("pairs %d scored %d infra %+v", g.Pairs, g.Scored, g.Infra)
	}
	if g.Regressions != 1 || g.Fixes != 1 || g.SupportedRegressions != 0 {
		t.Errorf("regressions %d fixes %d supported %d", g.Regressions, g.Fixes, g.SupportedRegressions)
	}
	pass := row(t, &g, metric.Pass)
	if pass.Rate.Base.K != 2 || pass.Rate.Base.N != 4 || pass.Rate.Current.K != 2 || pass.Worse != 1 || pass.Better != 1 || pass.Verdict != Same || !pass.TooFew {
		t.Errorf("pass row %+v", pass)
	}
}

// A side's rate is over the scored pairs where the metric applies; McNemar
// over the pairs where it applies on both: argument accuracy of b (wrong
// args) is defined on both sides, of h (wrong tool → no call) on neither.
func TestRatesDefinedWhereTheyApply(t *testing.T) {
	O := record.OutcomePass
	base := writeRun(t, baseRun(), []*record.Trial{
		trial("m", "", "a", 0, O, sec), trial("m", "", "b", 0, O, sec), trial("m", "", "c", 0, record.OutcomeWrongTool, sec),
		trial("m", "", "d", 0, O, sec),
	})
	cur := writeRun(t, baseRun(), []*record.Trial{
		trial("m", "", "a", 0, O, sec), trial("m", "", "b", 0, record.OutcomeWrongArgs, sec), trial("m", "", "c", 0, O, sec),
		trial("m", "", "d", 0, record.OutcomeInvalidArgs, sec),
	})
	c, _, err := Runs(base, cur, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &c.Groups[0]
	acc := row(t, g, metric.ArgAccuracy)
	// Base: a, b, d defined (3/3); current: a, b, c, d (2/4). Both sides: a, b, d.
	if knOf(acc.Rate.Base) != newRate(3, 3) || knOf(acc.Rate.Current) != newRate(2, 4) || acc.Worse != 2 || acc.Better != 0 {
		t.Errorf("arg accuracy %+v", acc)
	}
	sel := row(t, g, metric.ToolSelection)
	if knOf(sel.Rate.Base) != newRate(3, 4) || knOf(sel.Rate.Current) != newRate(4, 4) || sel.Better != 1 || sel.Worse != 0 {
		t.Errorf("selection %+v", sel)
	}
	valid := row(t, g, metric.ArgValidity)
	if knOf(valid.Rate.Base) != newRate(4, 4) || knOf(valid.Rate.Current) != newRate(3, 4) || valid.Worse != 1 {
		t.Errorf("validity %+v", valid)
	}
	if irr := row(t, g, metric.Irrelevance); irr.Rate.Base.N != 0 || irr.Verdict != Same {
		t.Errorf("irrelevance %+v", irr)
	}
}

// Nine cases, eight of which regressed and one fixed: McNemar p = 20/512,
// below 0.05, so the pass row says worse; at alpha 0.01 it says ~.
func TestMcNemarVerdict(t *testing.T) {
	var bt, ct []*record.Trial
	for i := range 9 {
		id := fmt.Sprintf("case%d", i)
		if i < 8 {
			bt, ct = append(bt, trial("m", "", id, 0, record.OutcomePass, sec)), append(ct, trial("m", "", id, 0, record.OutcomeNoCall, sec))
		} else {
			bt, ct = append(bt, trial("m", "", id, 0, record.OutcomeNoCall, sec)), append(ct, trial("m", "", id, 0, record.OutcomePass, sec))
		}
	}
	base, cur := writeRun(t, baseRun(), bt), writeRun(t, baseRun(), ct)
	c, _, _ := Runs(base, cur, nil)
	pass := row(t, &c.Groups[0], metric.Pass)
	if math.Abs(pass.P-0.0390625) > 1e-12 || pass.Verdict != Worse || pass.TooFew {
		t.Errorf("pass %+v", pass)
	}
	if c.Groups[0].Regressions != 8 || c.Groups[0].Fixes != 1 {
		t.Errorf("regressions %d fixes %d", c.Groups[0].Regressions, c.Groups[0].Fixes)
	}
	c, _, _ = Runs(base, cur, &Options{Alpha: 0.01})
	if p := row(t, &c.Groups[0], metric.Pass); p.Verdict != Same {
		t.Errorf("alpha 0.01: %+v", p)
	}
}

// Round limit: hitting it more often is worse.
func TestRoundLimitLowerIsBetter(t *testing.T) {
	var bt, ct []*record.Trial
	for i := range 7 {
		id := fmt.Sprintf("case%d", i)
		bt, ct = append(bt, trial("m", "", id, 0, record.OutcomePass, sec)), append(ct, trial("m", "", id, 0, record.OutcomeRoundLimit, sec))
	}
	c, _, _ := Runs(writeRun(t, baseRun(), bt), writeRun(t, baseRun(), ct), nil)
	rl := row(t, &c.Groups[0], metric.RoundLimit)
	if !rl.LowerIsBetter || rl.Worse != 7 || rl.Verdict != Worse || rl.Delta != 1 {
		t.Errorf("round limit %+v", rl)
	}
}

// With repeats, a case's k/n is over its repeats, and a regression is
// supported when its own repeats make McNemar significant.
func TestRepeatsKOfN(t *testing.T) {
	var bt, ct []*record.Trial
	for r := range 6 {
		bt = append(bt, trial("m", "", "a", r, record.OutcomePass, sec), trial("m", "", "b", r, record.OutcomePass, sec))
		ct = append(ct, trial("m", "", "a", r, record.OutcomeWrongTool, sec))
		o := record.OutcomePass
		if r == 3 {
			o = record.OutcomeNoCall
		}
		ct = append(ct, trial("m", "", "b", r, o, sec))
	}
	c, _, _ := Runs(writeRun(t, baseRun(), bt), writeRun(t, baseRun(), ct), nil)
	g := c.Groups[0]
	if len(g.Cases) != 2 {
		t.Fatalf("%+v", g.Cases)
	}
	a, b := g.Cases[0], g.Cases[1]
	if a.Case != "a" || a.Pass.Base.K != 6 || a.Pass.Current.K != 0 || a.Pass.Current.N != 6 || !a.Supported || a.Repeat != 0 {
		t.Errorf("a %+v", a)
	}
	if b.Case != "b" || b.Pass.Current.K != 5 || b.Supported || b.Repeat != 3 || b.Outcome.Current != record.OutcomeNoCall {
		t.Errorf("b %+v", b)
	}
	if g.Regressions != 2 || g.SupportedRegressions != 1 {
		t.Errorf("regressions %d supported %d", g.Regressions, g.SupportedRegressions)
	}
	if all, sup := c.Regressions(); all != 2 || sup != 1 {
		t.Errorf("Comparison.Regressions() = %d, %d", all, sup)
	}
	if r := g.Rate(metric.Pass); r == nil || r.Worse != 7 || g.Rate("nope") != nil {
		t.Errorf("Rate(pass) = %+v", r)
	}
}

// Latency: Mann-Whitney over the paired trials; a current side uniformly
// slower is worse, equal is ~.
func TestLatencyVerdict(t *testing.T) {
	var bt, ct []*record.Trial
	for i := range 10 {
		id := fmt.Sprintf("case%d", i)
		bt = append(bt, trial("m", "", id, 0, record.OutcomePass, time.Duration(1000+i)*time.Millisecond))
		ct = append(ct, trial("m", "", id, 0, record.OutcomePass, time.Duration(2000+i)*time.Millisecond))
	}
	c, _, _ := Runs(writeRun(t, baseRun(), bt), writeRun(t, baseRun(), ct), nil)
	g := c.Groups[0]
	tr := g.Latency[0]
	if tr.Name != "trial" || tr.Verdict != Worse || tr.Dist.Base.N != 10 || tr.Dist.Base.P50 != 1.004 || tr.Dist.Current.P95 != 2.009 {
		t.Errorf("trial latency %+v", tr)
	}
	if rd := g.Latency[1]; rd.Dist.Base.N != 20 || rd.Verdict != Worse {
		t.Errorf("round latency %+v", rd)
	}
	if g.Cost.Base.EvalTokens != 400 || g.Cost.Base.TokensPerSecond != 100 || g.Cost.Base.Model.ParameterSize != "8B" {
		t.Errorf("cost %+v", g.Cost.Base)
	}
	c, _, _ = Runs(writeRun(t, baseRun(), bt), writeRun(t, baseRun(), bt), nil)
	if v := c.Groups[0].Latency[0].Verdict; v != Same {
		t.Errorf("same latencies: %s", v)
	}
}

// TestDriftJudge: a change of the judge model, its digest or its repeat is
// drift, and so is a judge on one side only; no judge on either side is
// none.
func TestDriftJudge(t *testing.T) {
	with := func(j *record.RunJudge) *record.Run { r := baseRun(); r.Judge = j; return r }
	j := func(m, d string, k int) *record.RunJudge { return &record.RunJudge{Model: m, Digest: d, Repeat: k} }
	for _, tc := range []struct {
		a, b *record.RunJudge
		want []string
	}{
		{nil, nil, nil},
		{j("a", "d", 1), j("a", "d", 1), nil},
		{j("a", "d", 1), j("b", "d", 1), []string{"judge model"}},
		{j("a", "d", 1), j("a", "e", 1), []string{"judge digest"}},
		{j("a", "d", 1), j("a", "d", 3), []string{"judge repeat"}},
		{nil, j("a", "d", 1), []string{"judge model", "judge digest", "judge repeat"}},
	} {
		d, _ := runDrift(with(tc.a), with(tc.b))
		var got []string
		for _, x := range d {
			got = append(got, x.Field)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v → %+v: drift %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// Every drift field is detected when changed alone, and nothing else.
func TestDriftEachFieldAlone(t *testing.T) {
	edits := map[string]func(r *record.Run){
		"suite":                func(r *record.Run) { r.Suite.Name = "other" },
		"suite hash":           func(r *record.Run) { r.Suite.Hash = "s2" },
		"harness version":      func(r *record.Run) { r.Harness = "v2" },
		"ollama version":       func(r *record.Run) { r.Ollama.Version = "0.13.0" },
		"model m digest":       func(r *record.Run) { r.Models[0].Digest = "d9" },
		"model m quantization": func(r *record.Run) { r.Models[0].Quantization = "Q8_0" },
		"model n":              func(r *record.Run) { r.Models = r.Models[:1] },
		"option temperature":   func(r *record.Run) { r.Options["temperature"] = 0.7 },
		"option num_ctx":       func(r *record.Run) { r.Options["num_ctx"] = 8192 },
		"think":                func(r *record.Run) { r.Think = "low" },
		"max_rounds":           func(r *record.Run) { r.MaxRounds = 3 },
		"base_seed":            func(r *record.Run) { r.BaseSeed = 7 },
		"repeat":               func(r *record.Run) { r.Repeat = 3 },
		"no_execute":           func(r *record.Run) { r.NoExecute = true },
		"catalog hash":         func(r *record.Run) { r.CatalogHash = "c2" },
	}
	base := baseRun()
	if d, cat := runDrift(base, baseRun()); len(d) != 0 || len(cat) != 0 {
		t.Fatalf("no change: %+v %+v", d, cat)
	}
	for field, edit := range edits {
		cur := baseRun()
		edit(cur)
		d, cat := runDrift(base, cur)
		if len(d) != 1 || d[0].Field != field || len(cat) != 0 {
			t.Errorf("%s: drift %+v, catalog %+v", field, d, cat)
		}
	}
}

// The catalog diff reads tool by tool: names, descriptions, parameters.
func TestCatalogDiff(t *testing.T) {
	cur := baseRun()
	cur.Catalogs = []record.RunCatalog{
		{Variant: "", Hash: "h2", System: "Be brief.", Tools: json.RawMessage(`[
			{"type":"function","function":{"name":"search","description":"Search the product docs.","parameters":{"type":"object","properties":{"query":{"type":"string","description":"words to look for"},"top_k":{"type":"integer","minimum":1},"lang":{"type":"string"}},"required":["query","lang"]}}},
			{"type":"function","function":{"name":"fetch","description":"Fetch a page.","parameters":{"type":"object","properties":{}}}}]`)},
		{Variant: "terse", Hash: "h3", Tools: json.RawMessage(`[]`)},
	}
	_, got := runDrift(baseRun(), cur)
	want := []CatalogChange{
		{Variant: "base", Change: "system prompt", Current: "Be brief."},
		{Variant: "base", Tool: "search", Change: "description", Base: "Search the docs.", Current: "Search the product docs."},
		{Variant: "base", Tool: "search", Param: "lang", Change: "parameter added", Current: `{"type":"string"}`},
		{Variant: "base", Tool: "search", Param: "query", Change: "parameter description", Base: "what to look for", Current: "words to look for"},
		{Variant: "base", Tool: "search", Param: "top_k", Change: "parameter schema", Base: `{"type":"integer"}`, Current: `{"minimum":1,"type":"integer"}`},
		{Variant: "base", Tool: "search", Change: "required", Base: "query", Current: "lang, query"},
		{Variant: "base", Tool: "fetch", Change: "tool added", Current: "Fetch a page."},
		{Variant: "terse", Change: "catalog added"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("catalog diff (-want +got):\n%s", d)
	}
	old := baseRun()
	old.Catalogs = nil
	if _, got := runDrift(old, cur); len(got) != 0 {
		t.Errorf("a run without catalogs: %+v", got)
	}
	_, got = runDrift(cur, baseRun())
	if len(got) < 2 || got[len(got)-1] != (CatalogChange{Variant: "terse", Change: "catalog removed"}) {
		t.Errorf("reverse: %+v", got)
	}
}

// Within one run: --models pairs by variant, case and repeat; --variants by
// model, case and repeat, with "base" naming "".
func TestWithinRunModes(t *testing.T) {
	run := baseRun()
	run.Catalogs = append(run.Catalogs, record.RunCatalog{Variant: "terse", Hash: "h9",
		Tools: json.RawMessage(`[{"type":"function","function":{"name":"search","description":"Search.","parameters":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"top_k":{"type":"integer"}},"required":["query"]}}}]`)})
	r := writeRun(t, run, []*record.Trial{
		trial("m", "", "a", 0, record.OutcomePass, sec),
		trial("n", "", "a", 0, record.OutcomeWrongTool, sec),
		trial("m", "terse", "a", 0, record.OutcomeNoCall, sec),
		trial("n", "terse", "a", 0, record.OutcomePass, sec),
		trial("m", "", "b", 0, record.OutcomePass, sec),
	})
	c, _, err := Models(r, "m", "n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Groups) != 2 || c.Groups[0].Variant != "" || c.Groups[1].Variant != "terse" {
		t.Fatalf("groups %+v", c.Groups)
	}
	g0, g1 := c.Groups[0], c.Groups[1]
	if g0.Regressions != 1 || g1.Fixes != 1 || g0.UnpairedCount.Base != 1 || g0.Unpaired[0].Case != "b" {
		t.Errorf("models: %+v\n%+v", g0, g1)
	}
	if g0.Cost.Base.Model.Name != "m" || g0.Cost.Current.Model.Quantization != "Q8_0" {
		t.Errorf("model info %+v %+v", g0.Cost.Base.Model, g0.Cost.Current.Model)
	}
	c, _, err = Variants(r, "base", "terse", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Base != "base" || c.Current != "terse" || len(c.Groups) != 2 || c.Groups[0].Model != "m" {
		t.Fatalf("variants %+v", c)
	}
	if c.Groups[0].Regressions != 1 || c.Groups[1].Fixes != 1 {
		t.Errorf("variants: %+v", c.Groups)
	}
	wantCat := []CatalogChange{{Variant: "base→terse", Tool: "search", Change: "description", Base: "Search the docs.", Current: "Search."}}
	if d := cmp.Diff(wantCat, c.Catalog); d != "" {
		t.Errorf("variant catalog (-want +got):\n%s", d)
	}
	if _, _, err := Models(r, "m", "zz", nil); err == nil {
		t.Error("a model with no trials is an error")
	}
	if _, _, err := Variants(r, "base", "nope", nil); err == nil {
		t.Error("a variant with no trials is an error")
	}
}

func row(t *testing.T, g *Group, name metric.Name) RateRow {
	t.Helper()
	for _, r := range g.Rates {
		if r.Metric == name {
			return r
		}
	}
	t.Fatalf("no %s row", name)
	return RateRow{}
}

// A run without case hashes (older, or its store did not fill them) pairs
// by id: nothing is listed as changed. A run without catalogs is warned of.
func TestRunWithoutHashesPairsById(t *testing.T) {
	b, c := baseRun(), baseRun()
	b.Cases = map[string]string{"a": "1"}
	c.Cases = nil
	c.Catalogs = nil
	base := writeRun(t, b, []*record.Trial{trial("m", "", "a", 0, record.OutcomePass, sec)})
	cur := writeRun(t, c, []*record.Trial{trial("m", "", "a", 0, record.OutcomeNoCall, sec)})
	cmpn, _, err := Runs(base, cur, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmpn.ChangedCases) != 0 || cmpn.Groups[0].Pairs != 1 || cmpn.Groups[0].Regressions != 1 {
		t.Errorf("changed %v, group %+v", cmpn.ChangedCases, cmpn.Groups[0])
	}
	if len(cmpn.Warnings) != 1 || !strings.Contains(cmpn.Warnings[0], "no tool catalogs") {
		t.Errorf("warnings %q", cmpn.Warnings)
	}
}
