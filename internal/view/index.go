// Package view is `toolgrade view`: a local web server over folders of run
// directories, with an index of every run (filterable, with each suite's
// trend), each run's report, the comparison of two runs, and the progress
// of a run still being written. It reads runs through the run library
// (internal/store, summary.json) and never writes them; the index reads
// run.json and summary.json alone, never the trials, so its memory does not
// grow with the runs' transcripts.
package view

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/stats"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// Entry is one run directory of the index, as /api/runs sends it: what
// run.json and summary.json say, or why they could not be read.
type Entry struct {
	// ID names the run in the viewer's URLs: the index of its folder among
	// the folders given, a slash, and the directory's name.
	ID  string `json:"id"`
	Dir string `json:"dir"`
	// Error is why the directory could not be read as a run; the other
	// fields are then empty.
	Error    string    `json:"error,omitempty"`
	Suite    string    `json:"suite,omitempty"`
	Start    time.Time `json:"start,omitzero"`
	End      time.Time `json:"end,omitzero"`
	Status   string    `json:"status,omitempty"`
	Models   []string  `json:"models,omitempty"`
	Variants []string  `json:"variants,omitempty"`
	// Commit is the suite's commit, short ("" when none was recorded).
	Commit string `json:"commit,omitempty"`
	// Rows are summary.json's rows (a model with a variant); nil when the
	// run has no summary yet (it is running, or ended without one).
	Rows []Row `json:"rows,omitempty"`
	// Total is the trials the run plans; the progress endpoint says how
	// many are done.
	Total int `json:"total,omitempty"`
}

// Row is one model (with a variant) of a run: the rates the index and the
// trends show, each with its 95% interval in its JSON form.
type Row struct {
	Model         string     `json:"model"`
	Variant       string     `json:"variant,omitempty"`
	Pass          stats.Rate `json:"pass"`
	ToolSelection stats.Rate `json:"tool_selection"`
}

// Scan lists every run directory in dirs: each folder's subdirectories (or
// the folder itself when it holds a run.json), newest first. A directory
// that is no run, or whose files cannot be read, is an Entry with Error; a
// folder that cannot be listed is one too.
func Scan(dirs []string) []Entry {
	var out []Entry
	for i, root := range dirs {
		if _, err := os.Stat(filepath.Join(root, record.RunFile)); err == nil {
			out = append(out, read(strconv.Itoa(i)+"/.", root))
			continue
		}
		des, err := os.ReadDir(root)
		if err != nil {
			out = append(out, Entry{ID: strconv.Itoa(i) + "/.", Dir: root, Error: err.Error()})
			continue
		}
		for _, de := range des {
			if de.IsDir() && !strings.HasPrefix(de.Name(), ".") {
				out = append(out, read(strconv.Itoa(i)+"/"+de.Name(), filepath.Join(root, de.Name())))
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return b.Start.Compare(a.Start) })
	return out
}

// read is the entry of one run directory.
func read(id, dir string) Entry {
	e := Entry{ID: id, Dir: dir}
	if err := confined(dir, record.RunFile, record.SummaryFile); err != nil {
		e.Error = err.Error()
		return e
	}
	rd, err := store.Open(dir)
	if err != nil {
		var nr *store.NotRunError
		if errors.As(err, &nr) {
			e.Error = "not a run directory: it has no " + record.RunFile
		} else {
			e.Error = err.Error()
		}
		return e
	}
	run := rd.Run
	e.Suite, e.Start, e.End, e.Status = run.Suite.Name, run.Start, run.End, run.Status
	e.Commit = run.Commit.Short()
	for _, m := range run.Models {
		e.Models = append(e.Models, m.Name)
	}
	for _, c := range run.Catalogs {
		if c.Variant != "" {
			e.Variants = append(e.Variants, c.Variant)
		}
	}
	e.Total = planned(run)
	sum, err := readSummary(dir)
	switch {
	case err == nil:
		for _, m := range sum.Models {
			e.Rows = append(e.Rows, Row{Model: m.Model, Variant: m.Variant, Pass: m.Pass, ToolSelection: m.Selection})
		}
	case !errors.Is(err, os.ErrNotExist):
		e.Error = err.Error()
	}
	return e
}

// planned is the trials run.json plans: models × variants × cases ×
// repeats, a shard's share of them.
func planned(run *record.Run) int {
	n := len(run.Models) * max(1, len(run.Catalogs)) * len(run.Cases) * max(1, run.Repeat)
	if run.Shard != nil && run.Shard.N > 1 {
		n = (n + run.Shard.N - 1) / run.Shard.N
	}
	return n
}

func readSummary(dir string) (*summary.Summary, error) {
	p := filepath.Join(dir, record.SummaryFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return summary.ReadJSON(f, p)
}
