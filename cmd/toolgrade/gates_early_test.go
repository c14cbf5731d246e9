package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A gate naming a model or variant the run will not have is a usage
// error before the first trial, with did-you-mean, not a failed gate once
// every trial has run: nothing runs, and no run directory is made.
func TestRunRefusesAnUnknownGateNameBeforeItRuns(t *testing.T) {
	srv, url := fakeOllama(t, nil)
	for _, tt := range []struct{ gate, want string }{
		{"scripted-god:pass>=0.5", `run: gate scripted-god:pass>=0.5: the run has no model "scripted-god" (did you mean "scripted-good"? models: scripted-good)`},
		{"scripted-good@tersee:pass>=0.5", `run: gate scripted-good@tersee:pass>=0.5: the run has no variant "tersee" (variants: base)`},
	} {
		out := filepath.Join(t.TempDir(), "run")
		r := runCLI(t, context.Background(), "run", docsSuite(t), "--out", out, "--ollama", url, "--models", "scripted-good", "--gate", tt.gate)
		if r.code != exitUsage || r.err == nil || r.err.Error() != tt.want {
			t.Errorf("--gate %s: exit %d: %v\nwant %d: %s", tt.gate, r.code, r.err, exitUsage, tt.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--gate %s: the run directory was made (%v)", tt.gate, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("Ollama got %d requests; want none before the gates are checked", n)
	}
}
