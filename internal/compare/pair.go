package compare

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/srcpos"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
)

// groupKey is what a group holds fixed.
type groupKey struct{ model, variant string }

// pairKey identifies a trial within its side: its group, case and repeat.
type pairKey struct {
	g      groupKey
	caseID string
	repeat int
}

// slim is what a comparison keeps of one trial: its judgements and numbers,
// never its transcript, so memory grows with the number of trials only.
type slim struct {
	m       record.Judgements
	outcome string
	// detail is kept for failures only: a regression shows it.
	detail   string
	wall     time.Duration
	roundOff int32
	roundN   int32
	prompt   int
	eval     int
	evalDur  time.Duration
	load     time.Duration
	// copied: a copy of an earlier repeat (record.Trial.CopyOf), which
	// took no model time: its verdict counts, its numbers do not.
	copied bool
}

// side is every trial one side of a comparison kept, in the order given:
// pairing sorts them by key and walks both sides' lists at once, which
// costs less than a map from key to trial of 100,000 trials a side.
type side struct {
	trials []keyedSlim
	// sortedN is len(trials) when sorted last sorted them; -1: never.
	sortedN int
	// rounds holds every kept trial's round wall times; a slim points into
	// it, so a trial costs no slice of its own.
	rounds []time.Duration
	// outcomes interns outcome strings: a handful of values, 100,000 trials.
	outcomes map[string]string
}

// keyedSlim is one trial a side kept: its key, its place in the order
// given (of two with one key, the later counts), and its slim.
type keyedSlim struct {
	k   pairKey
	seq int
	sl  *slim
}

func newSide() *side {
	return &side{outcomes: map[string]string{}, sortedN: -1}
}

func (s *side) add(k pairKey, t *record.Trial, opts record.JudgeOptions) {
	s.keep(k, s.slim(t, opts))
}

func (s *side) keep(k pairKey, sl *slim) {
	s.trials = append(s.trials, keyedSlim{k, len(s.trials), sl})
}

// sorted sorts s's trials by key and drops those a later one of the same
// key supersedes. Trials come mostly in order within their group (a run
// writes a model's cases one after another, interleaved with other
// models'), so they are parted by group, keeping their order, and a group
// is sorted only when it is not already: reading, not sorting, is then
// what pairing costs.
func (s *side) sorted() []keyedSlim {
	if s.sortedN == len(s.trials) {
		return s.trials // sorted already, and nothing kept since
	}
	defer func() { s.sortedN = len(s.trials) }()
	// Which group each trial is in, and how many each has.
	var groups []groupKey
	var counts []int
	in := make([]int32, len(s.trials))
	g := -1
	for i, t := range s.trials {
		if g < 0 || groups[g] != t.k.g {
			if g = slices.Index(groups, t.k.g); g < 0 {
				g = len(groups)
				groups, counts = append(groups, t.k.g), append(counts, 0)
			}
		}
		in[i] = int32(g)
		counts[g]++
	}
	// Each group's place in the sorted whole, then its trials put there
	// in the order given.
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareGroups(groups[a], groups[b]) })
	start, at := make([]int, len(groups)+1), 0
	for _, g := range order {
		start[g] = at
		at += counts[g]
	}
	next := slices.Clone(start)
	all := make([]keyedSlim, len(s.trials))
	for i, t := range s.trials {
		all[next[in[i]]] = t
		next[in[i]]++
	}
	byCase := func(a, b keyedSlim) int {
		if c := strings.Compare(a.k.caseID, b.k.caseID); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.k.repeat, b.k.repeat), cmp.Compare(a.seq, b.seq))
	}
	out := all[:0]
	for _, g := range order {
		p := all[start[g] : start[g]+counts[g]]
		if !slices.IsSortedFunc(p, byCase) {
			slices.SortFunc(p, byCase)
		}
		for i, t := range p {
			if i+1 < len(p) && p[i+1].k == t.k {
				continue // superseded
			}
			out = append(out, t)
		}
	}
	s.trials = out
	return out
}

func compareGroups(a, b groupKey) int {
	if c := strings.Compare(a.model, b.model); c != 0 {
		return c
	}
	return strings.Compare(a.variant, b.variant)
}

