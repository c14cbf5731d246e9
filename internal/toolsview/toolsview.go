// Package toolsview is what `toolgrade tools` prints: the catalog as a
// table, its size (estimated, or measured on a model), what a variant sends
// besides, the tools a suite would block, the schema changes and the pairs
// of tools a model may confuse; or all of it as JSON.
package toolsview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/bridge"
	"github.com/toolgrade/toolgrade/internal/confusable"
	"github.com/toolgrade/toolgrade/internal/llm"
	"github.com/toolgrade/toolgrade/internal/report"
	"github.com/toolgrade/toolgrade/internal/suite"
	"github.com/toolgrade/toolgrade/internal/termtext"
	"github.com/toolgrade/toolgrade/internal/toolbox"
	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// PrintJSON is `tools --json`: the tools exactly as sent, the pairs a model may
// confuse, and their measured size when there is one.
func PrintJSON(stdout, stderr io.Writer, toolJSON []byte, size *PromptSize, pairs []confusable.Pair) error {
	if size != nil {
		for _, w := range size.warnings() {
			fmt.Fprintf(stderr, "toolgrade: warning: %s\n", w)
		}
	}
	// Not MarshalIndent: it would escape <, > and & in the tools' JSON,
	// which is printed as sent.
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Tools      json.RawMessage   `json:"tools"`
		Confusable []confusable.Pair `json:"confusable"`
		Prompt     *PromptSize       `json:"prompt,omitempty"`
	}{toolJSON, append([]confusable.Pair{}, pairs...), size})
}

