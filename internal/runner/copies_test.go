package runner_test

import (
	"context"
	"fmt"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
)

// chats counts the /api/chat requests that carried a conversation (not
// warm-ups nor unloads), by model.
func chats(r *testRig) map[string]int {
	out := map[string]int{}
	for _, req := range r.fake.Requests() {
		if c := req.Chat; c != nil && len(c.Messages) > 0 {
			out[c.Model]++
		}
	}
	return out
}

// verdicts maps each trial's key to its outcome.
func verdicts(trials []*record.Trial) map[record.TrialKey]string {
	out := map[record.TrialKey]string{}
	for _, t := range trials {
		out[t.Key()] = t.Score.Outcome
	}
	return out
}

// TestRepeatsThatCopyTheFirstTwoAreNotSent runs the docs suite (temperature
// 0) ten times against the deterministic demo models, with and without
// --all-repeats: both record every trial with the same verdict, but the
// default sends each case to the model twice and records repeats 2..9 as
// copies of repeat 0 (no host, no attempt), and says so in the progress.
func TestRepeatsThatCopyTheFirstTwoAreNotSent(t *testing.T) {
	run := func(all bool) (*testRig, []*record.Trial, map[string]runner.Progress) {
		r := newRig(t, nil, nil, nil, "docs")
		s := loadSuite(t, "../../cases/docs.yaml", r.cat)
		last := map[string]runner.Progress{}
		r.runner.OnProgress = func(p runner.Progress) { last[p.Model] = p }
		_, err := r.runner.Run(context.Background(), runner.Config{
			Suite: s, Models: models(t, r, "scripted-good", "scripted-weak"), Repeat: 10, Parallel: 3, AllRepeats: all,
		})
		if err != nil {
			t.Fatal(err)
		}
		return r, r.trials(t), last
	}
	rAll, all, _ := run(true)
	rCopy, copied, last := run(false)
	if len(copied) != len(all) {
		t.Fatalf("%d trials with copies, %d without", len(copied), len(all))
	}
	want := verdicts(all)
	for k, v := range verdicts(copied) {
		if want[k] != v {
			t.Errorf("%v: %s with copies, %s with every repeat", k, v, want[k])
		}
	}
	n := len(loadSuite(t, "../../cases/docs.yaml", rCopy.cat).Cases)
	copies := 0
	for _, tr := range copied {
		switch {
		case tr.Repeat < 2 && tr.IsCopy():
			t.Errorf("%v: a first repeat recorded as a copy", tr.Key())
		case tr.Repeat >= 2 && (!tr.IsCopy() || *tr.CopyOf != 0 || tr.Attempts != 0 || tr.Seed != 42+int64(tr.Repeat)):
			t.Errorf("%v: copy_of %v, attempts %d, seed %d; want a copy of repeat 0, no attempt, seed 42+repeat", tr.Key(), tr.CopyOf, tr.Attempts, tr.Seed)
		case tr.IsCopy():
			copies++
		}
	}
	if copies != 2*8*n {
		t.Errorf("%d copies, want %d", copies, 2*8*n)
	}
	sentAll, sentCopy := chats(rAll), chats(rCopy)
	for _, m := range []string{"scripted-good", "scripted-weak"} {
		if sentCopy[m]*5 != sentAll[m] {
			t.Errorf("%s: %d chats with copies, %d with every repeat; want a fifth", m, sentCopy[m], sentAll[m])
		}
		if p := last[m]; p.Copies != 8*n || p.Done != 10*n {
			t.Errorf("%s: progress %+v; want %d copies of %d", m, p, 8*n, 10*n)
		}
	}
}

// seedScript is the demo script with, in front, a rule that makes
// scripted-good answer the dog case differently under seed 43 (its
// repeat 1 in the docs suite), as a model sampling at that seed would.
func seedScript(t *testing.T) *fakeollama.Script {
	t.Helper()
	s, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	one := 43
	odd := fakeollama.Rule{Model: "scripted-good", User: &fakeollama.Matcher{Contains: "dog"}, Seed: &fakeollama.Count{Min: &one, Max: &one},
		Reply: fakeollama.Reply{Content: "I could not say."}}
	s.Rules = append([]fakeollama.Rule{odd}, s.Rules...)
	return s
}

// TestACaseWhoseFirstRepeatsDifferRunsEveryRepeat: the one case whose first
// two repeats differ runs all its repeats, the others copy; with the
// temperature unset no repeat is a copy.
func TestACaseWhoseFirstRepeatsDifferRunsEveryRepeat(t *testing.T) {
	for _, tc := range []struct {
		name, options string
		sentDog       int
		copies        bool
	}{
		{"temperature 0", "{temperature: 0, seed: 42}", 6, true},
		{"temperature unset", "{seed: 42}", 6, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, seedScript(t), nil, nil, "docs")
			s := parseSuite(t, fmt.Sprintf(`
name: two
defaults: {options: %s}
cases:
  - id: dog
    ask: "Can I bring my dog?"
    expect: {tool: search, args: {query: {contains: dog}}, answer: {contains: terrace}}
  - id: capital
    ask: "What is the capital of France?"
    expect: {no_tool: true}
`, tc.options), r.cat)
			if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good"), Repeat: 6, Parallel: 2}); err != nil {
				t.Fatal(err)
			}
			byCase := map[string]int{}
			for _, tr := range r.trials(t) {
				if !tr.IsCopy() {
					byCase[tr.CaseID]++
				}
			}
			wantCapital := 6
			if tc.copies {
				wantCapital = 2
			}
			if byCase["dog"] != tc.sentDog || byCase["capital"] != wantCapital {
				t.Errorf("trials sent by case %v; want dog %d, capital %d", byCase, tc.sentDog, wantCapital)
			}
		})
	}
}

// TestAResumeSettlesCopiesFromTheFirstRepeatsOnRecord: a resumed run whose
// first two repeats ran before (Config.Firsts) records the later ones as
// copies; without them on hand it runs them, the same trials either way.
func TestAResumeSettlesCopiesFromTheFirstRepeatsOnRecord(t *testing.T) {
	first := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, oneCase, first.cat)
	ms := models(t, first, "scripted-good")
	if _, err := first.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 2}); err != nil {
		t.Fatal(err)
	}
	done, firsts := map[record.TrialKey]bool{}, map[record.TrialKey]*record.Trial{}
	for _, tr := range first.trials(t) {
		done[tr.Key()], firsts[tr.Key()] = true, tr
	}
	for _, tc := range []struct {
		name   string
		firsts map[record.TrialKey]*record.Trial
		sent   int
	}{{"with the first repeats", firsts, 0}, {"without", nil, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil, nil, nil, "docs")
			if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: ms, Repeat: 5, Done: done, Firsts: tc.firsts}); err != nil {
				t.Fatal(err)
			}
			trials := r.trials(t)
			sent := 0
			for _, tr := range trials {
				if tr.Repeat < 2 {
					t.Errorf("repeat %d ran again", tr.Repeat)
				}
				if !tr.IsCopy() {
					sent++
				}
			}
			if len(trials) != 3 || sent != tc.sent {
				t.Errorf("%d trials, %d sent; want 3, %d", len(trials), sent, tc.sent)
			}
		})
	}
}
