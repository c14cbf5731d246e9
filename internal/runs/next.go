package runs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// nextStep is one command a finished run suggests, with why.
type nextStep struct{ cmd, why string }

// NextSteps says where a run's results are and which commands come next:
// the failures when any trial failed, a comparison when several models or
// variants ran, a report in another format. It reads the run directory
// only, so what it names exists.
func NextSteps(w io.Writer, run *store.Reader) {
	var files []string
	for _, f := range []string{record.HTMLFile, record.MarkdownFile, record.SummaryFile, record.TrialsFile} {
		if _, err := os.Stat(filepath.Join(run.Dir, f)); err == nil {
			files = append(files, f)
		}
	}
	if len(files) > 0 && files[0] == record.HTMLFile {
		fmt.Fprintf(w, "toolgrade: report: %s (beside it: %s)\n", filepath.Join(run.Dir, files[0]), strings.Join(files[1:], ", "))
	} else {
		fmt.Fprintf(w, "toolgrade: results in %s: %s\n", run.Dir, strings.Join(files, ", "))
	}
	steps := nextSteps(run)
	width := 0
	for _, s := range steps {
		width = max(width, len(s.cmd))
	}
	for _, s := range steps {
		fmt.Fprintf(w, "  %-*s   # %s\n", width, s.cmd, s.why)
	}
}

func nextSteps(run *store.Reader) []nextStep {
	dir := quoteArg(run.Dir)
	var steps []nextStep
	if failed := failedTrials(run.Dir); failed > 0 {
		steps = append(steps, nextStep{"toolgrade show " + dir + " --outcome fail", termtext.Count(failed, "trial") + " failed: each one, round by round"})
	}
	var models []string
	for _, m := range run.Run.Models {
		models = append(models, m.Name)
	}
	if len(models) > 1 {
		steps = append(steps, nextStep{"toolgrade compare " + dir + " --models " + quoteArg(strings.Join(models[:2], ",")), "is one model better, case by case?"})
	}
	if axis := sweepAxis(run.Run); axis != "" {
		steps = append(steps, nextStep{"toolgrade compare " + dir + " --sweep " + axis, "how the rates move along " + axis})
	} else if len(run.Run.Catalogs) > 1 {
		v := run.Run.Catalogs[1].Variant
		steps = append(steps, nextStep{"toolgrade compare " + dir + " --variants " + quoteArg("base,"+v), "did the variant change the rates?"})
	}
	steps = append(steps, nextStep{"toolgrade report " + dir + " --format markdown", "the report again, from the files alone (also html, junit, json)"})
	return steps
}

// failedTrials counts the scored trials that did not pass, from the
// summary.json the reports just wrote (the trials are not read again); 0
// when there is none.
func failedTrials(dir string) int {
	f, err := os.Open(filepath.Join(dir, record.SummaryFile))
	if err != nil {
		return 0
	}
	defer f.Close()
	sum, err := summary.ReadJSON(f, f.Name())
	if err != nil {
		return 0
	}
	n := 0
	for _, m := range sum.Models {
		n += m.Pass.N - m.Pass.K
	}
	return n
}

// sweepAxis is the first axis of the run's sweep grid; "" when it has none.
func sweepAxis(r *record.Run) string {
	for _, c := range r.Catalogs {
		var axes []string
		for a := range c.Sweep {
			axes = append(axes, a)
		}
		if len(axes) > 0 {
			sort.Strings(axes)
			return axes[0]
		}
	}
	return ""
}

// quoteArg quotes a path or list for a shell when it needs it.
func quoteArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,@+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
