package runs

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"golang.org/x/term"
)

// progress shows a run's progress on stderr: a bar on a terminal, plain lines
// (at every tenth of a model's trials) anywhere else, such as CI logs.
type progress struct {
	w       io.Writer
	tty     bool
	bar     *progressbar.ProgressBar
	model   string
	lastTen int
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *progress) update(pr runner.Progress) {
	if pr.Model != p.model {
		p.finish()
		p.model = pr.Model
		p.lastTen = -1
		if p.tty {
			p.bar = progressbar.NewOptions(pr.Total,
				progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription(pr.Model),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionClearOnFinish(),
			)
		}
	}
	// Pass counts this session's trials only: after a resume, say so, and
	// how many of Done came from before.
	passNote := fmt.Sprintf("pass %d/%d", pr.Pass, pr.Scored)
	before := pr.Done - pr.RunThisTime
	if before > 0 {
		if pr.RunThisTime == 0 {
			return // nothing of this session to show yet
		}
		passNote += " this session"
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%s %s", pr.Model, passNote))
		p.bar.Set(pr.Done)
		return
	}
	if pr.Total == 0 {
		return
	}
	ten := pr.Done * 10 / pr.Total
	if ten == p.lastTen {
		return
	}
	p.lastTen = ten
	eta := "–"
	if pr.RunThisTime > 0 && pr.Done < pr.Total {
		per := pr.Elapsed / time.Duration(pr.RunThisTime)
		eta = (per * time.Duration(pr.Total-pr.Done)).Round(time.Second).String()
	}
	done := fmt.Sprintf("%d/%d trials", pr.Done, pr.Total)
	if before > 0 {
		done += fmt.Sprintf(" (%d before this session)", before)
	}
	fmt.Fprintf(p.w, "%s: %s, %s, %s, eta %s\n", pr.Model, done, passNote, termtext.Count(pr.Infra, "infra error"), eta)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}