func comparePairKeys(a, b pairKey) int {
	if c := compareGroups(a.g, b.g); c != 0 {
		return c
	}
	if c := strings.Compare(a.caseID, b.caseID); c != 0 {
		return c
	}
	return cmp.Compare(a.repeat, b.repeat)
}

// keyed is one trial as a one-pass read keeps it: its side, pair key and
// slim.
type keyed struct {
	side int
	k    pairKey
	sl   *slim
}

// readSides reads r's trials into sides in one pass, keeping of each only
// its slim (record.ReadLastKept); key gives a trial's side and pair key,
// false for a trial no side takes. With a sink, the trials are read as
// record.ReadLastSlim reads them and the sink is given each one too.
func readSides(r *store.Reader, sides []*side, opts record.JudgeOptions, sink Sink, key func(*record.Trial) (int, pairKey, bool)) ([]*record.SyntaxError, error) {
	if sink != nil {
		return r.SlimTrials(func() {
			for _, s := range sides {
				*s = *newSide()
			}
			sink.Reset()
		}, func(t *record.Trial) {
			j := record.JudgeWith(t, opts)
			sink.Add(t, j)
			if i, k, ok := key(t); ok {
				sides[i].keep(k, sides[i].slimJudged(t, j))
			}
		})
	}
	return store.SlimTrialsKept(r, func(t *record.Trial) keyed {
		i, k, ok := key(t)
		if !ok {
			return keyed{}
		}
		return keyed{i, k, sides[i].slim(t, opts)}
	}, func(kd keyed) {
		if kd.sl != nil {
			sides[kd.side].keep(kd.k, kd.sl)
		}
	})
}

// slim is what s keeps of t.
func (s *side) slim(t *record.Trial, opts record.JudgeOptions) *slim {
	return s.slimJudged(t, record.JudgeWith(t, opts))
}

// slimJudged is what s keeps of t, judged j.
func (s *side) slimJudged(t *record.Trial, j record.Judgements) *slim {
	o, ok := s.outcomes[t.Score.Outcome]
	if !ok {
		o = strings.Clone(t.Score.Outcome)
		s.outcomes[o] = o
	}
	sl := &slim{m: j, outcome: o}
	if o != record.OutcomePass {
		sl.detail = t.Score.Detail
	}
	sl.copied = t.IsCopy()
	if tr := t.Transcript; tr != nil && !sl.copied {
		sl.wall = tr.Wall
		sl.roundOff, sl.roundN = int32(len(s.rounds)), int32(len(tr.Rounds))
		for _, r := range tr.Rounds {
			s.rounds = append(s.rounds, r.Wall)
			sl.prompt += r.Metrics.PromptEvalCount
			sl.eval += r.Metrics.EvalCount
			sl.evalDur += r.Metrics.EvalDuration
			sl.load += r.Metrics.LoadDuration
		}
	}
	return sl
}

// Runs compares two run directories, pairing trials by model, variant, case
// and repeat. Bad lines of either trials file are returned as warnings.
func Runs(base, current *store.Reader, opts *Options) (*Comparison, []*record.SyntaxError, error) {
	c := &Comparison{Mode: ModeRuns, Base: base.Dir, Current: current.Dir, Dirs: []string{base.Dir, current.Dir},
		Margin: cmp.Or(current.Run.Margin, base.Run.Margin)}
	c.Drift, c.Catalog = runDrift(base.Run, current.Run)
	for _, r := range []*store.Reader{base, current} {
		if len(r.Run.Catalogs) == 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: run.json has no tool catalogs (an older run): catalog changes show only as a different catalog hash", r.Dir))
		}
	}
	changed := changedCases(base.Run, current.Run)
	c.ChangedCases = slices.Sorted(maps.Keys(changed))
	sides := [2]*side{newSide(), newSide()}
	// Decoding the trials is nearly all of the time: the two files are read
	// at once, each into its own side.
	var warns [2][]*record.SyntaxError
	var errs [2]error
	judge := opts.judge(base.Run, current.Run)
	var wg sync.WaitGroup
	for i, r := range []*store.Reader{base, current} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sink Sink
			if i == 1 {
				sink = opts.sink()
			}
			warns[i], errs[i] = readSides(r, sides[i:i+1], judge, sink, func(t *record.Trial) (int, pairKey, bool) {
				return 0, pairKey{groupKey{t.Model, t.Variant}, t.CaseID, t.Repeat}, true
			})
		}()
	}
	wg.Wait()
	warnings := append(warns[0], warns[1]...)
	if err := cmp.Or(errs[0], errs[1]); err != nil {
		return nil, warnings, err
	}
	models := [2]map[string]record.Model{modelMap(base.Run), modelMap(current.Run)}
	info := func(i int, g groupKey) *ModelInfo { return modelInfo(models[i], g.model) }
	c.build(sides, changed, opts, info)
	return c, warnings, nil
}

