package bfcl

import (
	"strings"
)

// Categories are the single-turn categories import knows, with BFCL v4's
// names for the simple ones (simple_python, simple_java,
// simple_javascript) beside v3's (simple, java, javascript).
var Categories = []string{
	"simple", "simple_python", "java", "simple_java", "javascript", "simple_javascript",
	"multiple", "parallel", "parallel_multiple", "irrelevance",
	"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
	"live_irrelevance", "live_relevance",
}

// CategoryOf returns the category of a BFCL id: the id less its index
// after the last underscore (simple_0, live_simple_19-3-15), as BFCL's own
// sort key (extract_test_category_from_id) splits it; "" when the id names
// no category import knows.
func CategoryOf(id string) string {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return ""
	}
	cat := id[:i]
	for _, c := range Categories {
		if c == cat {
			return cat
		}
	}
	return ""
}

// Language returns how a category's values are written: java and
// javascript for those categories, else python.
func Language(cat string) string {
	switch cat {
	case "java", "simple_java":
		return "java"
	case "javascript", "simple_javascript":
		return "javascript"
	}
	return "python"
}

// Kind is what a category's cases expect.
type Kind int

// The kinds of category.
const (
	// OneCall: exactly one call (simple and multiple: BFCL's
	// simple_function_checker and multiple_function_checker, which first
	// require one call).
	OneCall Kind = iota
	// Parallel: all the ground truth's calls, in any order
	// (parallel_function_checker_no_order).
	Parallel
	// Irrelevance: no call (BFCL: valid when no function call could be
	// decoded).
	Irrelevance
	// Relevance: some call, any function, any arguments (live_relevance:
	// valid when a call could be decoded).
	Relevance
)

// KindOf returns the kind of a category, as BFCL's ast_checker picks its
// checker ("parallel" in the name first, then "multiple").
func KindOf(cat string) Kind {
	switch {
	case strings.Contains(cat, "irrelevance"):
		return Irrelevance
	case strings.Contains(cat, "relevance"):
		return Relevance
	case strings.Contains(cat, "parallel"):
		return Parallel
	}
	return OneCall
}
