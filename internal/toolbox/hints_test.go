package toolbox_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

// TestHints folds the docs server's hidden constraints into its search
// parameters' descriptions, in the documented form, leaves the base's tools
// as they were, and still validates calls against the full schema.
func TestHints(t *testing.T) {
	cat := rig.Catalog(t, nil, "docs")
	base := mustJSON(t, cat.OllamaTools())
	hinted := toolbox.WithHints(cat, cat.HiddenOf)
	want := map[string]string{
		"query": "Words to look for, for example 'dog terrace' or 'opening hours'; a plain-language question also works. Min length: 1.",
		"top_k": "Maximum number of matching lines to return, from 1 to 20. Defaults to 3. Default: 3. Minimum: 1. Maximum: 20.",
	}
	found := 0
	for _, tl := range hinted.OllamaTools() {
		if tl.Function.Name != "search" {
			continue
		}
		for name, w := range want {
			p, ok := tl.Function.Parameters.Properties.Get(name)
			if !ok || p.Description != w {
				t.Errorf("%s: description %q, want %q", name, p.Description, w)
			}
			found++
		}
	}
	if found != len(want) {
		t.Fatalf("search not offered: %d properties checked", found)
	}
	if !bytes.Equal(base, mustJSON(t, cat.OllamaTools())) {
		t.Error("the base catalog changed")
	}
	x := hinted.Call(context.Background(), "search", []byte(`{"query":"dog","top_k":50}`), "c1")
	if x.ErrorKind != record.ExecInvalidArgs || !x.HiddenOnly {
		t.Errorf("call through the hinted tools: %+v", x)
	}
}