// Print prints the catalog shown as a table, then its size, what the
// variant v sends besides, the tools a suite would block, the schema
// changes and the pairs a model may confuse.
func Print(w io.Writer, shown *toolbox.Shown, v *suite.Variant, toolJSON []byte, size *PromptSize, pairs []confusable.Pair) error {
	rows := toolRows(shown)
	// report.Table escapes the cells: names and descriptions are the servers'.
	if err := report.Table(w, []string{"Tool", "Server", "Parameters (* required)", "Bytes", "Description"}, rows); err != nil {
		return err
	}
	if size == nil {
		fmt.Fprintf(w, "%s, %d bytes of tool JSON sent with every request, about %d tokens (an estimate at 4 bytes a token; --model NAME measures them)\n",
			termtext.Count(len(rows), "tool"), len(toolJSON), estimateTokens(len(toolJSON)))
	} else {
		fmt.Fprintf(w, "%s, %d bytes of tool JSON sent with every request, %s\n", termtext.Count(len(rows), "tool"), len(toolJSON), size.summary())
		for _, warn := range size.warnings() {
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
	}
	printVariantSends(w, v)
	// What a suite without allow_tools would do with each tool, from its
	// MCP annotations.
	policy := &bridge.Policy{Info: shown.Info}
	for _, t := range shown.Listed {
		ti, _ := shown.Info.ToolInfo(t.Exposed)
		if t.Server == "" {
			continue // inline: it never runs, so nothing blocks it
		}
		if why := policy.Blocks(ti); why != "" {
			fmt.Fprintln(w, termtext.Printable(fmt.Sprintf("blocked: %s: a suite does not run it: %s", ti.Exposed, why)))
		}
	}
	for _, l := range toolschema.ChangeLines(shown.Listed) {
		fmt.Fprintln(w, termtext.Printable(l))
	}
	for _, p := range pairs {
		fmt.Fprintln(w, termtext.Printable("confusable: "+p.String()))
	}
	return nil
}

// toolRows are the table rows of the tools shown, in the order sent.
func toolRows(shown *toolbox.Shown) [][]string {
	var rows [][]string
	byName := map[string]toolschema.Tool{}
	for _, t := range shown.Listed {
		byName[t.Exposed] = t
	}
	for _, x := range shown.Tools {
		// Overlays keep the catalog's order and change only descriptions;
		// decoys come between the real tools.
		t, real := byName[x.Function.Name]
		server := t.Server
		switch {
		case !real && shown.Decoys != nil && shown.Decoys.Decoy(x.Function.Name):
			t = shown.Decoys.Tool(x.Function.Name)
			server = "decoy (" + t.Server + ")"
		case server == "":
			server = "(inline)" // a case's own definition: nothing behind it
		}
		t.Ollama, t.Description = x, x.Function.Description
		one, _ := json.Marshal(t.Ollama)
		rows = append(rows, []string{t.Exposed, server, params(t), fmt.Sprint(len(one)), clip(t.Description, 60)})
	}
	return rows
}

// printVariantSends says what variant v sends besides its tools: its
// system prompt, think and options.
func printVariantSends(w io.Writer, v *suite.Variant) {
	if v != nil && v.System != "" {
		fmt.Fprintln(w, termtext.Printable("system prompt of variant "+v.Name+": "+clip(v.System, 200)))
	}
	if v != nil && (v.Think != "" || len(v.Options) > 0) {
		// The JSON's keys are sorted.
		opts := ""
		if len(v.Options) > 0 {
			b, _ := json.Marshal(v.Options)
			opts = string(b)
		}
		fmt.Fprintln(w, termtext.Printable(fmt.Sprintf("variant %s sends think %s and options %s over the suite's", v.Name, orUnset(v.Think), orUnset(opts))))
	}
}

// estimateTokens is a rough token count for JSON text (about four bytes a
// token for the tokenizers of common Ollama models).
func estimateTokens(bytes int) int { return (bytes + 3) / 4 }

// params lists a tool's parameters in the order the model sees them.
func params(t toolschema.Tool) string {
	p := t.Ollama.Function.Parameters
	required := map[string]bool{}
	for _, r := range p.Required {
		required[r] = true
	}
	var names []string
	for name, prop := range p.Properties.All() {
		s := name
		if required[name] {
			s += "*"
		}
		if len(prop.Type) > 0 {
			s += ": " + prop.Type.String()
		}
		names = append(names, s)
	}
	return strings.Join(names, ", ")
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// PromptSize is the measured prompt size of the catalog on one model, as
// `tools --model` prints it and --json carries it.
type PromptSize struct {
	Model string `json:"model"`
	// Tokens is the tools' share of the prompt: WithTools − WithoutTools.
	Tokens       int `json:"tokens"`
	WithTools    int `json:"with_tools"`
	WithoutTools int `json:"without_tools"`
	// NumCtx is the context the requests ran with; 0: Ollama did not say.
	NumCtx int `json:"num_ctx"`
	// Fits is false when the prompt with the tools reached num_ctx: Ollama
	// cut it, and Tokens is a lower bound.
	Fits bool `json:"fits"`
	// OverHalf: the tools take more than half of num_ctx.
	OverHalf bool `json:"over_half"`
}

func NewPromptSize(model string, m llm.PromptSize) *PromptSize {
	return &PromptSize{
		Model: model, Tokens: m.Tools(), WithTools: m.WithTools, WithoutTools: m.WithoutTools,
		NumCtx: m.NumCtx, Fits: m.Fits(), OverHalf: m.NumCtx > 0 && 2*m.Tools() > m.NumCtx,
	}
}

// summary is the end of the size line: the measured tokens beside num_ctx.
func (p *PromptSize) summary() string {
	s := fmt.Sprintf("%d tokens on %s (measured: a minimal prompt counts %d with them, %d without)",
		p.Tokens, p.Model, p.WithTools, p.WithoutTools)
	if !p.Fits {
		s = fmt.Sprintf("at least %d tokens on %s (measured: a minimal prompt counts %d with them, %d without)",
			p.Tokens, p.Model, p.WithTools, p.WithoutTools)
	}
	if p.NumCtx == 0 {
		return s + "; num_ctx unknown (Ollama did not report it; -o num_ctx=N sets it)"
	}
	return s + fmt.Sprintf("; num_ctx %d", p.NumCtx)
}

// warnings say when the tools leave too little of the context, or none.
func (p *PromptSize) warnings() []string {
	switch {
	case !p.Fits:
		return []string{fmt.Sprintf("the tools do not fit: with them a minimal prompt reached num_ctx %d on %s, so Ollama cuts it "+
			"and the model does not see the whole catalog; raise num_ctx (-o num_ctx=N, or the suite's options) or offer fewer tools",
			p.NumCtx, p.Model)}
	case p.OverHalf:
		return []string{fmt.Sprintf("the tools take %d of the %d tokens of num_ctx on %s (%d%%), more than half: "+
			"little is left for the conversation and the tool results before Ollama cuts the prompt",
			p.Tokens, p.NumCtx, p.Model, 100*p.Tokens/p.NumCtx)}
	}
	return nil
}

// orUnset is s, or "(the suite's)" when it is empty.
func orUnset(s string) string {
	if s == "" {
		return "(the suite's)"
	}
	return s
}
