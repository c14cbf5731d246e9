package bfclfake

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bfcl"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/score"
	"github.com/toolgrade/toolgrade/internal/suite"
	"go.yaml.in/yaml/v3"
)

// BenchmarkJudge2000 loads an imported 2,000-case suite and scores the
// scripted ground truth of every case, as a run without execution scores
// its trials: the loader and the bfcl matchers at that size.
func BenchmarkJudge2000(b *testing.B) {
	im, err := readImport(bfcl.Synthetic(2000))
	if err != nil {
		b.Fatal(err)
	}
	doc, _, err := im.Suite()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range doc.Content[0].Content[1].Content {
		for i := 0; i < len(c.Content); i += 2 {
			if c.Content[i].Value == "tools" {
				c.Content = slices.Delete(c.Content, i, i+2)
				break
			}
		}
	}
	src, err := yaml.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	script, err := Script(im)
	if err != nil {
		b.Fatal(err)
	}
	trs := make([]*record.Transcript, len(im.Questions))
	for i := range im.Questions {
		trs[i] = transcript(b, script.Rules[2*i].Reply)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := suite.Parse(src, "bfcl.yaml")
		if err != nil {
			b.Fatal(err)
		}
		opts := score.OptionsFor(&s.Defaults)
		for i := range s.Cases {
			if sc := score.Score(trs[i], &s.Cases[i].Expect, opts); sc.Outcome != record.OutcomePass {
				b.Fatalf("%s: %s %s", s.Cases[i].ID, sc.Outcome, sc.Detail)
			}
		}
	}
}

// BenchmarkImportRun is `toolgrade import bfcl` and `toolgrade run` of an
// imported suite, per op: the files read, the suite built, written and
// loaded back, checked against the catalogs its cases bring (one each, as
// in BFCL, each built once), and every case run through the bridge loop
// against the fake Ollama over loopback HTTP at zero latency with the
// ground-truth model, four trials at once, scored and written to a trials
// file. The figure is cases=2000; cases=200 shows how the cost
// grows with the suite. TestImportRunPassesTheGroundTruth checks the same
// path on a small suite; here every trial must pass too.
//
// One op of cases=2000 takes over ten seconds on two cores, so the default
// -benchtime runs it once (as -benchtime=1x would); for a spread, add
// -count.
func BenchmarkImportRun(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("cases=%d", n), func(b *testing.B) { benchImportRun(b, n) })
	}
}

func benchImportRun(b *testing.B, n int) {
	qb, ab := bfcl.Synthetic(n)
	ir := newImportRig(b, qb, ab, Good)
	path := filepath.Join(b.TempDir(), record.TrialsFile)
	b.ReportAllocs()
	rig.ResetPeakRSS()
	var res *importRun
	var elapsed time.Duration
	for b.Loop() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err = ir.run(b.Context(), f, 4)
		elapsed += time.Since(start)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if res.trials != n || res.passes[Good] != n {
			b.Fatalf("%d trials, %d passes; want %d of each", res.trials, res.passes[Good], n)
		}
	}
	b.ReportMetric(float64(b.N*n)/elapsed.Seconds(), "trials/s")
	b.ReportMetric(rig.PeakRSSMB(), "MB-peak-RSS")
	b.ReportMetric(float64(res.catalogs), "catalogs")
}