// Models compares models a and b of one run, pairing their trials by
// variant, case and repeat: the model-choice view.
func Models(r *store.Reader, a, b string, opts *Options) (*Comparison, []*record.SyntaxError, error) {
	sides := [2]*side{newSide(), newSide()}
	judge := opts.judge(r.Run)
	w, err := readSides(r, sides[:], judge, opts.sink(), func(t *record.Trial) (int, pairKey, bool) {
		i := slices.Index([]string{a, b}, t.Model)
		return i, modelPairKey(t), i >= 0
	})
	if err != nil {
		return nil, w, err
	}
	c, err := modelsCompared(r, a, b, sides, opts)
	return c, w, err
}

// modelPairKey is t's key in a comparison of models: its variant, case and
// repeat.
func modelPairKey(t *record.Trial) pairKey {
	return pairKey{groupKey{"", t.Variant}, t.CaseID, t.Repeat}
}

// modelsCompared is the comparison of models a and b of r from their
// sides, read.
func modelsCompared(r *store.Reader, a, b string, sides [2]*side, opts *Options) (*Comparison, error) {
	c := &Comparison{Mode: ModeModels, Base: a, Current: b, Dirs: []string{r.Dir}, Margin: r.Run.Margin}
	for i, name := range []string{a, b} {
		if len(sides[i].trials) == 0 {
			return nil, fmt.Errorf("%s: model %q has no trials%s", r.Dir, name, runNames(name, modelNames(r.Run), "models of the run"))
		}
	}
	models := modelMap(r.Run)
	names := [2]string{a, b}
	c.build(sides, nil, opts, func(i int, _ groupKey) *ModelInfo { return modelInfo(models, names[i]) })
	c.Warnings = append(c.Warnings, costNotes(r.Run, a, b)...)
	return c, nil
}

// costNotes are what the cost lines of models a and b of run rest on: one
// weights under two names (their differences are noise), and a latency
// confounded with time when they ran one after the other.
func costNotes(run *record.Run, a, b string) []string {
	var pair []record.Model
	for _, m := range run.Models {
		if m.Name == a || m.Name == b {
			pair = append(pair, m)
		}
	}
	out := record.SameWeights(pair)
	if run.CostConfounded() {
		out = append(out, fmt.Sprintf("%s and %s ran one after another (blocks): their latency and speed may differ with the machine's load at the time, not theirs", a, b))
	}
	return out
}

// Variants compares variants a and b of one run ("base" or "" is the
// servers' own catalog), pairing their trials by model, case and repeat.
func Variants(r *store.Reader, a, b string, opts *Options) (*Comparison, []*record.SyntaxError, error) {
	va, vb := variantName(a), variantName(b)
	c := &Comparison{Mode: ModeVariants, Base: VariantLabel(va), Current: VariantLabel(vb), Dirs: []string{r.Dir}, Margin: r.Run.Margin}
	c.Catalog = variantDiff(r.Run, va, vb)
	sides := [2]*side{newSide(), newSide()}
	judge := opts.judge(r.Run)
	w, err := readSides(r, sides[:], judge, opts.sink(), func(t *record.Trial) (int, pairKey, bool) {
		k := pairKey{groupKey{t.Model, ""}, t.CaseID, t.Repeat}
		i := slices.Index([]string{va, vb}, t.Variant)
		return i, k, i >= 0
	})
	if err != nil {
		return nil, w, err
	}
	for i, v := range []string{va, vb} {
		if len(sides[i].trials) == 0 {
			var names []string
			for _, c := range r.Run.Catalogs {
				names = append(names, VariantLabel(c.Variant))
			}
			return nil, w, fmt.Errorf("%s: variant %q has no trials%s", r.Dir, VariantLabel(v), runNames(VariantLabel(v), names, "variants of the run"))
		}
	}
	models := modelMap(r.Run)
	c.build(sides, nil, opts, func(_ int, g groupKey) *ModelInfo { return modelInfo(models, g.model) })
	return c, w, nil
}

