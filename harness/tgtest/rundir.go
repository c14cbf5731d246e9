package tgtest

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/redact"
	"github.com/toolgrade/toolgrade/internal/servers"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// createRun makes the run directory `toolgrade report` reads (run.json,
// and trials.jsonl for the returned writer's trials).
//
// The run library will create this (house issue)
func createRun(dir string, s *suite.Suite, cat *servers.Catalog, ol *llm.Ollama, repeat int, models []record.Model) (*store.Writer, error) {
	if err := store.CheckFresh(dir); err != nil {
		return nil, fmt.Errorf("Options.RunDir %s: %w", dir, err)
	}
	path, _ := filepath.Abs(s.Path)
	run := &record.Run{
		Suite:       record.RunSuite{Name: s.Name, Path: path, Hash: s.Hash},
		Harness:     "tgtest",
		Ollama:      record.RunOllama{URL: redact.URL(ol.Base.String())},
		CatalogHash: toolbox.CatalogHash(cat),
		Repeat:      repeat,
		Parallel:    1,
		Options:     s.Defaults.Options,
		Think:       s.Defaults.Think,
		MaxRounds:   s.Defaults.MaxRounds,
		Start:       time.Now(),
		Models:      models,
		Cases:       s.CaseHashes(),
		Servers:     toolbox.RunServers(cat),
	}
	run.BaseSeed, _ = s.Defaults.Seed()
	w, err := store.Create(dir, run)
	if err != nil {
		return nil, fmt.Errorf("Options.RunDir %s: %w", dir, err)
	}
	return w, nil
}

// finishRun records in run.json how the run ended, and closes w.
func finishRun(w *store.Writer, runErr error) error {
	status, errText := store.StatusComplete, ""
	if runErr != nil {
		status, errText = store.StatusFailed, runErr.Error()
	}
	err := w.Update(func(r *record.Run) {
		r.Status, r.Error, r.End = status, errText, time.Now()
	})
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
