package record

import (
	"fmt"
	"strconv"
	"strings"
)

// Format is the version of the files a run directory holds (run.json, each
// trials.jsonl line, summary.json), as "MAJOR.MINOR". A minor version adds
// fields that older readers may ignore; a major version changes what existing
// fields mean, and older readers refuse it. Files written before versions
// existed have none and read as 1.0.
//
// 1.1 added score.irrelevance_ok and score.round_limit to trial lines: the
// scorer's own judgements, which 1.0 readers derived from the outcome and
// the transcript (record.Judge still does, for 1.0 lines).
//
// 1.2 added the hidden_constraint outcome, score.calls_valid_visible and
// hidden_only on executions; 1.1 lines read as having no hidden-only
// failures, their visible validity equal to their validity.
//
// 1.3 added the call_in_thinking outcome, score.calls_valid_coerced and
// score.calls_repeated, each trial's num_ctx, and in run.json the
// catalogs' sweep, decoys, think, options and case_catalogs, and
// keep_truncated. Truncated trials are out of the rates from 1.3 on unless
// keep_truncated; 1.2 lines read the same way, their truncated flag as
// written.
//
// 1.4 added in run.json each model's cost and each host's (models[].cost,
// models[].hosts[].cost and load_ns: what /api/ps reported once the model
// was loaded, and the speed of its trials); older run.json files have none.
//
// 1.5 added score.bfcl on the trials of cases imported from BFCL: BFCL's
// own verdict, apart from the outcome, and whether Ollama's round trip of
// numbers leaves it open; older lines derive the verdict from the outcome.
//
// 1.6 added judged to trial lines (the judge model's verdicts on the
// answer, for cases with a rubric), and in run.json the judge, the
// overrides judge_model and judge_repeat and a rescore's rejudged,
// judge_model and stale_verdicts; older lines have no judged answer.
//
// 1.7 added copy_of to trial lines (a repeat recorded as a copy of repeat 0,
// not sent to the model: cost readers leave it out) and in run.json
// all_repeats and schedule; older readers read a copy as the trial it
// copies.
//
// 1.8 added the call_failed outcome and score.calls_failed (the calls the
// model was given an error for); older lines count them from the
// transcript's executions, and were scored before call_failed existed.
//
// 1.9 added scenarios: the transcript's turns, setup and checks (each
// check's call, result and verdict), the wrong_state outcome and
// score.turn (the turn an outcome is about); a case of one question writes
// none of them, so its line is as in 1.8.
const Format = "1.9"

// FormatMajor is the major version of Format: the newest this build reads.
const FormatMajor = 1

// FormatError is a file written in a newer major format than this build
// reads.
type FormatError struct {
	// Version is the format the file declares.
	Version string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("written by a newer toolgrade (format %s); this one reads format %d: upgrade toolgrade", e.Version, FormatMajor)
}

// CheckFormat accepts a file's declared format version v when this build can
// read it: none (the files before versions), or a major version up to
// FormatMajor, whatever the minor. A newer major is a *FormatError.
func CheckFormat(v string) error {
	if v == "" {
		return nil
	}
	majorText, minorText, hasMinor := strings.Cut(v, ".")
	major, err := strconv.Atoi(majorText)
	if err == nil && hasMinor {
		_, err = strconv.Atoi(minorText)
	}
	if err != nil || major < 1 {
		return fmt.Errorf("format %q is not a version (MAJOR.MINOR, like %s)", v, Format)
	}
	if major > FormatMajor {
		return &FormatError{Version: v}
	}
	return nil
}