// VariantLabel is how a variant is shown: "base" for the servers' own.
func VariantLabel(v string) string {
	if v == "" {
		return "base"
	}
	return v
}

func variantName(label string) string {
	if label == "base" {
		return ""
	}
	return label
}

func modelMap(r *record.Run) map[string]record.Model {
	m := map[string]record.Model{}
	for _, md := range r.Models {
		m[md.Name] = md
	}
	return m
}

func modelNames(r *record.Run) []string {
	var n []string
	for _, m := range r.Models {
		n = append(n, m.Name)
	}
	return n
}

func modelInfo(models map[string]record.Model, name string) *ModelInfo {
	if name == "" {
		return nil
	}
	m, ok := models[name]
	if !ok {
		return &ModelInfo{Name: name}
	}
	return &ModelInfo{Name: m.Name, Digest: m.Digest, ParameterSize: m.ParameterSize, Quantization: m.Quantization, WarmupSeconds: m.Load.Seconds()}
}

// changedCases are the ids both runs hash differently; a run without hashes
// pairs by id alone.
func changedCases(a, b *record.Run) map[string]bool {
	out := map[string]bool{}
	if a.Cases == nil || b.Cases == nil {
		return out
	}
	for id, h := range a.Cases {
		if h2, ok := b.Cases[id]; ok && h2 != h {
			out[id] = true
		}
	}
	return out
}

// groupAcc accumulates one group.
type groupAcc struct {
	key groupKey
	g   Group
	// metrics are the rates compared (the table's Paired ones), rates
	// their tallies in that order.
	metrics []metric.Metric
	rates   []rateAcc
	walls   [2][]float64
	rounds  [2][]float64
	cost    [2]costAcc
	// cases are the cases paired, in the order first paired: pairs come
	// in key order, so a case's come one after the other, and the cases
	// in id order.
	cases    []*caseAcc
	unpaired map[unpairedKey][]int
}

type unpairedKey struct {
	side   int
	caseID string
}

type rateAcc struct {
	k, n          [2]int
	worse, better int
	// ck and cn count as the summary does (calls, for the validity rates).
	ck, cn [2]int
	// side tallies each side's rate case by case and callDelta how
	// counting by call changes it (empty for a rate every trial counts
	// once, which is most of them); pairs tallies the
	// pairs defined on both sides (A current, B base, in the "met" sense):
	// a case's repeats are one cluster.
	side, callDelta [2]stats.RateCases
	pairs           stats.PairedCases
}

type costAcc struct {
	prompt, eval  int
	evalDur, load time.Duration
	trials        int
}

type caseAcc struct {
	id string
	// idx numbers the case in its group, for the rates' per-case tallies.
	idx           int
	k, n          [2]int
	worse, better int
	reg, fix      *CaseChange
	// wallAt and roundAt are where the case's latencies start in its
	// group's walls and rounds: a case's pairs come one after another, so
	// its latencies do too, and end where the next case's start.
	wallAt, roundAt [2]int
}

