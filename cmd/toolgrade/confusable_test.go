package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// toolsSent is the tools of `tools --json`'s output, compacted: the bytes
// sent to Ollama.
func toolsSent(t *testing.T, stdout string) string {
	t.Helper()
	var out struct{ Tools json.RawMessage }
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, stdout)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, out.Tools); err != nil {
		t.Fatalf("tools --json: tools: %v\n%s", err, stdout)
	}
	return b.String()
}

// `tools` lists the pairs a model may confuse, in the table's output and in
// its JSON: the filesystem server's aliases at the default threshold, none
// of the docs fake's; --confusable lowers the bar.
func TestToolsListsConfusablePairs(t *testing.T) {
	t.Parallel()
	cfg := serversFile(t, "docs", "fs")
	r := runCLI(t, context.Background(), "tools", "--servers", cfg)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	var lines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "confusable: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "confusable: list_directory ~ list_directory_with_sizes 0.77 (description 0.91, parameters 0.50): both say ") ||
		!strings.HasPrefix(lines[1], "confusable: read_file ~ read_text_file 0.52") || !strings.Contains(lines[1], "; both take path: string, tail: number, head: number") {
		t.Errorf("confusable lines:\n%s", strings.Join(lines, "\n"))
	}
	var out struct {
		Tools      []json.RawMessage
		Confusable []struct {
			A, B   string
			Score  float64
			Words  []string
			Params []string
		}
	}
	j := runCLI(t, context.Background(), "tools", "--servers", cfg, "--json")
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || len(out.Confusable) != 2 {
		t.Fatalf("%v %+v\n%s", err, out.Confusable, j.stdout)
	}
	if c := out.Confusable[1]; c.A != "read_file" || c.B != "read_text_file" || c.Score < 0.5 || len(c.Words) == 0 || len(c.Params) != 3 {
		t.Errorf("JSON pair %+v", c)
	}

	docs := serversFile(t, "docs")
	if r := runCLI(t, context.Background(), "tools", "--servers", docs); strings.Contains(r.stdout, "confusable:") {
		t.Errorf("the docs fake has no pair at the default threshold:\n%s", r.stdout)
	}
	if r := runCLI(t, context.Background(), "tools", "--servers", docs, "--json"); !strings.Contains(r.stdout, `"confusable": []`) {
		t.Errorf("an empty list is written as []:\n%s", r.stdout)
	}
	low := runCLI(t, context.Background(), "tools", "--servers", docs, "--confusable", "0.3")
	if !strings.Contains(low.stdout, "confusable: get_document ~ list_documents 0.31") || strings.Count(low.stdout, "confusable:") != 1 {
		t.Errorf("--confusable 0.3:\n%s", low.stdout)
	}
	if r := runCLI(t, context.Background(), "tools", "--servers", docs, "--confusable", "1.5"); r.code != exitUsage || !strings.Contains(r.err.Error(), "--confusable 1.5: give a score from 0 to 1") {
		t.Errorf("code %d err %v", r.code, r.err)
	}
}
