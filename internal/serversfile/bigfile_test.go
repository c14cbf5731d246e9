package serversfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// bigServersFile is a servers file of one server with n env entries, minified
// (one line) or indented: the same data.
func bigServersFile(tb testing.TB, n int, indent bool) []byte {
	tb.Helper()
	env := map[string]string{}
	for i := range n {
		env[fmt.Sprintf("VAR_%05d", i)] = fmt.Sprintf("value-%d", i)
	}
	doc := map[string]any{"mcpServers": map[string]any{"big": map[string]any{"command": "true", "env": env}}}
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(doc, "", "  ")
	} else {
		b, err = json.Marshal(doc)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestBigMinifiedFileParses: 50,000 entries on one line parse, with the
// positions of the last entry right (the cursor's linearity is
// TestCursorIsLinear's; the time is BenchmarkParseServersFile's).
func TestBigMinifiedFileParses(t *testing.T) {
	cfg, err := Parse(context.Background(), bigServersFile(t, 50000, false), "big.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(cfg.Servers[0].Env); got != 50000 {
		t.Errorf("%d env entries, want 50000", got)
	}
	_, err = Parse(context.Background(), []byte(`{"mcpServers": {"big": {"command": "true", "env": {"A": "1", "A": "2"}}}}`), "dup.json")
	if err == nil || err.Error() != `dup.json:1:62: mcpServers.big.env.A: duplicate key (first at line 1)` {
		t.Errorf("duplicate: %v", err)
	}
}

// TestParseStopsWhenInterrupted: a parse whose context is done (the user
// pressed Ctrl-C) stops with the context's error, for JSON and YAML alike,
// and says nothing of syntax.
func TestParseStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"big.json", "big.yaml"} {
		_, err := Parse(ctx, bigServersFile(t, 20000, false), name)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
	}
}

// BenchmarkParseServersFile: 50,000 env entries minified and indented
// (the guard issue: 55 s and 1.7 s before positions were counted once).
func BenchmarkParseServersFile(b *testing.B) {
	for _, indent := range []bool{false, true} {
		data := bigServersFile(b, 50000, indent)
		b.Run(map[bool]string{false: "minified", true: "indented"}[indent], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(context.Background(), data, "big.json"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
