package runs

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
)

func ptr[T any](v T) *T { return &v }

// TestSpecValidate: every refusal Validate makes is a cli.UsageError with the
// message of run's flags, and a plain fresh or resumed spec passes.
func TestSpecValidate(t *testing.T) {
	fresh := func(edit func(*Spec)) *Spec {
		s := &Spec{Suite: "s.yaml"}
		edit(s)
		return s
	}
	resume := func(edit func(*Spec)) *Spec {
		s := &Spec{Resume: "runs/x"}
		edit(s)
		return s
	}
	for _, tc := range []struct {
		name string
		spec *Spec
		want string // "" passes
	}{
		{"fresh", fresh(func(*Spec) {}), ""},
		{"resume", resume(func(*Spec) {}), ""},
		{"resume repeating its parallelism", resume(func(s *Spec) { s.Parallel = ptr(4) }), ""},
		{"nothing", &Spec{}, "run: give one suite file (or --resume DIR)"},
		{"both", resume(func(s *Spec) { s.Suite = "s.yaml" }), "run: give a suite or --resume DIR, not both"},
		{"repeat 0", fresh(func(s *Spec) { s.Repeat = ptr(0) }), "run: --repeat and --parallel must be at least 1"},
		{"parallel 0 on resume", resume(func(s *Spec) { s.Parallel = ptr(0) }), "run: --repeat and --parallel must be at least 1"},
		{"override on resume", resume(func(s *Spec) { s.Overrides.Think = ptr(""); s.Overrides.Options = []string{"seed=1"} }),
			"run: -o, --think cannot change a resumed run: it applies again the settings its run.json recorded"},
		{"servers without a file", fresh(func(s *Spec) { s.Overrides.Servers = ptr("") }), "run: --servers needs a file"},
		{"bad max rounds", fresh(func(s *Spec) { s.Overrides.MaxRounds = ptr(0) }), "--max-rounds 0: must be from 1 to"},
		{"bad think", fresh(func(s *Spec) { s.Overrides.Think = ptr("loud") }), "--think"},
		{"bad option", fresh(func(s *Spec) { s.Overrides.Options = []string{"seed"} }), `-o "seed": want key=value`},
		{"models on resume, even none", resume(func(s *Spec) { s.Models = []string{} }), "run: --models, --repeat and --no-execute cannot change a resumed run"},
		{"repeat on resume", resume(func(s *Spec) { s.Repeat = ptr(1) }), "run: --models, --repeat and --no-execute cannot change a resumed run"},
		{"stop-early off on resume", resume(func(s *Spec) { s.StopEarly = ptr(false) }), "run: --stop-early and --stop-threshold cannot change a resumed run (it keeps its rule)"},
		{"variants on resume", resume(func(s *Spec) { s.Variants = []string{"base"} }), "run: --variants cannot change a resumed run"},
		{"threshold alone", fresh(func(s *Spec) { s.StopThreshold = ptr(0.5) }), "run: --stop-threshold needs --stop-early"},
		{"threshold 1", fresh(func(s *Spec) { s.StopEarly, s.StopThreshold = ptr(true), ptr(1.0) }), "run: --stop-threshold must lie strictly between 0 and 1, not 1"},
		{"bad host", fresh(func(s *Spec) { s.Ollama = []string{"http://a:1#0"} }), "--ollama: \"http://a:1#0\": the parallelism after # must be a whole number of at least 1"},
		{"shard twice", fresh(func(s *Spec) { s.Shard = Shard{Spec: "0/2", From: "env"} }), "run: give --shard or --shard-from, not both"},
		{"bad shard", fresh(func(s *Spec) { s.Shard.Spec = "2/2" }), "run: shard 2/2: want 0 ≤ i < n"},
		{"shard source", fresh(func(s *Spec) { s.Shard.From = "file" }), `run: --shard-from "file": the only source is env`},
		{"shards alone", fresh(func(s *Spec) { s.Shard.Count = ptr(0) }), "run: --shard-by and --shards need --shard or --shard-from"},
		{"shard-by alone", fresh(func(s *Spec) { s.Shard.By = "trial" }), "run: --shard-by and --shards need --shard or --shard-from"},
	} {
		err := tc.spec.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v (%T), want a cli.UsageError with %q", tc.name, err, err, tc.want)
		}
	}
}

// TestOverridesRecord: only the overrides given are recorded, the servers
// file made absolute; none given records nothing.
func TestOverridesRecord(t *testing.T) {
	if (&Overrides{}).record() != nil {
		t.Error("no override records something")
	}
	ov := (&Overrides{Think: ptr("low"), Servers: ptr("s.json")}).record()
	if ov == nil || ov.Think != "low" || ov.System != nil || ov.Servers != record.AbsPath("s.json") || !strings.HasPrefix(ov.Servers, "/") {
		t.Errorf("record: %+v", ov)
	}
}
