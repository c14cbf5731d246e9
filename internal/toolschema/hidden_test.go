package toolschema

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// realTools reads the tools copied from real servers' tools/list output
// (each names its server and version in "source").
func realTools(t *testing.T) map[string]*Tool {
	t.Helper()
	data, err := os.ReadFile("testdata/hidden/real-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Source, Name string
		InputSchema  json.RawMessage
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]*Tool{}
	for _, l := range list {
		var m map[string]any
		if err := json.Unmarshal(l.InputSchema, &m); err != nil {
			t.Fatal(err)
		}
		out[l.Name] = Convert("s", &mcp.Tool{Name: l.Name, InputSchema: m}, Options{Raw: l.InputSchema})
	}
	return out
}

func hiddenLines(tools map[string]*Tool) string {
	var b strings.Builder
	for _, name := range sortedKeys(anyMap(tools)) {
		fmt.Fprintf(&b, "%s:\n", name)
		for _, h := range tools[name].Hidden {
			fmt.Fprintf(&b, "  %s\n", h)
		}
	}
	return b.String()
}

func anyMap(m map[string]*Tool) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestHiddenOnRealTools lists the hidden constraints of real servers' tools
// (GitHub's bounds, Kubernetes's defaults, Supabase's nested required,
// Notion's oneOf parent) against a golden file.
func TestHiddenOnRealTools(t *testing.T) {
	golden(t, "hidden/real-tools.golden", hiddenLines(realTools(t)))
}

