package record

import "strings"

// BFCLCategoryTag prefixes the tag that names a case's BFCL category
// (bfcl_category:simple), as toolgrade import bfcl writes it.
const BFCLCategoryTag = "bfcl_category:"

// BFCLCategory returns the BFCL category a trial's tags name, or "".
func BFCLCategory(tags []string) string {
	for _, t := range tags {
		if c, ok := strings.CutPrefix(t, BFCLCategoryTag); ok {
			return c
		}
	}
	return ""
}

// judgeBFCL is BFCL's single valid/invalid figure for a trial of a case
// tagged with a BFCL category, nil for other trials: the scorer's
// Score.BFCL when the trial has one (format 1.5 on), else, for an older
// trial, the verdict read from its outcome as toolgrade gave it then:
//
//   - irrelevance categories: valid when the model made no call;
//   - relevance categories: valid when the model made a call;
//   - every other category: valid when the case passes.
//
// roundTrip reports whether the verdict is open because of Ollama's round
// trip of numbers (BFCLVerdict.RoundTrip).
func judgeBFCL(t *Trial) (j *Judgement, roundTrip bool) {
	cat := BFCLCategory(t.Tags)
	if cat == "" {
		return nil, false
	}
	if v := t.Score.BFCL; v != nil {
		return &Judgement{Defined: true, OK: v.Valid}, v.RoundTrip
	}
	o := t.Score.Outcome
	switch {
	case strings.Contains(cat, "irrelevance"):
		return &Judgement{Defined: true, OK: o != OutcomeUnexpectedCall}, false
	case strings.Contains(cat, "relevance"):
		return &Judgement{Defined: true, OK: o == OutcomePass || o == OutcomeHallucinatedTool}, false
	default:
		return &Judgement{Defined: true, OK: o == OutcomePass}, false
	}
}
