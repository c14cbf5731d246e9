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
// tagged with a BFCL category, nil for other trials. Where toolgrade's
// outcomes are finer, BFCL has one verdict:
//
//   - irrelevance categories: valid when the model made no call
//     (eval_runner's relevance_file_runner: no function call could be
//     decoded); unlike toolgrade's irrelevance rate, a call written in the
//     text (call_in_text) is valid, since BFCL's function-calling handlers
//     decode only the structured calls;
//   - relevance categories (live_relevance): valid when the model made a
//     call, to any tool with any arguments: the any_tool case passes, or
//     the call named a tool not offered (hallucinated_tool), which BFCL
//     decodes as a call all the same;
//   - every other category: valid when the case passes (BFCL's
//     ast_checker valid; invalid_args, wrong_args, wrong_tool,
//     missing_call, extra_call and the no-call outcomes are all invalid).
func judgeBFCL(t *Trial) *Judgement {
	cat := BFCLCategory(t.Tags)
	if cat == "" {
		return nil
	}
	o := t.Score.Outcome
	switch {
	case strings.Contains(cat, "irrelevance"):
		return &Judgement{Defined: true, OK: o != OutcomeUnexpectedCall}
	case strings.Contains(cat, "relevance"):
		return &Judgement{Defined: true, OK: o == OutcomePass || o == OutcomeHallucinatedTool}
	default:
		return &Judgement{Defined: true, OK: o == OutcomePass}
	}
}
