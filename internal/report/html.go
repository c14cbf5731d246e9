package report

import (
	"bufio"
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/compare"
	"github.com/toolgrade/toolgrade/internal/curve"
	"github.com/toolgrade/toolgrade/internal/metric"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
)

// The page's parts, embedded so the report is one file that opens from disk
// with no network.
var (
	//go:embed html/page.html
	pageHTML string
	//go:embed html/page.css
	pageCSS string
	//go:embed html/page.js
	pageJS string
)

var pageTmpl = template.Must(template.New("page").Parse(pageHTML))

// HTMLOptions tune an HTML report; the zero value (or nil) is a report of a
// complete run with no paired comparisons.
type HTMLOptions struct {
	// Status is the run's status (store.Status*); "" or "complete" is a
	// finished run, anything else marks the page partial.
	Status string
	// Comparisons are shown paired (regressions and fixes first), such as
	// each variant against the base from compare.Variants; nil shows none.
	Comparisons []*compare.Comparison
	// TempDir is where the trials are spooled until Write; "" is
	// os.TempDir().
	TempDir string
}

// HTML accumulates a run's trials into one self-contained HTML page: the
// overview of its Summary and a transcript viewer over every trial. Add
// encodes each trial's lean form at once and spools it to a temporary
// file, so memory grows with the models, cases and tools, never with the
// transcripts; Close removes the file.
type HTML struct {
	run  *record.Run
	opts HTMLOptions
	sum  *summary.Summarizer

	spool   *os.File
	buf     *bufio.Writer
	n       int
	err     error
	systems map[string]int

	// rows are the models × variants in the order trials showed them.
	rows map[rowKey]*htmlRow
	// correct counts, per case, the first tools named by trials that
	// chose right: the case's expected tool as the run saw it.
	correct map[string]map[string]int
	noTool  map[string]bool
}

// rowKey is one row of a report: a model and a variant ("" the base).
type rowKey struct{ model, variant string }

// htmlRow is what the overview needs of one model × variant beyond the
// Summary: the confusion counts and every trial's wall time.
type htmlRow struct {
	// calls counts (case, first called tool) pairs.
	calls map[[2]string]int
	walls []float32
}

// NewHTML returns an empty HTML report of run (its suite names the page,
// its models order the rows); o may be nil.
func NewHTML(run *record.Run, o *HTMLOptions) *HTML {
	h := &HTML{run: run, systems: map[string]int{}, rows: map[rowKey]*htmlRow{},
		correct: map[string]map[string]int{}, noTool: map[string]bool{}}
	if o != nil {
		h.opts = *o
	}
	h.sum = summary.NewSummarizer(run.Suite.Name, run.Models)
	h.sum.Judge = record.JudgeOptionsOf(run)
	return h
}

// Add counts one trial in the overview and spools its transcript.
func (h *HTML) Add(t *record.Trial) {
	h.sum.Add(t)
	k := rowKey{t.Model, t.Variant}
	row := h.rows[k]
	if row == nil {
		row = &htmlRow{calls: map[[2]string]int{}}
		h.rows[k] = row
	}
	if record.JudgeWith(t, h.sum.Judge).Counted() {
		called := noCall
		if t.Transcript != nil {
			if calls := t.Transcript.ToolCalls(); len(calls) > 0 {
				called = calls[0].Name
			}
		}
		row.calls[[2]string{t.CaseID, called}]++
		if !t.Score.CallExpected {
			h.noTool[t.CaseID] = true
		} else if t.Score.ToolCorrect && called != noCall {
			if h.correct[t.CaseID] == nil {
				h.correct[t.CaseID] = map[string]int{}
			}
			h.correct[t.CaseID][called]++
		}
	}
	if t.Transcript != nil && !t.IsCopy() { // a copy took no model time
		row.walls = append(row.walls, float32(t.Transcript.Wall.Seconds()))
	}
	if h.err != nil {
		return
	}
	if h.spool == nil {
		f, err := os.CreateTemp(h.opts.TempDir, "toolgrade-html-*.jsonl")
		if err != nil {
			h.err = fmt.Errorf("html report: %w", err)
			return
		}
		h.spool, h.buf = f, bufio.NewWriterSize(f, 64<<10)
	}
	b, err := json.Marshal(h.lean(t))
	if err != nil {
		h.err = fmt.Errorf("html report: trial %s/%s/%d: %w", t.Model, t.CaseID, t.Repeat, err)
		return
	}
	if h.n > 0 {
		h.buf.WriteByte(',')
	}
	h.buf.WriteByte('\n')
	h.buf.Write(b)
	h.n++
}

