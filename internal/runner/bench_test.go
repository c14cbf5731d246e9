package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
)

const oneCase = `
name: bench
defaults: {options: {seed: 1, temperature: 0}}
cases:
  - id: dog
    ask: "Can I bring my dog?"
    expect: {tool: search, args: {query: {contains: dog}}, answer: {contains: terrace}}
`

// BenchmarkTrial is one whole trial (two rounds through the bridge loop
// against the fake Ollama at zero latency and the in-process docs server,
// scored and written) per op: ns/op and allocs/op are per trial.
func BenchmarkTrial(b *testing.B) {
	runner.TuneGC()
	r := newRig(b, nil, &fakeollama.Options{Latency: 0, DontRecord: true}, nil, "docs")
	s := parseSuite(b, oneCase, r.cat)
	r.runner.Out = record.NewWriter(discard{})
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(b, r, "scripted-good"), Repeat: b.N, AllRepeats: true}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "trials/s")
}

// BenchmarkParallelSpeedup runs the same 96 trials with --parallel 1 and 8
// while the fake Ollama takes 20ms per round, and reports both throughputs,
// timed from the first trial to the last (the model check and warm-up are
// once per model, not per trial).
func BenchmarkParallelSpeedup(b *testing.B) {
	runner.TuneGC()
	const trials = 96
	rate := func(parallel int) float64 {
		r := newRig(b, nil, &fakeollama.Options{Latency: 20 * time.Millisecond, DontRecord: true}, nil, "docs")
		s := parseSuite(b, oneCase, r.cat)
		r.runner.Out = record.NewWriter(discard{})
		var elapsed time.Duration
		r.runner.OnProgress = func(p runner.Progress) { elapsed = p.Elapsed }
		if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(b, r, "scripted-good"), Repeat: trials, Parallel: parallel, AllRepeats: true}); err != nil {
			b.Fatal(err)
		}
		return trials / elapsed.Seconds()
	}
	var p1, p8 float64
	for range b.N {
		p1, p8 = rate(1), rate(8)
	}
	b.ReportMetric(p1, "trials/s@p1")
	b.ReportMetric(p8, "trials/s@p8")
	b.ReportMetric(p8/p1, "speedup")
	fmt.Fprintf(os.Stderr, "parallel speedup at 20ms/round: --parallel 1 %.1f trials/s, --parallel 8 %.1f trials/s (%.2fx)\n", p1, p8, p8/p1)
}

// BenchmarkMemory100k runs 100,000 trials of the docs suite into a real
// trials file and reports the peak RSS after 1,000 and after 100,000: it
// must stay flat, since trials stream to disk and none is kept.
func BenchmarkMemory100k(b *testing.B) {
	runner.TuneGC()
	const total = 100_000
	r := newRig(b, nil, &fakeollama.Options{Latency: 0, DontRecord: true}, nil, "docs")
	s := loadSuite(b, "../../cases/docs.yaml", r.cat)
	f, err := os.Create(filepath.Join(b.TempDir(), record.TrialsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r.runner.Out = record.NewWriter(f)
	repeat := total / len(s.Cases)
	var at1k, atEnd float64
	r.runner.OnProgress = func(p runner.Progress) {
		switch p.Done {
		case 1000:
			at1k = rig.PeakRSSMB()
		case p.Total:
			atEnd = rig.PeakRSSMB()
		}
	}
	b.ResetTimer()
	for range b.N {
		rig.ResetPeakRSS()
		start := time.Now()
		if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(b, r, "scripted-good"), Repeat: repeat, Parallel: 4, AllRepeats: true}); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "%d trials in %v: peak RSS %.1f MB after 1,000 trials, %.1f MB after %d\n",
			repeat*len(s.Cases), time.Since(start).Round(time.Millisecond), at1k, atEnd, repeat*len(s.Cases))
	}
	b.ReportMetric(at1k, "MB-peak-RSS@1k")
	b.ReportMetric(atEnd, "MB-peak-RSS@100k")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// countingChat counts the chat requests a run sends: its model calls.
