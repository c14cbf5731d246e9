package toolbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/toolbox"
)

func ptr(s string) *string { return &s }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The overlaid catalog differs from the base in exactly the descriptions
// replaced: the rest of its JSON is the base's byte for byte, and the base is
// left as it was.
func TestOnlyTheDescriptionsChange(t *testing.T) {
	cat := rig.Catalog(t, nil, "docs")
	base := mustJSON(t, cat.OllamaTools())
	var oldTool, oldParam string
	for _, tl := range cat.OllamaTools() {
		switch tl.Function.Name {
		case "get_document":
			oldTool = tl.Function.Description
		case "search":
			p, _ := tl.Function.Parameters.Properties.Get("query")
			oldParam = p.Description
		}
	}
	tb, err := toolbox.Overlay(cat, []suite.ToolOverlay{
		{Tool: "get_document", Exposed: "get_document", Description: ptr("Open one whole document.")},
		{Tool: "docs.search", Exposed: "search", Params: []suite.ParamOverlay{{Path: "query", Description: "What to look for."}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := mustJSON(t, tb.OllamaTools())
	if bytes.Equal(got, base) {
		t.Fatal("nothing changed")
	}
	back := bytes.Replace(got, mustJSON(t, "Open one whole document."), mustJSON(t, oldTool), 1)
	back = bytes.Replace(back, mustJSON(t, "What to look for."), mustJSON(t, oldParam), 1)
	if !bytes.Equal(back, base) {
		t.Errorf("the overlay changed more than the descriptions:\n%s\n---\n%s", back, base)
	}
	if after := mustJSON(t, cat.OllamaTools()); !bytes.Equal(after, base) {
		t.Errorf("the base catalog was modified:\n%s", after)
	}
	// Calls, validation and results are the base's.
	ex := tb.Call(context.Background(), "get_document", json.RawMessage(`{"name":"hours.txt"}`), "call_1")
	if ex.ErrorKind != "" || !strings.Contains(ex.Result, "Mon") || ex.Server != "docs" {
		t.Errorf("call %+v", ex)
	}
	ex = tb.Call(context.Background(), "get_document", json.RawMessage(`{"nam":"hours.txt"}`), "call_2")
	if ex.ErrorKind != record.ExecInvalidArgs {
		t.Errorf("invalid arguments were not refused as the base refuses them: %+v", ex)
	}
}

// A dotted path reaches a nested property; only that tool's property tree is
// copied.
func TestNestedParameter(t *testing.T) {
	var tools api.Tools
	src := `[{"type":"function","function":{"name":"find","description":"Find.","parameters":{"type":"object","properties":{
	  "filter":{"type":"object","description":"F.","properties":{"kind":{"type":"string","description":"K."},"lang":{"type":"string"}}},
	  "q":{"type":"string"}}}}},
	  {"type":"function","function":{"name":"other","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}}]`
	if err := json.Unmarshal([]byte(src), &tools); err != nil {
		t.Fatal(err)
	}
	before := mustJSON(t, tools)
	out, err := toolbox.ApplyOverlays(tools, []suite.ToolOverlay{{Exposed: "find", Params: []suite.ParamOverlay{{Path: "filter.kind", Description: "Which kind."}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Replace(before, []byte(`"K."`), []byte(`"Which kind."`), 1)
	if got := mustJSON(t, out); !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if after := mustJSON(t, tools); !bytes.Equal(after, before) {
		t.Errorf("the input was modified:\n%s", after)
	}
	if _, err := toolbox.ApplyOverlays(tools, []suite.ToolOverlay{{Tool: "q", Exposed: "find", Params: []suite.ParamOverlay{{Path: "q.x", Description: "x"}}}}); err == nil {
		t.Error("a path below a property without properties was accepted")
	}
	if _, err := toolbox.ApplyOverlays(tools, []suite.ToolOverlay{{Tool: "nope", Exposed: "nope", Description: ptr("x")}}); err == nil {
		t.Error("an overlay of a tool not offered was accepted")
	}
}