// newGroupAcc is an empty group of metrics; cases and trials are about how
// many it will count (0: unknown), so that its tallies are made the size
// they grow to at once.
func newGroupAcc(g groupKey, metrics []metric.Metric, cases, trials int) *groupAcc {
	ga := &groupAcc{key: g, g: Group{Model: g.model, Variant: g.variant}, metrics: metrics, rates: make([]rateAcc, len(metrics)),
		unpaired: map[unpairedKey][]int{}, cases: make([]*caseAcc, 0, cases)}
	for i := range ga.rates {
		ra := &ga.rates[i]
		ra.side = [2]stats.RateCases{make(stats.RateCases, 0, cases), make(stats.RateCases, 0, cases)}
		ra.pairs = make(stats.PairedCases, 0, cases)
	}
	for i := range 2 {
		ga.walls[i] = make([]float64, 0, trials)
	}
	return ga
}

// sizes is how many cases and trials each group of s has, s sorted.
func (s *side) sizes() map[groupKey][2]int {
	out := map[groupKey][2]int{}
	for i, t := range s.trials {
		n := out[t.k.g]
		n[1]++
		if i == 0 || s.trials[i-1].k.g != t.k.g || s.trials[i-1].k.caseID != t.k.caseID {
			n[0]++
		}
		out[t.k.g] = n
	}
	return out
}

// build pairs the two sides and fills c's groups.
func (c *Comparison) build(sides [2]*side, changed map[string]bool, opts *Options, info func(side int, g groupKey) *ModelInfo) {
	c.Format = Format
	c.Alpha = opts.alpha()
	if opts != nil && opts.Margin > 0 {
		// --margin over the suite's margin: (run.json's).
		c.Margin = opts.Margin
	}
	metrics := metric.Select(metric.Rate, metric.Paired)
	sides[0].sorted()
	sizes := sides[0].sizes()
	groups := map[groupKey]*groupAcc{}
	var ga *groupAcc
	eachPair(sides, func(k pairKey, pair [2]*slim) {
		if ga == nil || ga.key != k.g {
			if ga = groups[k.g]; ga == nil {
				n := sizes[k.g]
				ga = newGroupAcc(k.g, metrics, n[0], n[1])
				groups[k.g] = ga
			}
		}
		ga.add(k, pair, changed[k.caseID], sides)
	})
	for _, g := range slices.SortedFunc(maps.Keys(groups), func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.model, b.model), cmp.Compare(a.variant, b.variant))
	}) {
		ga := groups[g]
		ga.finish(c.Alpha, c.Margin, func(i int) *ModelInfo { return info(i, g) })
		c.Groups = append(c.Groups, ga.g)
		if ga.g.Pairs == 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: no trial is on both sides: nothing to compare", groupLabel(&ga.g)))
		}
	}
	if c.Drift == nil {
		c.Drift = []Drift{}
	}
	if c.Catalog == nil {
		c.Catalog = []CatalogChange{}
	}
	if c.ChangedCases == nil {
		c.ChangedCases = []string{}
	}
}

// eachPair calls fn with the key of each trial of either side, once, in
// key order, and the trials of both sides with that key (nil where a side
// has none): pairs are visited so, and every list and "first pair" is the
// same whatever order the trials were written in.
func eachPair(sides [2]*side, fn func(pairKey, [2]*slim)) {
	a, b := sides[0].sorted(), sides[1].sorted()
	for len(a) > 0 || len(b) > 0 {
		c := 0
		switch {
		case len(a) == 0:
			c = 1
		case len(b) == 0:
			c = -1
		default:
			c = comparePairKeys(a[0].k, b[0].k)
		}
		switch {
		case c < 0:
			fn(a[0].k, [2]*slim{a[0].sl, nil})
			a = a[1:]
		case c > 0:
			fn(b[0].k, [2]*slim{nil, b[0].sl})
			b = b[1:]
		default:
			fn(a[0].k, [2]*slim{a[0].sl, b[0].sl})
			a, b = a[1:], b[1:]
		}
	}
}

