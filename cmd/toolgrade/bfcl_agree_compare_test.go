package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/toolgrade/toolgrade/internal/bfcl/bfclfake"
	"github.com/toolgrade/toolgrade/internal/record"
)

// agreement is what TestBFCLAgreement measured: the outputs judged by both
// sides, how many verdicts agree (in all, in the round trip and outside it),
// per kind of output, and the disagreements grouped with examples.
type agreement struct {
	total, agree       int
	roundTrip, rtAgree int // trials whose toolgrade verdict is open
	// encoded, encAgree: outputs whose BFCL verdict Ollama's encoding
	// changes (what toolgradeVerdict's open should catch).
	encoded, encAgree int
	missing           int // outputs without a trial or a BFCL verdict
	// passDiffers counts the trials whose toolgrade outcome (pass or not)
	// differs from BFCL's verdict; maxMatching those toolgrade passes that
	// BFCL's greedy pairing of parallel calls fails on the same arguments.
	passDiffers, maxMatching int
	maxMatchingExamples      []string
	byKind                   map[string]*[2]int
	groups                   map[string]*agreeGroup
	// all is every disagreement, one JSON object each (written beside the
	// report, for grouping by cause).
	all []map[string]any
}

// agreeGroup is the disagreements of one kind of output in one category,
// one way round, with up to three examples.
type agreeGroup struct {
	kind, category, way string
	n                   int
	examples            []string
}

// compareAgreement pairs each output's BFCL verdict with toolgrade's
// verdict of the trial that played it.
func compareAgreement(outs []bfclfake.Output, trials []*record.Trial, verdicts map[string]bfclVerdict) *agreement {
	byTrial := map[[2]string]*record.Trial{}
	for _, tr := range trials {
		byTrial[[2]string{strings.TrimSuffix(tr.Model, ":latest"), tr.CaseID}] = tr
	}
	m := &agreement{byKind: map[string]*[2]int{}, groups: map[string]*agreeGroup{}}
	for _, o := range outs {
		var n int
		fmt.Sscanf(o.ID[strings.LastIndexByte(o.ID, '#')+1:], "%d", &n)
		tr := byTrial[[2]string{agreementModel(n), o.Question}]
		v, ok := verdicts[o.ID]
		if tr == nil || !ok {
			m.missing++
			continue
		}
		valid, open := toolgradeVerdict(tr)
		same := valid == v.Valid
		m.total++
		if pass := tr.Score.Outcome == record.OutcomePass; pass != v.Valid {
			m.passDiffers++
			// On the arguments as received, so the round trip plays no
			// part: the pairing alone differs.
			if b := tr.Score.BFCL; pass && b != nil && !b.Valid && strings.HasSuffix(b.Error, ":cannot_find_match") {
				m.maxMatching++
				if len(m.maxMatchingExamples) < 5 {
					res, _ := o.BFCLResult()
					m.maxMatchingExamples = append(m.maxMatchingExamples, fmt.Sprintf("%s (%s): %s", o.ID, o.Detail, clip(asJSON(res), 400)))
				}
			}
		}
		k := m.byKind[o.Kind]
		if k == nil {
			k = &[2]int{}
			m.byKind[o.Kind] = k
		}
		k[0]++
		if same {
			m.agree++
			k[1]++
		}
		if v.Valid != v.ValidReceived {
			m.encoded++
			if same {
				m.encAgree++
			}
		}
		if open {
			m.roundTrip++
			if same {
				m.rtAgree++
			}
			continue
		}
		if !same {
			m.disagree(o, tr, v)
		}
	}
	return m
}

