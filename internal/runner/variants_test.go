package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

const variantSuite = `
name: variants
defaults: {system: "Base system.", options: {seed: 7, temperature: 0}}
variants:
  - name: desc
    tools:
      get_document: {description: "Open one whole document."}
      search: {params: {query: "What to look for."}}
  - name: sys
    system: "Variant system."
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
  - {id: faq, ask: "Show me faq.txt in full.", expect: {tool: get_document, args: {name: faq.txt}}}
`

// counting is a Toolbox that counts the calls it runs.
type counting struct {
	bridge.Toolbox
	mu    sync.Mutex
	calls int
}

func (c *counting) Call(ctx context.Context, name string, args json.RawMessage, id string) record.Execution {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.Toolbox.Call(ctx, name, args, id)
}

var callIDs = regexp.MustCompile(`call_[a-z0-9]+`)

func jsonString(t *testing.T, s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every (model, variant, case, repeat) runs once with the same seeds, repeat
// by repeat, variant by variant; and what reaches Ollama differs between the
// base and a variant in exactly what the variant changes.
func TestVariantsChangeExactlyWhatTheyOverlay(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, variantSuite, r.cat)
	baseJSON, _ := json.Marshal(r.cat.OllamaTools())
	desc, err := toolbox.Overlay(r.cat, s.Variant("desc").Tools)
	if err != nil {
		t.Fatal(err)
	}
	variants := []runner.Variant{{}, {Name: "desc", Suite: s.Variant("desc"), Tools: desc}, {Name: "sys", Suite: s.Variant("sys")}}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good"), Repeat: 2, Variants: variants}); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tr := range r.trials(t) {
		order = append(order, fmt.Sprintf("%s/%s/%d", tr.Variant, tr.CaseID, tr.Repeat))
		if tr.Seed != 7+int64(tr.Repeat) || tr.Score.Outcome != record.OutcomePass {
			t.Errorf("%s/%s/%d: seed %d, %s (%s)", tr.Variant, tr.CaseID, tr.Repeat, tr.Seed, tr.Score.Outcome, tr.Score.Detail)
		}
	}
	want := []string{"/dog/0", "/faq/0", "desc/dog/0", "desc/faq/0", "sys/dog/0", "sys/faq/0",
		"/dog/1", "/faq/1", "desc/dog/1", "desc/faq/1", "sys/dog/1", "sys/faq/1"}
	if !slices.Equal(order, want) {
		t.Errorf("trials %v, want %v", order, want)
	}

	var oldDesc, oldParam string
	for _, tl := range r.cat.OllamaTools() {
		switch tl.Function.Name {
		case "get_document":
			oldDesc = tl.Function.Description
		case "search":
			p, _ := tl.Function.Parameters.Properties.Get("query")
			oldParam = p.Description
		}
	}
	// The requests of each variant, in order (one run at a time: the order is
	// the trials' order).
	byVariant := map[string][][]byte{}
	for _, req := range r.fake.Requests() {
		if req.Chat == nil || len(req.Chat.Messages) == 0 {
			continue
		}
		v := ""
		switch {
		case bytes.Contains(req.Body, []byte("Open one whole document.")):
			v = "desc"
		case bytes.Contains(req.Body, []byte("Variant system.")):
			v = "sys"
		}
		// The call ids are Ollama's, new in every response.
		byVariant[v] = append(byVariant[v], callIDs.ReplaceAll(req.Body, []byte("call_ID")))
	}
	base := byVariant[""]
	if len(base) == 0 || len(byVariant["desc"]) != len(base) || len(byVariant["sys"]) != len(base) {
		t.Fatalf("requests: base %d, desc %d, sys %d", len(base), len(byVariant["desc"]), len(byVariant["sys"]))
	}
	for i, body := range byVariant["desc"] {
		if !bytes.Contains(body, jsonString(t, "What to look for.")) {
			t.Errorf("desc request %d lacks the parameter's new description", i)
		}
		back := bytes.Replace(body, jsonString(t, "Open one whole document."), jsonString(t, oldDesc), 1)
		back = bytes.Replace(back, jsonString(t, "What to look for."), jsonString(t, oldParam), 1)
		if !bytes.Equal(back, base[i]) {
			t.Errorf("desc request %d differs from the base's in more than the descriptions:\n%s\n---\n%s", i, back, base[i])
		}
	}
	for i, body := range byVariant["sys"] {
		back := bytes.Replace(body, jsonString(t, "Variant system."), jsonString(t, "Base system."), 1)
		if !bytes.Equal(back, base[i]) {
			t.Errorf("sys request %d differs from the base's in more than the system prompt:\n%s\n---\n%s", i, back, base[i])
		}
	}
	if after, _ := json.Marshal(r.cat.OllamaTools()); !bytes.Equal(after, baseJSON) {
		t.Error("the variant changed the base catalog")
	}
}

// A variant with its own catalog runs its calls there, and a resume skips
// exactly the trials done under each variant's own key.
func TestVariantWithItsOwnCatalogAndResume(t *testing.T) {
	r := newRig(t, nil, nil, nil, "docs")
	s := parseSuite(t, `
name: own
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
  - {id: faq, ask: "Show me faq.txt in full.", expect: {tool: get_document}}
`, r.cat)
	s.Variants = []suite.Variant{{Name: "branch", ServersPath: "branch.json"}}
	branchCat := rig.Catalog(t, nil, "docs", "faulty")
	if err := s.CheckVariant(&s.Variants[0], branchCat); err != nil {
		t.Fatal(err)
	}
	base, branch := &counting{Toolbox: r.cat}, &counting{Toolbox: branchCat}
	r.runner.Tools = base
	done := map[record.TrialKey]bool{
		{Model: "scripted-good", CaseID: "dog", Variant: "branch", Repeat: 0}: true,
		{Model: "scripted-good", CaseID: "faq", Repeat: 0}:                    true,
	}
	var last runner.Progress
	r.runner.OnProgress = func(p runner.Progress) { last = p }
	variants := []runner.Variant{{}, {Name: "branch", Suite: &s.Variants[0], Tools: branch, Catalog: branchCat}}
	if _, err := r.runner.Run(context.Background(), runner.Config{Suite: s, Models: models(t, r, "scripted-good"), Variants: variants, Done: done}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, tr := range r.trials(t) {
		keys = append(keys, tr.Variant+"/"+tr.CaseID)
		if tr.Score.Outcome != record.OutcomePass {
			t.Errorf("%s/%s: %s", tr.Variant, tr.CaseID, tr.Score.Outcome)
		}
	}
	if want := []string{"/dog", "branch/faq"}; !slices.Equal(keys, want) {
		t.Errorf("trials %v, want %v", keys, want)
	}
	if base.calls != 1 || branch.calls != 1 {
		t.Errorf("calls: base %d, branch %d; want 1 each", base.calls, branch.calls)
	}
	if last.Total != 4 || last.Done != 4 {
		t.Errorf("progress %+v", last)
	}
	// The branch's requests offered its own catalog.
	n := 0
	for _, req := range r.fake.Requests() {
		if req.Chat != nil && strings.Contains(string(req.Body), "Show me faq.txt") && len(req.Chat.Tools) > 0 {
			n++
			if len(req.Chat.Tools) != len(branchCat.OllamaTools()) {
				t.Errorf("the branch trial was offered %d tools, not its catalog's %d", len(req.Chat.Tools), len(branchCat.OllamaTools()))
			}
		}
	}
	if n == 0 {
		t.Error("no request of the branch trial")
	}
}