// add counts the trials of key k, one side's or both (a nil one is absent),
// as left out (the case changed), unpaired, or a pair, which the rates
// count when neither trial is an infrastructure error or excluded.
func (ga *groupAcc) add(k pairKey, pair [2]*slim, changed bool, sides [2]*side) {
	if changed {
		for i, t := range pair {
			if t != nil {
				*ga.g.ChangedTrials.at(i)++
			}
		}
		return
	}
	if pair[0] == nil || pair[1] == nil {
		i := 0
		if pair[0] == nil {
			i = 1
		}
		uk := unpairedKey{i, k.caseID}
		ga.unpaired[uk] = append(ga.unpaired[uk], k.repeat)
		*ga.g.UnpairedCount.at(i)++
		return
	}
	ga.g.Pairs++
	for i, t := range pair {
		if t.m.Infra {
			*ga.g.Infra.at(i)++
		}
		if t.m.Excluded {
			*ga.g.Truncated.at(i)++
		}
	}
	if !pair[0].m.Counted() || !pair[1].m.Counted() {
		return
	}
	ga.g.Scored++
	ga.addPair(k, pair, sides)
}

// at returns the side i figure.
func (p *SidePair[T]) at(i int) *T {
	if i == 0 {
		return &p.Base
	}
	return &p.Current
}

func groupLabel(g *Group) string {
	switch {
	case g.Model != "" && g.Variant != "":
		return g.Model + " / " + g.Variant
	case g.Model != "":
		return g.Model
	case g.Variant != "":
		return "variant " + g.Variant
	}
	return "all"
}

// GroupLabel is how a group is named in reports.
func GroupLabel(g *Group, mode string) string {
	switch mode {
	case ModeModels:
		return "variant " + VariantLabel(g.Variant)
	case ModeVariants:
		return g.Model
	}
	return g.Model + " · " + VariantLabel(g.Variant)
}

func (ga *groupAcc) addPair(k pairKey, pair [2]*slim, sides [2]*side) {
	var cc *caseAcc
	if n := len(ga.cases); n > 0 && ga.cases[n-1].id == k.caseID {
		cc = ga.cases[n-1]
	} else {
		cc = &caseAcc{id: k.caseID, idx: n,
			wallAt: [2]int{len(ga.walls[0]), len(ga.walls[1])}, roundAt: [2]int{len(ga.rounds[0]), len(ga.rounds[1])}}
		ga.cases = append(ga.cases, cc)
	}
	for mi := range ga.metrics {
		m, ra := &ga.metrics[mi], &ga.rates[mi]
		a, b := m.Judgement(&pair[0].m), m.Judgement(&pair[1].m)
		for i, jd := range [2]record.Judgement{a, b} {
			k1, n1 := 0, 0
			if jd.Defined {
				n1 = 1
				if jd.OK {
					k1 = 1
				}
				ra.n[i]++
				ra.k[i] += k1
				ra.side[i].Add(cc.idx, jd.OK)
			}
			ck, cn := m.Count(&pair[i].m)
			ra.ck[i] += ck
			ra.cn[i] += cn
			if ck != k1 || cn != n1 {
				ra.callDelta[i].AddCounts(cc.idx, ck-k1, cn-n1)
			}
		}
		if a.Defined && b.Defined {
			ra.pairs.Add(cc.idx, b.OK, a.OK)
		}
		if a.Defined && b.Defined && a.OK != b.OK {
			// OK means "met" for every metric; for one where lower is
			// better (round_limit: hitting the limit) meeting it is the
			// bad direction.
			gotWorse := a.OK && !b.OK
			if m.LowerIsBetter {
				gotWorse = !gotWorse
			}
			if gotWorse {
				ra.worse++
			} else {
				ra.better++
			}
		}
	}
	for i, t := range pair {
		if t.copied {
			continue // no model time: latency, tokens and speed leave it out
		}
		ga.walls[i] = append(ga.walls[i], t.wall.Seconds())
		for _, w := range sides[i].rounds[t.roundOff : t.roundOff+t.roundN] {
			ga.rounds[i] = append(ga.rounds[i], w.Seconds())
		}
		ca := &ga.cost[i]
		ca.trials++
		ca.prompt += t.prompt
		ca.eval += t.eval
		ca.evalDur += t.evalDur
		ca.load += t.load
	}
	for i, t := range pair {
		cc.n[i]++
		if t.m.Pass.OK {
			cc.k[i]++
		}
	}
	switch p0, p1 := pair[0].m.Pass.OK, pair[1].m.Pass.OK; {
	case p0 && !p1:
		cc.worse++
		if cc.reg == nil {
			cc.reg = &CaseChange{Case: k.caseID, Kind: KindRegression, Repeat: k.repeat,
				Outcome: SidePair[string]{pair[0].outcome, pair[1].outcome}, Detail: pair[1].detail}
		}
	case !p0 && p1:
		cc.better++
		if cc.fix == nil {
			cc.fix = &CaseChange{Case: k.caseID, Kind: KindFix, Repeat: k.repeat,
				Outcome: SidePair[string]{pair[0].outcome, pair[1].outcome}, Detail: pair[0].detail}
		}
	}
}

