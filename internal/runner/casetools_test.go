package runner_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/runner"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// offering is a Toolbox that counts the conversations it is offered in.
type offering struct {
	bridge.Toolbox
	n atomic.Int32
}

func (o *offering) OllamaTools() api.Tools {
	o.n.Add(1)
	return o.Toolbox.OllamaTools()
}

const caseToolsRunnerSuite = `
cases:
  - {id: dog, ask: "Can I bring my dog?", expect: {tool: search}}
  - id: own
    ask: "What is 5 factorial?"
    tools: [{name: f, parameters: {type: object, properties: {n: {type: integer}}}}]
    expect: {tool: f}
`

// A case with its own tools runs with its variant's toolbox for that case,
// on one Ollama and on a pool alike; the other cases keep the variant's.
func TestCaseToolsReplaceTheVariantsForTheirCase(t *testing.T) {
	for _, pool := range []bool{false, true} {
		var run func(cfg runner.Config) error
		var cat *mcpclient.Catalog
		if pool {
			r := newPoolRig(t, 0, hostSpec{}, hostSpec{})
			cat = r.cat
			run = func(cfg runner.Config) error {
				m, err := r.runner.CheckHosts(context.Background(), []string{"scripted-good"})
				if err != nil {
					return err
				}
				cfg.Models = m
				_, err = r.runner.Run(context.Background(), cfg)
				return err
			}
		} else {
			r := newRig(t, nil, nil, nil, "docs")
			cat = r.cat
			run = func(cfg runner.Config) error {
				cfg.Models = models(t, r, "scripted-good")
				_, err := r.runner.Run(context.Background(), cfg)
				return err
			}
		}
		// Not checked: the catalogs of cases are cmd's to build; the
		// counts below do not need resolved expectations.
		s, err := suite.Parse([]byte(caseToolsRunnerSuite), "own.yaml")
		if err != nil {
			t.Fatal(err)
		}
		st, err := toolbox.NewStatic(cat, []toolbox.StaticTool{{Name: "f", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}})
		if err != nil {
			t.Fatal(err)
		}
		base, own := &offering{Toolbox: cat}, &offering{Toolbox: st}
		v := runner.Variant{Tools: base, Catalog: cat, Cases: map[string]runner.CaseTools{"own": {Tools: own, Catalog: st}}}
		if err := run(runner.Config{Suite: s, Repeat: 3, Variants: []runner.Variant{v}}); err != nil {
			t.Fatal(err)
		}
		if base.n.Load() != 3 || own.n.Load() != 3 {
			t.Errorf("pool %v: the variant's toolbox offered %d times, the case's %d; want 3 each", pool, base.n.Load(), own.n.Load())
		}
	}
}
