package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolgrade/toolgrade/internal/bfcl"
	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// runImport is `toolgrade import bfcl QUESTIONS.json... [--answers FILE]
// -o SUITE.yaml`: a suite made of the Berkeley Function-Calling
// Leaderboard's single-turn questions (internal/bfcl).
func runImport(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("import bfcl", "QUESTIONS.json... [--answers POSSIBLE_ANSWERS.json]... [-o SUITE.yaml]", stderr)
	var answers stringList
	fs.Var(&answers, "answers", "a BFCL possible-answer `FILE` (possible_answer/*.json), repeatable; needed by every category but irrelevance and relevance")
	out := fs.String("o", "", "write the suite to `FILE` (replaced atomically) instead of stdout")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] != "bfcl" {
		return cli.Usagef("import: the only format is bfcl: toolgrade import bfcl QUESTIONS.json [--answers POSSIBLE_ANSWERS.json] -o SUITE.yaml")
	}
	if len(pos) < 2 {
		return cli.Usagef("import bfcl: give at least one question file (BFCL_v3_*.json or BFCL_v4_*.json)")
	}
	im, err := bfcl.Load(pos[1:], answers)
	if err != nil {
		return cli.AsUsage(err)
	}
	doc, warnings, err := im.Suite()
	for _, w := range warnings {
		fmt.Fprintln(stderr, "toolgrade: warning:", w)
	}
	if err != nil {
		return cli.AsUsage(err)
	}
	if err := runs.WriteOutput(*out, stdout, func(w io.Writer) error { return bfcl.Write(w, doc) }); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stderr, "toolgrade: wrote %s to %s\n", termtext.Count(len(doc.Content[0].Content[1].Content), "case"), *out)
	}
	return nil
}