// byCall is side i's rate counted by call, case by case: its trials'
// tallies and the differences their calls made.
func (ra *rateAcc) byCall(i int) stats.Rate {
	cases := slices.Clone(ra.side[i])
	for j, d := range ra.callDelta[i] {
		cases.AddCounts(j, int(d.K), int(d.N))
	}
	return cases.Rate()
}

// finish turns the tallies into the group's rows; a margin above 0 judges
// each rate's non-inferiority too.
func (ga *groupAcc) finish(alpha, margin float64, info func(int) *ModelInfo) {
	g := &ga.g
	for mi, ra := range ga.rates {
		m := &ga.metrics[mi]
		if m.Is(metric.Sparse) && ra.n == [2]int{} {
			// A rate only some suites have (judged): no row where
			// neither side counts it, as summary.json omits it.
			continue
		}
		row := RateRow{Metric: m.Name, LowerIsBetter: m.LowerIsBetter,
			Rate:  SidePair[stats.Rate]{ra.side[0].Rate(), ra.side[1].Rate()},
			Worse: ra.worse, Better: ra.better, pairs: ra.pairs.Counts(), components: ra.pairs.Components(),
			Evidence: ra.pairs.Evidence()}
		row.Deff = row.pairs.Deff
		row.Delta = row.Rate.Current.Value() - row.Rate.Base.Value()
		row.P = stats.McNemarCounts(row.pairs)
		row.TooFew = stats.McNemarFloor(row.pairs) >= alpha
		row.Verdict = verdict(row.P, alpha, ra.better > ra.worse)
		if ra.ck != ra.k || ra.cn != ra.n {
			row.ByCall = &SidePair[stats.Rate]{ra.byCall(0), ra.byCall(1)}
		}
		if margin > 0 {
			row.NonInferiority = row.JudgeNonInferiority(margin)
		}
		if m.Name == metric.Pass {
			g.Evidence = row.Evidence
		}
		g.Rates = append(g.Rates, row)
	}
	g.Latency = []LatencyRow{
		latencyRow("trial", ga.walls, ga.caseMedians(ga.walls, func(c *caseAcc) [2]int { return c.wallAt }), alpha),
		latencyRow("round", ga.rounds, ga.caseMedians(ga.rounds, func(c *caseAcc) [2]int { return c.roundAt }), alpha),
	}
	for i := range 2 {
		ca := ga.cost[i]
		c := Cost{PromptTokens: ca.prompt, EvalTokens: ca.eval, LoadSeconds: ca.load.Seconds(), Model: info(i)}
		if ca.trials > 0 {
			c.EvalPerTrial = float64(ca.eval) / float64(ca.trials)
		}
		if ca.evalDur > 0 {
			c.TokensPerSecond = float64(ca.eval) / ca.evalDur.Seconds()
		}
		*g.Cost.at(i) = c
	}
	for _, cc := range ga.cases {
		var ch *CaseChange
		switch {
		case cc.worse > cc.better:
			ch = cc.reg
		case cc.better > cc.worse:
			ch = cc.fix
		default:
			continue
		}
		// One case's repeats are that case's own evidence: its rate
		// counts them as its trials.
		ch.Pass = SidePair[stats.Rate]{stats.Rate{K: cc.k[0], N: cc.n[0]}, stats.Rate{K: cc.k[1], N: cc.n[1]}}
		ch.P = stats.McNemar(cc.worse, cc.better)
		ch.Supported = ch.P < alpha
		if ch.Kind == KindRegression {
			g.Regressions++
			if ch.Supported {
				g.SupportedRegressions++
			}
		} else {
			g.Fixes++
		}
		g.Cases = append(g.Cases, *ch)
	}
	slices.SortStableFunc(g.Cases, func(a, b CaseChange) int {
		// Regressions first; within a kind, by case id (already sorted).
		return cmp.Compare(b.Kind, a.Kind)
	})
	g.Unpaired = []Unpaired{}
	for _, uk := range slices.SortedFunc(maps.Keys(ga.unpaired), func(a, b unpairedKey) int {
		return cmp.Or(cmp.Compare(a.side, b.side), cmp.Compare(a.caseID, b.caseID))
	}) {
		name := "base"
		if uk.side == 1 {
			name = "current"
		}
		g.Unpaired = append(g.Unpaired, Unpaired{Side: name, Case: uk.caseID, Repeats: ga.unpaired[uk]})
	}
	if g.Cases == nil {
		g.Cases = []CaseChange{}
	}
}