// Close removes the spooled trials; Write calls it.
func (h *HTML) Close() error {
	if h.spool == nil {
		return nil
	}
	name := h.spool.Name()
	h.spool.Close()
	h.spool = nil
	return os.Remove(name)
}

const (
	noCall   = "(no call)"
	noToolEx = "(no tool)"
	unseen   = "(not seen)"
)

// Write writes the page and removes the spooled trials.
func (h *HTML) Write(w io.Writer) error {
	defer h.Close()
	if h.err != nil {
		return h.err
	}
	sum := h.sum.Summary().WithRun(h.run)
	data := h.overview(sum)
	return writePage(w, data, func(w io.Writer) error {
		if h.spool == nil {
			return nil
		}
		if err := h.buf.Flush(); err != nil {
			return fmt.Errorf("html report: %w", err)
		}
		if _, err := h.spool.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("html report: %w", err)
		}
		_, err := io.Copy(w, h.spool)
		return err
	})
}

// WriteCompareHTML writes the page of a comparison alone: the paired view,
// with no run overview and no transcripts (`toolgrade compare` renders it).
func WriteCompareHTML(w io.Writer, c *compare.Comparison) error {
	cs := []*compare.Comparison{c}
	data := &htmlData{Title: "toolgrade compare: " + c.Base + " → " + c.Current, Comparisons: cs, CompareMetrics: compareMetrics(cs)}
	return writePage(w, data, func(io.Writer) error { return nil })
}

// writePage executes the page template around the two data blocks. The
// trials are copied between the template's two halves, so they never pass
// through the template (or through memory at once).
func writePage(w io.Writer, data *htmlData, trials func(io.Writer) error) error {
	overview, err := jsonForScript(data)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	page := struct {
		Title string
		CSS   template.CSS
		JS    template.JS
	}{
		Title: data.Title,
		// The CSS and JS are this package's own files, not data.
		CSS: template.CSS(pageCSS), JS: template.JS(pageJS),
	}
	if err := pageTmpl.ExecuteTemplate(bw, "head", page); err != nil {
		return err
	}
	// Both blocks are JSON from json.Marshal, which writes <, > and & as
	// \u003c, \u003e and \u0026: no string in them can close the script
	// element or open a comment.
	bw.WriteString(`<script type="application/json" id="overview">`)
	bw.Write(overview)
	bw.WriteString("</script>\n<script type=\"application/json\" id=\"trials\">[")
	if err := trials(bw); err != nil {
		return err
	}
	bw.WriteString("\n]</script>\n")
	if err := pageTmpl.ExecuteTemplate(bw, "tail", page); err != nil {
		return err
	}
	return bw.Flush()
}