// disagree adds a disagreement outside the round trip to its group.
func (m *agreement) disagree(o bfclfake.Output, tr *record.Trial, v bfclVerdict) {
	way := "BFCL valid, toolgrade invalid"
	if !v.Valid {
		way = "BFCL invalid, toolgrade valid"
	}
	if v.Valid != v.ValidReceived {
		way += " (Ollama's encoding changes BFCL's verdict)"
	}
	key := o.Kind + "\x00" + o.Category + "\x00" + way
	g := m.groups[key]
	if g == nil {
		g = &agreeGroup{kind: o.Kind, category: o.Category, way: way}
		m.groups[key] = g
	}
	g.n++
	res, _ := o.BFCLResult()
	m.all = append(m.all, map[string]any{"id": o.ID, "kind": o.Kind, "category": o.Category, "detail": o.Detail,
		"output": res, "bfcl_valid": v.Valid, "bfcl_received_valid": v.ValidReceived, "bfcl_error_type": v.ErrorType,
		"bfcl_error": v.Error, "outcome": tr.Score.Outcome, "outcome_detail": tr.Score.Detail})
	if len(g.examples) < 3 {
		bfclErr := v.ErrorType
		if v.Error != "" {
			bfclErr += ": " + v.Error
		}
		g.examples = append(g.examples, fmt.Sprintf("%s (%s)\n      output:    %s\n      BFCL:      %s\n      toolgrade: %s (%s)",
			o.ID, o.Detail, clip(asJSON(res), 400), clip(bfclErr, 300), tr.Score.Outcome, clip(tr.Score.Detail, 300)))
	}
}

// outsideRate is the agreement outside the round trip.
func (m *agreement) outsideRate() float64 {
	n := m.total - m.roundTrip
	if n == 0 {
		return 0
	}
	return float64(m.agree-m.rtAgree) / float64(n)
}

// summary is the measurement in a few lines.
func (m *agreement) summary() string {
	pct := func(k, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f%%", 100*float64(k)/float64(n))
	}
	dis := 0
	for _, g := range m.groups {
		dis += g.n
	}
	return fmt.Sprintf("BFCL agreement: %d outputs judged by both (%d without a trial or a verdict)\n"+
		"  overall:                 %s (%d of %d)\n"+
		"  outside the round trip:  %s (%d of %d; %d disagree)\n"+
		"  round trip (open):       %d trials, %d agreeing\n"+
		"  BFCL's verdict changed by Ollama's encoding: %d outputs, %d agreeing; agreement outside them: %s\n"+
		"  toolgrade's pass differs from BFCL's verdict: %d trials; passed by the maximum matching of parallel calls, failed by BFCL's greedy pairing: %d",
		m.total, m.missing, pct(m.agree, m.total), m.agree, m.total,
		pct(m.agree-m.rtAgree, m.total-m.roundTrip), m.agree-m.rtAgree, m.total-m.roundTrip, dis,
		m.roundTrip, m.rtAgree, m.encoded, m.encAgree, pct(m.agree-m.encAgree, m.total-m.encoded), m.passDiffers, m.maxMatching)
}

// write writes the summary, the agreement per kind of output, and the
// disagreements outside the round trip by kind and category, largest
// first, with examples.
func (m *agreement) write(w io.Writer) {
	fmt.Fprintln(w, m.summary())
	if len(m.maxMatchingExamples) > 0 {
		fmt.Fprintln(w, "\npassed by the maximum matching, failed by BFCL's greedy pairing, e.g.:\n  "+strings.Join(m.maxMatchingExamples, "\n  "))
	}
	fmt.Fprintln(w, "\nby kind of output (outputs, agreeing):")
	for _, k := range sortedKeys(m.byKind) {
		fmt.Fprintf(w, "  %-22s %6d %6d\n", k, m.byKind[k][0], m.byKind[k][1])
	}
	groups := make([]*agreeGroup, 0, len(m.groups))
	for _, g := range m.groups {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if a.n != b.n {
			return a.n > b.n
		}
		return a.kind+a.category+a.way < b.kind+b.category+b.way
	})
	fmt.Fprintln(w, "\ndisagreements outside the round trip (kind, category, which way: count):")
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s, %s, %s: %d\n", g.kind, g.category, g.way, g.n)
		for _, e := range g.examples {
			fmt.Fprintf(w, "  - %s\n", e)
		}
	}
}

// asJSON is v as JSON.
func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// clip shortens s to n runes on one line, for the report's examples.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
