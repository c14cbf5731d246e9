package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// caseToolsYAML mixes a case on the suite's catalog, two cases bringing the
// same inline tool, and a case offered a subset of the servers' tools; the
// variant overlays the inline tool's description.
const caseToolsYAML = `servers: SERVERS
models: [scripted-good]
variants:
  - name: terse
    tools: {math_factorial: {description: "Overlaid n!."}}
cases:
  - id: suite-catalog
    ask: "What are the opening hours?"
    expect: {tool: get_document}
  - id: inline
    ask: "What is 5 factorial?"
    tools:
      - name: math_factorial
        description: "Calculate the factorial of a number."
        parameters: {type: object, properties: {n: {type: integer, format: int32, description: "The number."}}, required: [n]}
    expect: {calls: [{tool: math_factorial, args: {n: 5}}]}
  - id: inline-again
    ask: "What is 6 factorial?"
    tools:
      - name: math_factorial
        description: "Calculate the factorial of a number."
        parameters: {type: object, properties: {n: {type: integer, format: int32, description: "The number."}}, required: [n]}
    expect: {calls: [{tool: math_factorial, args: {n: 6}}]}
  - id: subset
    ask: "Can I bring my dog?"
    tools: [docs.search]
    expect: {tool: search}
`

func writeCaseToolsSuite(t *testing.T, text string) string {
	t.Helper()
	text = strings.Replace(text, "SERVERS", serversFile(t, "docs"), 1)
	p := filepath.Join(t.TempDir(), "casetools.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each case is sent exactly its own catalog (with the variant's overlay
// where it has the tool), run.json holds each distinct catalog once, and
// `tools --case` shows the bytes sent.
func TestRunCaseTools(t *testing.T) {
	t.Parallel()
	srv, url := fakeOllama(t, nil)
	suitePath := writeCaseToolsSuite(t, caseToolsYAML)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	// What Ollama's format drops from an inline tool is said once, naming
	// both cases.
	if !strings.Contains(r.stderr, "warning: tool math_factorial of cases inline, inline-again: information lost: Ollama's tool format drops properties.n.format") {
		t.Errorf("no drop warning naming the cases:\n%s", r.stderr)
	}
	want := map[string][]string{
		"What are the opening hours?": {"search", "list_documents", "get_document"},
		"What is 5 factorial?":        {"math_factorial"},
		"What is 6 factorial?":        {"math_factorial"},
		"Can I bring my dog?":         {"search"},
	}
	seen := map[string]int{}
	descs := map[string][]string{} // of math_factorial, by question
	for _, req := range srv.Requests() {
		c := req.Chat
		if c == nil || len(c.Tools) == 0 {
			continue
		}
		ask := c.Messages[len(c.Messages)-1].Content
		if c.Messages[0].Role == "user" {
			ask = c.Messages[0].Content
		}
		var names []string
		var desc string
		for _, tool := range c.Tools {
			names = append(names, tool.Function.Name)
			if tool.Function.Name == "math_factorial" {
				desc = tool.Function.Description
			}
		}
		w, ok := want[ask]
		if !ok {
			continue
		}
		seen[ask]++
		slices.Sort(names)
		ws := slices.Sorted(slices.Values(w))
		if !slices.Equal(names, ws) {
			t.Errorf("%q was sent tools %v, want %v", ask, names, ws)
		}
		if desc != "" {
			descs[ask] = append(descs[ask], desc)
		}
	}
	// One trial of each inline case per variant, each stopping at its first
	// request: the base's description once, the overlay once.
	for _, ask := range []string{"What is 5 factorial?", "What is 6 factorial?"} {
		got := slices.Sorted(slices.Values(descs[ask]))
		if want := []string{"Calculate the factorial of a number.", "Overlaid n!."}; !slices.Equal(got, want) {
			t.Errorf("%q: math_factorial described %q, want %q", ask, got, want)
		}
	}
	for ask := range want {
		if seen[ask] < 2 { // base and terse
			t.Errorf("%q was sent %d times with tools, want at least 2", ask, seen[ask])
		}
	}
	trials := readTrialsAll(t, dir)
	if len(trials) != 8 {
		t.Errorf("%d trials, want 4 cases × 2 variants", len(trials))
	}
	for _, tr := range trials {
		inline := tr.CaseID == "inline" || tr.CaseID == "inline-again"
		if tr.Transcript.NotExecuted != inline {
			t.Errorf("%s/%s: not_executed %v", tr.Variant, tr.CaseID, tr.Transcript.NotExecuted)
		}
	}
	meta, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Catalogs) != 2 {
		t.Fatalf("%d catalogs, want base and terse", len(meta.Catalogs))
	}
	for _, rc := range meta.Catalogs {
		if len(rc.Cases) != 2 {
			t.Fatalf("variant %q: %d case catalogs, want 2 (inline tools once, the subset once): %+v", rc.Variant, len(rc.Cases), rc.Cases)
		}
		if got := strings.Join(rc.Cases[0].Cases, ","); got != "inline,inline-again" {
			t.Errorf("variant %q: first case catalog for %s", rc.Variant, got)
		}
		if got := strings.Join(rc.Cases[1].Cases, ","); got != "subset" {
			t.Errorf("variant %q: second case catalog for %s", rc.Variant, got)
		}
		overlaid := bytes.Contains(rc.Cases[0].Tools, []byte("Overlaid n!."))
		if overlaid != (rc.Variant == "terse") {
			t.Errorf("variant %q: overlay in its case catalog: %v", rc.Variant, overlaid)
		}
		if bytes.Contains(rc.Tools, []byte("math_factorial")) {
			t.Errorf("variant %q: the suite's catalog holds a case's inline tool", rc.Variant)
		}
	}
	if meta.Cases["inline"] == meta.Cases["inline-again"] || meta.Cases["inline"] == "" {
		t.Errorf("case hashes %v", meta.Cases)
	}

	// `tools --case` shows what the case was sent, byte for byte.
	for _, v := range []string{"base", "terse"} {
		tj := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--case", "inline", "--variant", v, "--json")
		rc := meta.Catalogs[0]
		if v == "terse" {
			rc = meta.Catalogs[1]
		}
		var sent bytes.Buffer
		if err := json.Compact(&sent, rc.Cases[0].Tools); err != nil {
			t.Fatal(err)
		}
		if tj.err != nil || toolsSent(t, tj.stdout) != sent.String() {
			t.Errorf("tools --case inline --variant %s (err %v) differs from run.json:\n%s\n---\n%s", v, tj.err, tj.stdout, sent.String())
		}
	}
	tt := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--case", "inline")
	if tt.err != nil || !strings.Contains(tt.stdout, "math_factorial") || !strings.Contains(tt.stdout, "(inline)") || !strings.Contains(tt.stdout, "properties.n.format") {
		t.Errorf("tools --case inline (err %v):\n%s", tt.err, tt.stdout)
	}
	if tt := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--case", "suite-catalog"); tt.err == nil || !strings.Contains(tt.err.Error(), "brings no tools of its own") {
		t.Errorf("tools --case suite-catalog: %v", tt.err)
	}
	if tt := runCLI(t, context.Background(), "tools", "--suite", suitePath, "--case", "inlne"); tt.err == nil || !strings.Contains(tt.err.Error(), `did you mean "inline"?`) {
		t.Errorf("tools --case inlne: %v", tt.err)
	}
}

