// Package bfcl imports the Berkeley Function-Calling Leaderboard's
// single-turn categories (github.com/ShishirPatil/gorilla,
// berkeley-function-call-leaderboard) as a toolgrade suite, so that BFCL's
// questions run on a local Ollama through toolgrade's loop and are judged
// as BFCL judges them. The user supplies BFCL's files; nothing is
// downloaded, and no BFCL data is part of this package (its fixtures are
// written for the project).
//
// What is read: question files (BFCL_v3_*.json, BFCL_v4_*.json; JSON
// Lines of {id, question: [[{role, content}, ...]], function: [...]}) and
// possible-answer files (possible_answer/*.json; {id, ground_truth:
// [{function: {param: [accepted, ...]}}]}). Every problem is reported with
// its file:line (malformed JSON with its column).
//
// What a question becomes, and the BFCL code each rule mirrors:
//
//   - The category is the id less its index (simple_0, live_simple_3-1-0),
//     kept as the tag bfcl_category:CATEGORY beside bfcl; the id is kept.
//   - The functions become the case's own tools (never executed). Their
//     parameters are converted as BFCL's function-calling handlers convert
//     them (see Schema: func_doc_language_specific_pre_processing, then
//     convert_to_tool and _cast_to_openai_type with GORILLA_TO_OPENAPI):
//     dict → object, float → number (format float, "This is a float type
//     value." in the description), tuple → array, any → string (the
//     handlers' table says so, and the checker wants a string for any), a
//     property without a type → string; Java and JavaScript parameters are
//     all strings whose description names their type. A type the table
//     does not know is an error.
//   - Names with a dot are mapped "." → "_" (math.factorial →
//     math_factorial), as convert_to_tool does for the function-calling
//     models and convert_func_name does to the expected name before
//     comparing: the case expects the mapped name, and the YAML keeps
//     BFCL's name in a comment on the tool.
//   - simple, java, javascript, multiple (and live_ ones): one call
//     (simple_function_checker, multiple_function_checker: any other count
//     is "wrong_count"); parallel, parallel_multiple: every ground-truth
//     call, any order (parallel_function_checker_no_order); irrelevance,
//     live_irrelevance: no_tool; live_relevance: any_tool (a call to any
//     tool, any arguments).
//   - Each ground-truth parameter becomes a {bfcl: [...]} matcher
//     (suite.BFCLSpec: the accepted values, "" meaning it may be left out,
//     BFCL's type conversion, standardize_string, list_checker,
//     dict_checker, list_dict_checker), and strict_args is on: a parameter
//     the function does not define or the answer does not list is BFCL's
//     unexpected_param.
//
// Two verdicts: every trial of an imported case gets BFCL's own verdict
// (record.Score.BFCL, made by score from BFCL's rules alone, in BFCL's
// order: no schema check, BFCL's type_checker with its "variables", and
// parallel_function_checker_no_order's greedy pairing) beside toolgrade's
// finer outcome, which checks the tool's schema first (an enum BFCL never
// checks gives invalid_args) and pairs parallel calls by a maximum
// matching. Reports say how many trials the two disagree on.
//
// A parameter the possible answer lists but the function does not define
// is written {absent: true}, with a warning at the answer's file:line:
// simple_function_checker fails a call that sends it (unexpected_param).
// Strings a YAML 1.1 parser reads as another type are quoted.
//
// What cannot be known: Ollama decodes a call's arguments into Go values
// and encodes them again, so 5.0 reaches toolgrade as 5 (and integers past
// 2^53 lose precision). Where BFCL's verdict depends on whether an
// integral number was an int or a float (an integer parameter; the items
// of a float array, which BFCL's int-to-float conversion never reaches),
// the trial is marked open (BFCLVerdict.RoundTrip), and reports give
// BFCL's accuracy as a range over the open trials.
//
// A Java or JavaScript parameter of a collection type (ArrayList, HashMap,
// array, dict, ...) is not converted from its string form: a question
// whose ground truth has one is left out, with a warning.
package bfcl