type countingChat struct {
	bridge.Chatter
	n atomic.Int64
}

func (c *countingChat) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	c.n.Add(1)
	return c.Chatter.Chat(ctx, req, fn)
}

// BenchmarkRepeatCopies runs the docs suite (temperature 0) for the two demo
// models against the fake Ollama at 5ms a round: --repeat 1, --repeat 10
// (repeats 2..9 recorded as copies of repeat 0) and --repeat 10
// --all-repeats, and reports each one's model calls and wall time (ns/op is
// the three together). TestRepeatsThatCopyTheFirstTwoAreNotSent asserts
// that the copies' verdicts are those of every repeat run.
func BenchmarkRepeatCopies(b *testing.B) {
	runner.TuneGC()
	type result struct {
		calls int64
		wall  time.Duration
	}
	run := func(repeat int, all bool) result {
		r := newRig(b, nil, &fakeollama.Options{Latency: 5 * time.Millisecond, DontRecord: true}, nil, "docs")
		s := loadSuite(b, "../../cases/docs.yaml", r.cat)
		r.runner.Out = record.NewWriter(discard{})
		c := &countingChat{Chatter: r.runner.Chat}
		r.runner.Chat = c
		ms := models(b, r, "scripted-good", "scripted-weak")
		start := time.Now()
		if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: repeat, Parallel: 4, AllRepeats: all}); err != nil {
			b.Fatal(err)
		}
		return result{c.n.Load(), time.Since(start)}
	}
	var one, ten, all result
	for range b.N {
		one, ten, all = run(1, false), run(10, false), run(10, true)
	}
	b.ReportMetric(float64(one.calls), "calls@r1")
	b.ReportMetric(float64(ten.calls), "calls@r10")
	b.ReportMetric(float64(all.calls), "calls@r10-all")
	b.ReportMetric(one.wall.Seconds(), "s@r1")
	b.ReportMetric(ten.wall.Seconds(), "s@r10")
	b.ReportMetric(all.wall.Seconds(), "s@r10-all")
	fmt.Fprintf(os.Stderr, "docs suite, 2 models, 5ms a round, --parallel 4: --repeat 1 %d calls in %v; --repeat 10 %d calls in %v; --repeat 10 --all-repeats %d calls in %v\n",
		one.calls, one.wall.Round(time.Millisecond), ten.calls, ten.wall.Round(time.Millisecond), all.calls, all.wall.Round(time.Millisecond))
}

// BenchmarkScheduleInterleaved runs the docs suite three times for the two
// demo models at 5ms a round, interleaved (the fake keeps both loaded) and
// in blocks (Config.Schedule), and reports each one's wall time from
// Run's start to its end, warm-ups included: what interleaving costs.
func BenchmarkScheduleInterleaved(b *testing.B) {
	runner.TuneGC()
	run := func(schedule string) time.Duration {
		r := newRig(b, nil, &fakeollama.Options{Latency: 5 * time.Millisecond, DontRecord: true}, nil, "docs")
		s := loadSuite(b, "../../cases/docs.yaml", r.cat)
		r.runner.Out = record.NewWriter(discard{})
		ms := models(b, r, "scripted-good", "scripted-weak")
		start := time.Now()
		if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 3, Parallel: 2, AllRepeats: true, Schedule: schedule}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var inter, blocks time.Duration
	for range b.N {
		inter, blocks = run(""), run(record.ScheduleBlocks)
	}
	b.ReportMetric(inter.Seconds(), "s-interleaved")
	b.ReportMetric(blocks.Seconds(), "s-blocks")
	b.ReportMetric(inter.Seconds()/blocks.Seconds(), "ratio")
	fmt.Fprintf(os.Stderr, "docs suite × 3 repeats, 2 models, 5ms a round, --parallel 2: interleaved %v, blocks %v\n", inter.Round(time.Millisecond), blocks.Round(time.Millisecond))
}