// A suite without servers whose cases all bring inline tools runs, and no
// server starts.
func TestRunCaseToolsWithoutServers(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	p := filepath.Join(t.TempDir(), "inline.yaml")
	os.WriteFile(p, []byte(`models: [scripted-good]
cases:
  - id: a
    ask: "What is 5 factorial?"
    tools: [{name: f, parameters: {type: object, properties: {n: {type: integer}}}}]
    expect: {tool: f, args: {n: 5}}
`), 0o644)
	dir := filepath.Join(t.TempDir(), "run")
	r := runCLI(t, context.Background(), "run", p, "--out", dir, "--ollama", url)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	trials := readTrialsAll(t, dir)
	if len(trials) != 1 || !trials[0].Transcript.NotExecuted {
		t.Fatalf("trials %+v", trials)
	}
	if tt := runCLI(t, context.Background(), "tools", "--suite", p, "--case", "a", "--json"); tt.err != nil || !strings.Contains(toolsSent(t, tt.stdout), `"name":"f"`) {
		t.Errorf("tools --case a (err %v): %s", tt.err, tt.stdout)
	}
}

// Errors in a case's tools that only the servers can tell are reported at
// their positions before any model runs.
func TestRunCaseToolsCheckErrors(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	p := writeCaseToolsSuite(t, `servers: SERVERS
models: [scripted-good]
cases:
  - id: a
    ask: q
    tools: [serch]
    expect: {tool: search}
  - id: b
    ask: q
    tools: [search]
    expect: {tool: get_document}
`)
	r := runCLI(t, context.Background(), "run", p, "--out", filepath.Join(t.TempDir(), "run"), "--ollama", url)
	if r.err == nil {
		t.Fatal("run succeeded")
	}
	for _, want := range []string{
		`casetools.yaml:6:13: cases[0].tools[0]: unknown tool "serch" (did you mean "search"? tools: `,
		`casetools.yaml:11:20: cases[1].expect.tool: not among the case's tools: unknown tool "get_document"`,
	} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, r.err)
		}
	}
}

// A run whose cases brought their own tools rescores offline against their
// recorded catalogs; a case that no longer brings tools is copied.
func TestRescoreCaseTools(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	suitePath := writeCaseToolsSuite(t, caseToolsYAML)
	dir := filepath.Join(t.TempDir(), "run")
	if r := runCLI(t, context.Background(), "run", suitePath, "--out", dir, "--ollama", url); r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	before := map[string]string{}
	for _, tr := range readTrialsAll(t, dir) {
		before[tr.Variant+"/"+tr.CaseID] = tr.Score.Outcome
	}
	b, _ := os.ReadFile(suitePath)
	edited := strings.Replace(string(b), "expect: {calls: [{tool: math_factorial, args: {n: 5}}]}", "expect: {no_tool: true}", 1)
	edited = strings.Replace(edited, "    tools: [docs.search]\n", "", 1)
	if edited == string(b) {
		t.Fatal("the edit did not apply")
	}
	os.WriteFile(suitePath, []byte(edited), 0o644)
	out := filepath.Join(t.TempDir(), "rescored")
	r := runCLI(t, context.Background(), "rescore", dir, "--suite", suitePath, "--out", out)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stderr, "rescored 6 trials") || !strings.Contains(r.stderr, "case subset not rescored (it no longer brings its own tools)") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	for _, tr := range readTrialsAll(t, out) {
		k := tr.Variant + "/" + tr.CaseID
		if tr.CaseID == "inline" && tr.Score.Outcome == before[k] {
			t.Errorf("%s: still %s after its expectation changed to no_tool", k, tr.Score.Outcome)
		}
		if tr.CaseID == "inline-again" && tr.Score.Outcome != before[k] {
			t.Errorf("%s: %s, was %s", k, tr.Score.Outcome, before[k])
		}
	}
}