// verdict is benchstat's: a direction only when p < alpha.
func verdict(p, alpha float64, improved bool) string {
	switch {
	case p >= alpha:
		return Same
	case improved:
		return Better
	}
	return Worse
}

// caseMedians is one latency per case and side: the median of the case's
// latencies in v (its repeats', copies left out), which start at at(case).
// A case's repeats are one cluster: the latency test counts cases, as
// every rate and paired test does, not the repeats that would make a
// model's steady latency look like many observations.
func (ga *groupAcc) caseMedians(v [2][]float64, at func(*caseAcc) [2]int) [2][]float64 {
	var out [2][]float64
	var buf []float64
	for i := range 2 {
		out[i] = make([]float64, 0, len(ga.cases))
		for ci, cc := range ga.cases {
			end := len(v[i])
			if ci+1 < len(ga.cases) {
				end = at(ga.cases[ci+1])[i]
			}
			if from := at(cc)[i]; from < end {
				buf = append(buf[:0], v[i][from:end]...)
				out[i] = append(out[i], median(buf))
			}
		}
	}
	return out
}

// median is the median of v (the mean of the middle two of an even
// count), which it sorts.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[n/2]
}

// latencyRow is one latency's row: the distributions of trials (or
// rounds) v, and the Mann-Whitney U test over cases, one latency a case
// and side (caseMedians).
func latencyRow(name string, v, cases [2][]float64, alpha float64) LatencyRow {
	row := LatencyRow{Name: name, Cases: SidePair[int]{len(cases[0]), len(cases[1])}}
	for i := range 2 {
		slices.Sort(v[i])
		*row.Dist.at(i) = Dist{N: len(v[i]), P50: quantile(v[i], 0.5), P95: quantile(v[i], 0.95)}
	}
	if b := row.Dist.Base.P50; b > 0 {
		row.Delta = row.Dist.Current.P50/b - 1
	}
	u := stats.MannWhitney(cases[0], cases[1])
	row.P = u.P
	// The smallest p the sizes allow: every base value below every current
	// one, no ties. Past the exact limit it is far below any alpha.
	n1, n2 := len(cases[0]), len(cases[1])
	row.TooFew = n1 == 0 || n2 == 0 ||
		(n1+n2 <= stats.MannWhitneyExactLimit && stats.MannWhitney(seqFloat(0, n1), seqFloat(n1, n2)).P >= alpha)
	// U counts base values above current ones: a large U means Current is
	// faster.
	row.Verdict = verdict(u.P, alpha, u.U > float64(u.N1*u.N2)/2)
	return row
}

func seqFloat(from, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(from + i)
	}
	return s
}

// quantile is the nearest-rank q-quantile of sorted v (0 when empty), the
// definition stats.Histogram estimates for the report.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

// runNames is " (did you mean "n"? models of the run: m, n)" for a name the
// run lacks, without the suggestion when none is near.
func runNames(name string, names []string, noun string) string {
	list := noun + ": " + strings.Join(names, ", ")
	if s := srcpos.Suggest(name, names); s != "" && s != name {
		return fmt.Sprintf(" (did you mean %q? %s)", s, list)
	}
	return " (" + list + ")"
}
