package bfclfake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bfcl"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// importRig is `toolgrade import bfcl` followed by `toolgrade run` of the
// suite it writes, in-process: the questions and answers of a BFCL file
// pair, the fake Ollama scripted to answer them (Script) on a loopback
// HTTP server, the empty servers catalog of a suite whose every case brings
// its own tools, and a runner over the real client.
type importRig struct {
	questions, answers []byte
	cat                *mcpclient.Catalog
	runner             *runner.Runner
	models             []record.Model
}

// newImportRig readies the run of the given question and answer files with
// the named models of Script.
func newImportRig(tb testing.TB, questions, answers []byte, models ...string) *importRig {
	tb.Helper()
	im, err := readImport(questions, answers)
	if err != nil {
		tb.Fatal(err)
	}
	script, err := Script(im)
	if err != nil {
		tb.Fatal(err)
	}
	_, base := rig.Ollama(tb, script, &fakeollama.Options{Latency: 0, DontRecord: true})
	hc := llm.HTTPClient()
	client := api.NewClient(base, hc)
	ir := &importRig{questions: questions, answers: answers, cat: rig.Catalog(tb, nil)}
	ir.runner = &runner.Runner{
		Chat:   llm.NewChatter(base, hc, client), // as toolgrade run streams
		Tools:  ir.cat,
		Models: &llm.Ollama{Client: client, Base: base},
		Sleep:  func(context.Context, time.Duration) error { return nil },
	}
	if ir.models, err = ir.runner.CheckModels(context.Background(), models); err != nil {
		tb.Fatal(err)
	}
	return ir
}

// readImport reads a question file and its possible answers, as `toolgrade
// import bfcl` reads them.
func readImport(questions, answers []byte) (*bfcl.Import, error) {
	qs, err := bfcl.ReadQuestions(bytes.NewReader(questions), "q.json")
	if err != nil {
		return nil, err
	}
	as, err := bfcl.ReadAnswers(bytes.NewReader(answers), "a.json")
	if err != nil {
		return nil, err
	}
	return &bfcl.Import{Questions: qs, Answers: as}, nil
}

// importRun is what one import and run did.
type importRun struct {
	cases    int
	catalogs int // distinct case catalogs built
	trials   int
	passes   map[string]int // by model
}

// run imports the files, writes the suite and loads it back as `toolgrade
// run` does, checks it against the case catalogs, builds the cases'
// toolboxes and runs every case once per model with parallel trials at
// once, writing the trials to out, with the GC tuned as `toolgrade run`
// tunes it for its trials (runner.TuneGC).
func (ir *importRig) run(ctx context.Context, out io.Writer, parallel int) (*importRun, error) {
	im, err := readImport(ir.questions, ir.answers)
	if err != nil {
		return nil, err
	}
	doc, _, err := im.Suite()
	if err != nil {
		return nil, err
	}
	var src bytes.Buffer
	if err := bfcl.Write(&src, doc); err != nil {
		return nil, err
	}
	s, err := suite.Parse(src.Bytes(), "bfcl.yaml")
	if err != nil {
		return nil, err
	}
	cc := toolbox.NewBase(ir.cat)
	if err := s.Check(cc); err != nil {
		return nil, err
	}
	own, err := toolbox.CaseOffers(s, cc)
	if err != nil {
		return nil, err
	}
	if len(own) != len(s.Cases) {
		return nil, fmt.Errorf("%d of %d cases have their own tools", len(own), len(s.Cases))
	}
	res := &importRun{cases: len(s.Cases), catalogs: cc.Built(), passes: map[string]int{}}
	r := *ir.runner
	r.Out = record.NewWriter(out)
	r.OnProgress = func(p runner.Progress) {
		res.trials++
		res.passes[p.Model] = p.Pass
	}
	// The GC is tuned for the trials once the catalogs are built, where
	// `toolgrade run` tunes it, and restored for what the test does next.
	gcPercent, memLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(gcPercent); debug.SetMemoryLimit(memLimit) }()
	debug.SetGCPercent(gcPercent)
	runner.TuneGC()
	cfg := runner.Config{Suite: s, Models: ir.models, Parallel: parallel, WaitOllama: -1, Variants: []runner.Variant{{Cases: own}}}
	if _, err := r.Run(ctx, cfg); err != nil {
		return nil, err
	}
	return res, nil
}

// The path the import-and-run benchmark measures is a correct one: on a
// small synthetic suite of every category it cycles through, every case
// brings its own catalog, the model answering with the ground truth passes
// every trial, BFCL-valid, with nothing executed and exactly the case's
// functions offered; the model that breaks one rule per case fails every
// trial, BFCL-invalid.
func TestImportRunPassesTheGroundTruth(t *testing.T) {
	const n = 12
	qb, ab := bfcl.Synthetic(n)
	ir := newImportRig(t, qb, ab, Good, Perturbed)
	var out bytes.Buffer
	res, err := ir.run(t.Context(), &out, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res.cases != n || res.trials != 2*n || res.catalogs != n {
		t.Errorf("%d cases, %d trials, %d catalogs; want %d, %d, %d", res.cases, res.trials, res.catalogs, n, 2*n, n)
	}
	if res.passes[Good] != n || res.passes[Perturbed] != 0 {
		t.Errorf("passes %v, want all %d of %s and none of %s", res.passes, n, Good, Perturbed)
	}
	rd := record.NewReader(&out, "trials")
	got := 0
	for rd.Scan() {
		tr := rd.Trial()
		got++
		j := record.Judge(tr)
		good := tr.Model == Good
		if j.BFCL == nil || j.BFCL.OK != good || (tr.Score.Outcome == record.OutcomePass) != good {
			t.Errorf("%s/%s: %s (%s), BFCL %+v", tr.Model, tr.CaseID, tr.Score.Outcome, tr.Score.Detail, j.BFCL)
		}
		if tr.Transcript == nil || !tr.Transcript.NotExecuted || len(tr.Transcript.Rounds) != 1 {
			t.Errorf("%s/%s: executed, or not one round", tr.Model, tr.CaseID)
			continue
		}
		want := 2 // every category but simple brings two functions
		if bfcl.CategoryOf(tr.CaseID) == "simple" {
			want = 1
		}
		if sent := tr.Transcript.Rounds[0].Request.Tools; sent != want {
			t.Errorf("%s/%s: offered %d tools, want %d", tr.Model, tr.CaseID, sent, want)
		}
	}
	if rd.Err() != nil || len(rd.Warnings) > 0 || got != 2*n {
		t.Errorf("read %d trials: %v %v", got, rd.Err(), rd.Warnings)
	}
}