func jsonForScript(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// htmlData is the overview block of the page: everything but the trials.
type htmlData struct {
	Title   string           `json:"title"`
	Status  string           `json:"status,omitempty"`
	Summary *summary.Summary `json:"summary,omitempty"`
	// Systems are the system prompts, which trials name by index.
	Systems     []string              `json:"systems,omitempty"`
	Confusion   []htmlConfusion       `json:"confusion,omitempty"`
	Latency     *htmlLatency          `json:"latency,omitempty"`
	Comparisons []*compare.Comparison `json:"comparisons,omitempty"`
	// CompareMetrics are the rates the comparisons pair, from the metric
	// table, which the page's columns follow; nil without comparisons.
	CompareMetrics []htmlMetric `json:"compare_metrics,omitempty"`
	// Sweep is a chart per curve of a sweep run; nil for other runs.
	Sweep []htmlSweep `json:"sweep,omitempty"`
	// BFCL is the BFCL section of a run of an imported BFCL suite; nil
	// when no case is tagged bfcl_category:.
	BFCL *htmlBFCL `json:"bfcl,omitempty"`
	// Choose is the page of `toolgrade choose --format html`; nil on every
	// other page.
	Choose *htmlChoose `json:"choose,omitempty"`
	// Skipped says, per server that failed to connect, what it cost the
	// run, worded as every report words it (skippedServerText); the page
	// puts it first among the warnings.
	Skipped []string `json:"skipped,omitempty"`
}

// htmlMetric is a rate of the metric table, for the page: its name, as
// the comparisons' rows name it, and its short name, which heads its column.
type htmlMetric struct {
	Name  metric.Name `json:"name"`
	Short string      `json:"short"`
}

// compareMetrics are the rates comparisons pair, for a page showing cs; nil
// when it shows none, so a page without comparisons carries none.
func compareMetrics(cs []*compare.Comparison) []htmlMetric {
	if len(cs) == 0 {
		return nil
	}
	var out []htmlMetric
	for _, m := range metric.Select(metric.Rate, metric.Paired) {
		out = append(out, htmlMetric{Name: m.Name, Short: m.Short})
	}
	return out
}

// htmlSweep is one curve's chart: its heading, and the SVG drawn here
// (sweepSVG), which holds no script and only escaped text, so the page
// imports it as a node.
type htmlSweep struct {
	Title string `json:"title"`
	Axis  string `json:"axis"`
	// Line is where selection falls below the default threshold.
	Line string `json:"line"`
	SVG  string `json:"svg"`
}

// htmlConfusion is one row's expected tool × first called tool counts.
type htmlConfusion struct {
	Label    string   `json:"label"`
	Expected []string `json:"expected"`
	Called   []string `json:"called"`
	// Counts[i][j] counts trials expecting Expected[i] that called Called[j].
	Counts [][]int `json:"counts"`
}

// htmlLatency is a histogram of trial wall times per row over shared,
// logarithmic bins.
type htmlLatency struct {
	// Edges are the bins' bounds in seconds: len(Counts[i]) + 1 of them.
	Edges  []float64 `json:"edges"`
	Labels []string  `json:"labels"`
	Counts [][]int   `json:"counts"`
}

func (h *HTML) overview(sum *summary.Summary) *htmlData {
	title := "toolgrade"
	if sum.Suite != "" {
		title += ": " + sum.Suite
	}
	d := &htmlData{Title: title, Summary: sum, Comparisons: h.opts.Comparisons, CompareMetrics: compareMetrics(h.opts.Comparisons)}
	if h.opts.Status != "" && h.opts.Status != "complete" {
		d.Status = h.opts.Status
	}
	d.Systems = make([]string, len(h.systems))
	for s, i := range h.systems {
		d.Systems[i] = s
	}
	variants := sum.HasVariants()
	expected := h.expectedTools()
	var lat []*htmlRow
	for i := range sum.Models {
		m := &sum.Models[i]
		row := h.rows[rowKey{m.Model, m.Variant}]
		if row == nil {
			row = &htmlRow{}
		}
		lat = append(lat, row)
		d.Confusion = append(d.Confusion, confusion(m.Label(variants), row, expected))
	}
	d.Latency = latencyHistogram(sum, variants, lat)
	for i := range sum.Sweep {
		c := &sum.Sweep[i]
		d.Sweep = append(d.Sweep, htmlSweep{Title: sweepHeading(c), Axis: c.Axis, Line: c.Falls(curve.DefaultThreshold).String(c.Axis), SVG: sweepSVG(c)})
	}
	d.BFCL = htmlBFCLOf(sum)
	for _, sk := range sum.SkippedServers {
		d.Skipped = append(d.Skipped, skippedServerText(sk))
	}
	return d
}

// expectedTools names each case's expected first tool: the one most trials
// that chose right named (the score says a choice was right, not which tool
// was expected), "(no tool)" for no-tool cases.
func (h *HTML) expectedTools() map[string]string {
	out := map[string]string{}
	for c := range h.noTool {
		out[c] = noToolEx
	}
	for c, tools := range h.correct {
		best := ""
		for _, name := range slices.Sorted(maps.Keys(tools)) {
			if best == "" || tools[name] > tools[best] {
				best = name
			}
		}
		out[c] = best
	}
	return out
}

func confusion(label string, row *htmlRow, expected map[string]string) htmlConfusion {
	counts := map[[2]string]int{}
	for k, n := range row.calls {
		e, ok := expected[k[0]]
		if !ok {
			e = unseen
		}
		counts[[2]string{e, k[1]}] += n
	}
	var exp, called []string
	for k := range counts {
		exp, called = append(exp, k[0]), append(called, k[1])
	}
	order := func(s []string) []string {
		slices.SortFunc(s, func(a, b string) int {
			// Parenthesised names ((no call), (no tool)) go last.
			pa, pb := strings.HasPrefix(a, "("), strings.HasPrefix(b, "(")
			if pa != pb {
				return map[bool]int{true: 1, false: -1}[pa]
			}
			return cmp.Compare(a, b)
		})
		return slices.Compact(s)
	}
	exp, called = order(exp), order(called)
	c := htmlConfusion{Label: label, Expected: exp, Called: called, Counts: make([][]int, len(exp))}
	for i, e := range exp {
		c.Counts[i] = make([]int, len(called))
		for j, k := range called {
			c.Counts[i][j] = counts[[2]string{e, k}]
		}
	}
	return c
}

func latencyHistogram(sum *summary.Summary, variants bool, rows []*htmlRow) *htmlLatency {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, w := range r.walls {
			v := math.Max(float64(w), 1e-4)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return nil
	}
	// Bins on a log scale: latencies of local models span orders of
	// magnitude.
	const bins = 12
	if hi <= lo {
		hi = lo * 1.01
	}
	l := &htmlLatency{}
	step := (math.Log10(hi) - math.Log10(lo)) / bins
	for i := 0; i <= bins; i++ {
		l.Edges = append(l.Edges, math.Pow(10, math.Log10(lo)+step*float64(i)))
	}
	for i := range sum.Models {
		l.Labels = append(l.Labels, sum.Models[i].Label(variants))
		c := make([]int, bins)
		for _, w := range rows[i].walls {
			v := math.Max(float64(w), 1e-4)
			b := int((math.Log10(v) - math.Log10(lo)) / step)
			c[min(max(b, 0), bins-1)]++
		}
		l.Counts = append(l.Counts, c)
	}
	return l
}

// leanTrial is what the viewer shows of a trial, with short keys: a
// 10,000-trial page carries 10,000 of them.
type leanTrial struct {
	Model   string   `json:"m"`
	Variant string   `json:"v,omitempty"`
	Case    string   `json:"c"`
	Repeat  int      `json:"r"`
	Tags    []string `json:"tags,omitempty"`
	Outcome string   `json:"o"`
	Detail  string   `json:"d,omitempty"`
	// System indexes htmlData.Systems; -1 is none.
	System   int         `json:"sys"`
	Messages []leanMsg   `json:"msgs,omitempty"`
	Rounds   []leanRound `json:"rounds,omitempty"`
	Answer   string      `json:"a,omitempty"`
	Failure  string      `json:"fail,omitempty"`
	WallMS   float64     `json:"ms"`
	Attempts int         `json:"att,omitempty"`
	Limit    bool        `json:"limit,omitempty"`
	Trunc    bool        `json:"trunc,omitempty"`
	NoExec   bool        `json:"noexec,omitempty"`
	// Turns, Setup and Checks are a scenario's (see leanScenario).
	Turns  []leanTurn  `json:"turns,omitempty"`
	Setup  []leanCall  `json:"setup,omitempty"`
	Checks []leanCheck `json:"checks,omitempty"`
}

type leanMsg struct {
	Role    string `json:"role"`
	Content string `json:"text"`
}

type leanRound struct {
	Thinking string     `json:"think,omitempty"`
	Content  string     `json:"text,omitempty"`
	Calls    []leanCall `json:"calls,omitempty"`
	Final    bool       `json:"final,omitempty"`
	Done     string     `json:"done,omitempty"`
	Failure  string     `json:"fail,omitempty"`
	WallMS   float64    `json:"ms"`
	Prompt   int        `json:"pt"`
	Eval     int        `json:"et"`
}

// leanCall is one tool call with its execution, when it ran.
type leanCall struct {
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result *string         `json:"res,omitempty"`
	Error  string          `json:"err,omitempty"`
	Kind   string          `json:"kind,omitempty"`
	ExecMS float64         `json:"ms,omitempty"`
}

func ms(d time.Duration) float64 {
	return math.Round(d.Seconds()*1e4) / 10
}

func (h *HTML) lean(t *record.Trial) *leanTrial {
	lt := &leanTrial{Model: t.Model, Variant: t.Variant, Case: t.CaseID, Repeat: t.Repeat, Tags: t.Tags,
		Outcome: t.Score.Outcome, Detail: t.Score.Detail, System: -1, Trunc: t.Score.Truncated}
	if t.Attempts > 1 {
		lt.Attempts = t.Attempts
	}
	tr := t.Transcript
	if tr == nil {
		return lt
	}
	lt.Answer, lt.WallMS, lt.Limit, lt.NoExec = tr.Answer, ms(tr.Wall), tr.RoundLimitHit, tr.NotExecuted
	if tr.Failure != nil {
		lt.Failure = tr.Failure.Kind + ": " + tr.Failure.Message
	}
	for i, m := range tr.Messages {
		// The system prompt is the same in most trials: it is written once.
		if i == 0 && m.Role == "system" {
			idx, ok := h.systems[m.Content]
			if !ok {
				idx = len(h.systems)
				h.systems[m.Content] = idx
			}
			lt.System = idx
			continue
		}
		lt.Messages = append(lt.Messages, leanMsg{Role: m.Role, Content: m.Content})
	}
	for _, r := range tr.Rounds {
		lr := leanRound{Thinking: r.Response.Thinking, Content: r.Response.Content, Final: r.Request.Final,
			WallMS: ms(r.Wall), Prompt: r.Metrics.PromptEvalCount, Eval: r.Metrics.EvalCount}
		if r.Response.DoneReason != "" && r.Response.DoneReason != "stop" {
			lr.Done = r.Response.DoneReason
		}
		if f := r.Response.Failure; f != nil {
			lr.Failure = f.Kind + ": " + f.Message
		}
		used := make([]bool, len(r.Executions))
		for _, c := range r.Response.ToolCalls {
			lc := leanCall{Name: c.Name, Args: record.Args(c.Arguments)}
			for j := range r.Executions {
				e := &r.Executions[j]
				if !used[j] && (e.CallID == c.ID || e.CallID == "") && e.Name == c.Name {
					used[j] = true
					res := e.Result
					lc.Result, lc.Kind, lc.Error, lc.ExecMS = &res, e.ErrorKind, e.Error, ms(e.Duration)
					break
				}
			}
			lr.Calls = append(lr.Calls, lc)
		}
		lt.Rounds = append(lt.Rounds, lr)
	}
	leanScenario(lt, tr)
	return lt
}
