// Package progress shows a run's progress while its trials run: the
// runs.Progress cmd/toolgrade gives internal/runs, apart from it so that a
// program finishing runs without showing them (harness/tgtest) links no
// progress bar.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"golang.org/x/term"
)

// Printer shows a run's progress on stderr: a bar on a terminal, plain lines
// (at every tenth of a model's trials) anywhere else, such as CI logs. Models
// whose trials run interleaved (or in ABBA blocks) share one bar.
type Printer struct {
	w   io.Writer
	tty bool
	bar *progressbar.ProgressBar
	// last is each model of the bar's latest progress, in order.
	last    map[string]runner.Progress
	order   []string
	lastTen map[string]int
}

// NewPrinter shows progress on w; a bar when w is a terminal.
func NewPrinter(w io.Writer) *Printer {
	f, ok := w.(*os.File)
	return &Printer{w: w, tty: ok && term.IsTerminal(int(f.Fd())), last: map[string]runner.Progress{}, lastTen: map[string]int{}}
}

// Update shows a model's latest progress.
func (p *Printer) Update(pr runner.Progress) {
	if _, seen := p.last[pr.Model]; !seen {
		if p.allDone() {
			// The models before ran all their trials: a bar of its own.
			p.Finish()
			p.last, p.order = map[string]runner.Progress{}, nil
		}
		p.order = append(p.order, pr.Model)
		p.lastTen[pr.Model] = -1
	}
	p.last[pr.Model] = pr
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
	if p.tty {
		p.show()
		return
	}
	if pr.Total == 0 {
		return
	}
	ten := pr.Done * 10 / pr.Total
	if ten == p.lastTen[pr.Model] {
		return
	}
	p.lastTen[pr.Model] = ten
	eta := "–"
	if pr.RunThisTime > 0 && pr.Done < pr.Total {
		per := pr.Elapsed / time.Duration(pr.RunThisTime)
		eta = termtext.Duration((per * time.Duration(pr.Total-pr.Done)).Round(time.Second))
	}
	done := fmt.Sprintf("%d/%d trials", pr.Done, pr.Total)
	if before > 0 {
		done += fmt.Sprintf(" (%d before this session)", before)
	}
	fmt.Fprintf(p.w, "%s: %s, %s, %s, eta %s\n", pr.Model, done, passNote, termtext.Count(pr.Infra, "infra error"), eta)
}

// allDone reports whether every model of the bar ran all its trials.
func (p *Printer) allDone() bool {
	for _, pr := range p.last {
		if pr.Done < pr.Total {
			return false
		}
	}
	return true
}

// show draws the bar over the models it holds.
func (p *Printer) show() {
	total, done := 0, 0
	var desc []string
	for _, m := range p.order {
		pr := p.last[m]
		total, done = total+pr.Total, done+pr.Done
		desc = append(desc, fmt.Sprintf("%s pass %d/%d", m, pr.Pass, pr.Scored))
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
		)
	} else if p.bar.GetMax() != total {
		p.bar.ChangeMax(total)
	}
	p.bar.Describe(strings.Join(desc, " · "))
	p.bar.Set(done)
}

// Finish ends the bar, once the runner returns.
func (p *Printer) Finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}
