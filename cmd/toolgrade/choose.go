package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/choose"
	"github.com/toolgrade/toolgrade/internal/gate/expr"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/runs"
)

// runChoose is `toolgrade choose`: flags → runs.ChooseSpec, the choice
// written in the format --format names.
func runChoose(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("choose", "DIR | SHARD_DIR...", stderr)
	var s runs.ChooseSpec
	var format, out string
	fs.StringVar(&s.Options.Reference, "reference", "", "judge the other models against this `MODEL` (default: the best on pass, the costliest of those tied)")
	fs.Func("margin", "the non-inferiority `MARGIN`: how much worse on pass a cheaper model may be, as 5pts, 5% or 0.05 (default: the suite's margin:, else 5pts)",
		func(v string) (err error) { s.Options.Margin, err = expr.ParseMargin(v); return err })
	fs.StringVar(&format, "format", "terminal", "the choice's `FORMAT`: "+report.List(report.KindChoice)+" (json's schema is "+choose.Format+", html a page with the quality-vs-cost chart)")
	fs.StringVar(&out, "o", "", "write the choice to `FILE` (replaced atomically) instead of stdout")
	fs.BoolVar(&s.Options.KeepTruncated, "keep-truncated", false, keepTruncatedUsage)
	var err error
	if s.Dirs, err = parse(fs, args); err != nil {
		return err
	}
	f, err := report.Find(format, report.KindChoice)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	c, err := runs.Choose(s, stderr)
	if err != nil {
		return err
	}
	return runs.WriteOutput(out, stdout, func(w io.Writer) error { return f.Choice(w, c) })
}
