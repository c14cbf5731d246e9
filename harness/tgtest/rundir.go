package tgtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/runs"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// createRun makes the run directory `toolgrade report` reads (run.json,
// and trials.jsonl for the returned writer's trials) with the run library's
// one builder of run.json, recording the catalog the cases were sent so
// `toolgrade rescore` can judge the run again.
func createRun(dir string, s *suite.Suite, cat *mcpclient.Catalog, own map[string]toolbox.Offer, ol *llm.Ollama, repeat int, models []record.Model) (*store.Writer, error) {
	if err := store.CheckFresh(dir); err != nil {
		return nil, fmt.Errorf("Options.RunDir %s: %w", dir, err)
	}
	rc, err := toolbox.BaseCatalog(s, cat, own)
	if err != nil {
		return nil, fmt.Errorf("Options.RunDir %s: %w", dir, err)
	}
	meta := runs.Meta{
		Suite: s, Servers: cat, Harness: "tgtest", Repeat: repeat, Parallel: 1, Models: models,
		Ollama:   record.RunOllama{URL: redact.URL(ol.Base.String())},
		Catalogs: []record.RunCatalog{rc},
	}
	w, err := store.Create(dir, meta.New())
	if err != nil {
		return nil, fmt.Errorf("Options.RunDir %s: %w", dir, err)
	}
	return w, nil
}

// finishRun records in run.json how the run ended, as every run ends
// (runs.Finish), and closes w.
func finishRun(ctx context.Context, w *store.Writer, runErr error) error {
	err := runs.Finish(ctx, w, &runs.Ending{Err: runErr}, nil)
	if runErr != nil {
		err = nil // Finish returns the error that stopped the run, which t already has
	}
	return errors.Join(err, w.Close())
}

// readRun reads the trials of the run directory dir back; a torn line is
// an error, since a subtest would judge a trial that is not there.
func readRun(dir string) ([]*record.Trial, error) {
	var trials []*record.Trial
	warnings, err := store.ReadTrials(dir, func(tr *record.Trial) { trials = append(trials, tr) })
	if err == nil && len(warnings) > 0 {
		err = warnings[0]
	}
	if err != nil {
		return nil, err
	}
	return trials, nil
}