// TestHiddenKeywords finds each kind of hidden constraint in a fragment,
// and none where the visible schema carries the keyword.
func TestHiddenKeywords(t *testing.T) {
	tests := []struct {
		name, full string
		visible    string // "" converts full; else the schema the model is shown
		want       []string
	}{
		{name: "nested required (Supabase update_storage_config)",
			full: `{"type":"object","properties":{"config":{"type":"object","properties":{"features":{"type":"object"}},"required":["features"]}},"required":["config"]}`,
			want: []string{"config.features: required (nested required, not shown to the model)"}},
		{name: "format",
			full: `{"type":"object","properties":{"spec":{"type":"string","format":"json"}}}`,
			want: []string{`spec: format "json" (not shown to the model)`}},
		{name: "default says it is no constraint",
			full: `{"type":"object","properties":{"namespace":{"type":"string","default":"default"}}}`,
			want: []string{`namespace: default "default" (not a constraint; not shown to the model)`}},
		{name: "top-level additionalProperties false",
			full: `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`,
			want: []string{"arguments: no other properties allowed (additionalProperties: false, not shown to the model)"}},
		{name: "map value types",
			full: `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			want: []string{`labels: values must match {"type":"string"} (map value type, not shown to the model)`}},
		{name: "bounds and pattern",
			full: `{"type":"object","properties":{"n":{"type":"number","minimum":1,"maximum":100},"s":{"type":"string","pattern":"^a","minLength":2},"l":{"type":"array","minItems":1}}}`,
			want: []string{"l: minItems 1 (not shown to the model)", "n: maximum 100 (not shown to the model)", "n: minimum 1 (not shown to the model)",
				"s: minLength 2 (not shown to the model)", `s: pattern "^a" (not shown to the model)`}},
		{name: "items are shown whole",
			full: `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":2}}}}`,
			want: nil},
		{name: "const dropped (beside an enum that does not allow it, so not rewritten)",
			full: `{"type":"object","properties":{"type":{"enum":["page","database"],"const":"workspace"}}}`,
			want: []string{`type: const "workspace" (not shown to the model)`}},
		{name: "const rewritten as enum is shown",
			full:    `{"type":"object","properties":{"type":{"const":"workspace"}}}`,
			visible: `{"type":"object","properties":{"type":{"enum":["workspace"]}}}`,
			want:    nil},
		{name: "oneOf dropped (beside an anyOf, so not rewritten)",
			full: `{"type":"object","properties":{"p":{"anyOf":[{"type":"string"},{"type":"number"}],"oneOf":[{"type":"string"},{"type":"number"}]}}}`,
			want: []string{`p: oneOf [{"type":"string"},{"type":"number"}] (not shown to the model)`}},
		{name: "oneOf rewritten as anyOf: the branches are compared",
			full:    `{"type":"object","properties":{"p":{"oneOf":[{"type":"object","properties":{"page_id":{"type":"string","format":"uuid"}},"required":["page_id"]},{"type":"string"}]}}}`,
			visible: `{"type":"object","properties":{"p":{"anyOf":[{"type":"object","properties":{"page_id":{"type":"string"}}},{"type":"string"}]}}}`,
			want:    []string{`p.page_id: format "uuid" (not shown to the model)`, "p.page_id: required (nested required, not shown to the model)"}},
		{name: "annotations are not constraints",
			full: `{"type":"object","title":"Args","properties":{"q":{"type":"string","title":"Q","examples":["x"],"description":"d"}}}`,
			want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var full map[string]any
			if err := json.Unmarshal([]byte(tt.full), &full); err != nil {
				t.Fatal(err)
			}
			var hidden []Hidden
			if tt.visible == "" {
				hidden = convertJSON(t, tt.full).Hidden
			} else {
				var vis map[string]any
				if err := json.Unmarshal([]byte(tt.visible), &vis); err != nil {
					t.Fatal(err)
				}
				hidden = hiddenConstraints(full, vis)
			}
			var got []string
			for _, h := range hidden {
				got = append(got, h.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hidden (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckArgsHidden validates calls against Supabase's
// update_storage_config: leaving out the nested required features breaks
// only what the model was not shown, and the error names it; leaving out
// the top-level config breaks what it was shown.
func TestCheckArgsHidden(t *testing.T) {
	tool := realTools(t)["update_storage_config"]
	tests := []struct {
		args       string
		hiddenOnly bool
		want       string // a part of the error
	}{
		{`{"project_id":"p","config":{"fileSizeLimit":1}}`, true, "config.features: required (nested required, not shown to the model)"},
		{`{"project_id":"p","config":{"fileSizeLimit":1,"features":{"imageTransformation":{"enabled":true},"s3Protocol":{"enabled":true}}},"extra":1}`, true,
			"arguments: no other properties allowed (additionalProperties: false, not shown to the model)"},
		{`{"project_id":"p"}`, false, "config"},
		// The validator names only one of the two errors; the one the model
		// was shown makes it invalid_args.
		{`{"project_id":5,"config":{"fileSizeLimit":1}}`, false, ""},
	}
	for _, tt := range tests {
		err := tool.ValidateArgs(json.RawMessage(tt.args))
		if err == nil {
			t.Errorf("%s: valid", tt.args)
			continue
		}
		if IsHiddenOnly(err) != tt.hiddenOnly || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: hidden only %v, error %q; want %v and %q", tt.args, IsHiddenOnly(err), err, tt.hiddenOnly, tt.want)
		}
	}
	ok := `{"project_id":"p","config":{"fileSizeLimit":1,"features":{"imageTransformation":{"enabled":true},"s3Protocol":{"enabled":false}}}}`
	if err := tool.ValidateArgs(json.RawMessage(ok)); err != nil {
		t.Errorf("valid arguments: %v", err)
	}
}

// TestHintTextGolden renders the schema hint of every property of the real
// tools that has one, in the documented form, against a golden file.
func TestHintTextGolden(t *testing.T) {
	tools := realTools(t)
	var b strings.Builder
	for _, name := range sortedKeys(anyMap(tools)) {
		tool := tools[name]
		seen := map[string]bool{}
		for _, h := range tool.Hidden {
			path := h.Path
			if h.Keyword == "required" {
				if i := strings.LastIndex(path, "."); i >= 0 {
					path = path[:i]
				}
			}
			if seen[path] {
				continue
			}
			seen[path] = true
			if hint := HintText(tool.Hidden, path); hint != "" {
				fmt.Fprintf(&b, "%s %s: %s\n", name, path, hint)
			}
		}
	}
	golden(t, "hidden/hints.golden", b.String())
}

func TestHintText(t *testing.T) {
	hidden := []Hidden{
		{Path: "config.features", Keyword: "required", Value: "features"},
		{Path: "config.fileSizeLimit", Keyword: "required", Value: "fileSizeLimit"},
		{Path: "config", Keyword: "additionalProperties", Value: false},
		{Path: "output", Keyword: "default", Value: "yaml"},
		{Path: "output", Keyword: "format", Value: "json"},
		{Path: "n", Keyword: "maximum", Value: float64(maxSafeInteger)},
		{Path: "n", Keyword: "minimum", Value: float64(1)},
		{Path: "labels", Keyword: "additionalProperties", Value: map[string]any{"type": "string"}},
		{Path: "", Keyword: "additionalProperties", Value: false},
		{Path: "id", Keyword: "format", Value: "uuid"},
		{Path: "id", Keyword: "pattern", Value: "^[a-f0-9-]+$"},
	}
	for path, want := range map[string]string{
		"config": "Required: features, fileSizeLimit. No other keys.",
		"output": `Default: "yaml". Format: JSON text.`,
		"n":      "Minimum: 1.", // 2^53-1 says nothing
		"labels": `Map values: {"type":"string"}.`,
		"id":     "Format: uuid. Pattern: ^[a-f0-9-]+$.",
		"":       "",
		"other":  "",
	} {
		if got := HintText(hidden, path); got != want {
			t.Errorf("HintText(%q) = %q, want %q", path, got, want)
		}
	}
	if got := WithHint("The output format.", "Default: \"yaml\"."); got != `The output format. Default: "yaml".` {
		t.Errorf("WithHint = %q", got)
	}
}
