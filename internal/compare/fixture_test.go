package compare

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

var writeFixture = flag.Bool("fixture", false, "rewrite testdata/base and testdata/current, the recorded runs the golden outputs of reports and cmd read")

// The fixture: two models, two variants, repeat 2, and between the runs a
// newer Ollama, a re-pulled model, another temperature, an edited tool
// description, a case edited under its id (f), one dropped (e), one new (g).
func fixtureRuns() (base, cur *record.Run, bt, ct []*record.Trial) {
	base, cur = baseRun(), baseRun()
	base.Repeat, cur.Repeat = 2, 2
	terse := record.RunCatalog{Variant: "terse", Hash: "h9", Tools: json.RawMessage(`[{"type":"function","function":{"name":"search","description":"Search.","parameters":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"top_k":{"type":"integer"}},"required":["query"]}}}]`)}
	base.Catalogs = append(base.Catalogs, terse)
	cur.Catalogs = []record.RunCatalog{
		{Variant: "", Hash: "h2", Tools: json.RawMessage(`[{"type":"function","function":{"name":"search","description":"Search the product docs.","parameters":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"top_k":{"type":"integer"}},"required":["query"]}}}]`)},
		terse,
	}
	base.Cases = map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "e": "1", "f": "1"}
	cur.Cases = map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "f": "2", "g": "1"}
	cur.Ollama.Version = "0.13.0"
	cur.Models[0].Digest = "d1b"
	cur.Options = map[string]any{"temperature": 0.2}
	cur.CatalogHash = "c2"
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	base.Start, cur.Start = start, start.Add(time.Hour)
	// outcome of each trial, by side: a passes, b regresses for m and is
	// fixed for n (so n trails m within the base run), c is fixed for n, d is flaky, an infra error on the current side.
	outcome := func(side int, model, variant, c string, r int) string {
		switch c {
		case "b":
			if side == 1 && model == "m" {
				return record.OutcomeWrongArgs
			}
			if side == 0 && model == "n" {
				return record.OutcomeWrongTool
			}
		case "c":
			if side == 0 || model == "m" {
				return record.OutcomeNoCall
			}
		case "d":
			if r == 1 && side == 1 && variant == "terse" {
				return record.OutcomeWrongTool
			}
			if r == 0 && side == 1 && model == "n" {
				return record.OutcomeInfraError
			}
		case "f":
			return record.OutcomeRoundLimit
		}
		return record.OutcomePass
	}
	for side, cases := range [][]string{{"a", "b", "c", "d", "e", "f"}, {"a", "b", "c", "d", "f", "g"}} {
		for _, m := range []string{"m", "n"} {
			for _, v := range []string{"", "terse"} {
				for _, c := range cases {
					for r := range 2 {
						wall := time.Duration(800+100*len(c)*(r+1)+side*150) * time.Millisecond
						if m == "n" {
							wall /= 2
						}
						tr := trial(m, v, c, r, outcome(side, m, v, c, r), wall)
						tr.Start = start.Add(time.Duration(side) * time.Hour)
						if side == 0 {
							bt = append(bt, tr)
						} else {
							ct = append(ct, tr)
						}
					}
				}
			}
		}
	}
	return base, cur, bt, ct
}

func TestWriteFixture(t *testing.T) {
	if !*writeFixture {
		t.Skip("run with -fixture to rewrite testdata/base and testdata/current")
	}
	base, cur, bt, ct := fixtureRuns()
	for _, d := range []struct {
		dir    string
		run    *record.Run
		trials []*record.Trial
	}{{"testdata/base", base, bt}, {"testdata/current", cur, ct}} {
		os.MkdirAll(d.dir, 0o755)
		if err := record.WriteRun(d.dir, d.run); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(d.dir, record.TrialsFile))
		if err != nil {
			t.Fatal(err)
		}
		w := record.NewWriter(f)
		for _, tr := range d.trials {
			w.Write(tr)
		}
		f.Close()
	}
}
