package main

import (
	"context"
	"io"

	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/rescore"
	"github.com/toolgrade/toolgrade/internal/runs"
)

// runRescore is `toolgrade rescore`: internal/rescore judges a run's
// recorded transcripts again against an edited suite, offline, into a new
// run directory, whose summary and terminal report it then writes.
func runRescore(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("rescore", "DIR --suite SUITE.yaml", stderr)
	var spec rescore.Spec
	fs.StringVar(&spec.Suite, "suite", "", "the edited suite `FILE` to judge the transcripts against (required)")
	fs.StringVar(&spec.Out, "out", "", "the new run `DIR` (default: DIR-rescored-TIMESTAMP; DIR itself is never written)")
	fs.BoolVar(&spec.KeepTruncated, "keep-truncated", false, keepTruncatedUsage+"; the new run.json records it")
	fs.BoolVar(&spec.Rejudge, "rejudge", false, "judge the answers of cases with a rubric again, with the suite's judge model (default: keep the recorded verdicts, offline)")
	fs.StringVar(&spec.JudgeModel, "judge-model", "", "with --rejudge, the judge `MODEL` instead of the suite's defaults.judge.model")
	fs.StringVar(&spec.Ollama, "ollama", "", "with --rejudge, the Ollama `URL` of the judge (default: OLLAMA_HOST, else http://127.0.0.1:11434)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		spec.Run = pos[0]
	}
	rd, err := rescore.Rescore(ctx, &spec, &rescore.Options{Stderr: stderr})
	if err != nil {
		return err
	}
	sum, err := runs.WriteSummary(rd, stderr)
	if err != nil {
		return err
	}
	return report.WriteRunTerminal(stdout, rd, sum)
}
