package main

import (
	"context"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

// TestAMisspelledFlagIsOneLine: a flag a command does not have is one line
// naming the flag, the one it is likely a misspelling of, and where the
// flags are listed; not the flag package's message and every flag.
func TestAMisspelledFlagIsOneLine(t *testing.T) {
	t.Parallel()
	r := runCLI(t, context.Background(), "run", "suite.yaml", "--repat", "3")
	want := "run: unknown flag --repat: did you mean --repeat? (toolgrade run -h lists every flag)"
	if r.code != exitUsage || r.err == nil || r.err.Error() != want {
		t.Errorf("code %d, err %v\nwant %s", r.code, r.err, want)
	}
	if r.stderr != "" {
		t.Errorf("stderr, want nothing beside the error:\n%s", r.stderr)
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"show", "runs/x", "--outcom", "fail"}},
		{[]string{"ask", "--modle", "m", "q"}},
		{[]string{"report", "runs/x", "--formta", "html"}},
	} {
		r := runCLI(t, context.Background(), tc.args...)
		if r.code != exitUsage || r.err == nil || !strings.Contains(r.err.Error(), "did you mean --") || r.stderr != "" {
			t.Errorf("%v: code %d, err %v, stderr %q", tc.args, r.code, r.err, r.stderr)
		}
	}
}

// TestEveryCommandSaysWhereItsFlagsAre: the same line for every command,
// and a guess only when one is near.
func TestEveryCommandSaysWhereItsFlagsAre(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		args := []string{c.name, "--zzzzzz"}
		name := c.name
		switch c.name {
		case "cases":
			args, name = []string{"cases", "from", "--zzzzzz"}, "cases from"
		case "import":
			name = "import bfcl"
		}
		r := runCLI(t, context.Background(), args...)
		want := name + ": unknown flag --zzzzzz (toolgrade " + name + " -h lists every flag)"
		if r.code != exitUsage || r.err == nil || r.err.Error() != want || r.stderr != "" {
			t.Errorf("%s: code %d, err %v, stderr %q\nwant %s", c.name, r.code, r.err, r.stderr, want)
		}
	}
}

// TestFlagValueMistakes: a value that does not read says what the flag
// takes, and a gate that does not parse says what a gate is, with an
// example.
func TestFlagValueMistakes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"report", "runs/x", "--gate", "pass=>0.9"}, []string{
			`report: --gate "pass=>0.9": "=>" is not a comparison: did you mean ">="?`,
			"[MODEL[@VARIANT]:]METRIC[@POINT] OP VALUE", "pass>=0.9"}},
		{[]string{"run", "s.yaml", "--repeat", "three"}, []string{`run: --repeat "three": want a whole number`}},
		{[]string{"run", "s.yaml", "--tool-timeout", "5"}, []string{`run: --tool-timeout "5": want a duration with its unit, such as 500ms, 30s`}},
		{[]string{"run", "s.yaml", "--out"}, []string{"run: --out needs a value: --out DIR (toolgrade run -h lists every flag)"}},
		{[]string{"run", "s.yaml", "--stop-early=yes"}, []string{"run: --stop-early=yes: give true or false"}},
	} {
		r := runCLI(t, context.Background(), tc.args...)
		if r.code != exitUsage || r.err == nil || r.stderr != "" || strings.Contains(r.err.Error(), "\n") {
			t.Errorf("%v: code %d, err %v, stderr %q", tc.args, r.code, r.err, r.stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.err.Error(), w) {
				t.Errorf("%v: %q lacks %q", tc.args, r.err, w)
			}
		}
	}
}

// TestHelpOfACommandWithoutFlags: no command's -h shows an empty Flags:
// section or a [flags] it has not, and fake-mcp's says what each fake
// server serves, its tools one line a server.
func TestHelpOfACommandWithoutFlags(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		r := runCLI(t, context.Background(), c.name, "-h")
		if r.code != exitOK || strings.Contains(r.stderr, "Flags:\n\n") || strings.HasSuffix(r.stderr, "Flags:\n") || strings.Contains(r.stderr, " \n") {
			t.Errorf("%s -h: code %d\n%s", c.name, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, c.summary) {
			t.Errorf("%s -h does not say what it does (%q):\n%s", c.name, c.summary, r.stderr)
		}
	}
	r := runCLI(t, context.Background(), "fake-mcp", "-h")
	for _, want := range []string{
		"Usage: toolgrade fake-mcp NAME\n",
		"\n  docs    ", "search, list_documents, get_document\n",
		"\n  faulty  ", "fail, hang, huge, crash (exits 3), slow, echo\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("fake-mcp -h lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestFakeMCPNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fake-mcp"}, "fake-mcp: give one server name: docs or faulty"},
		{[]string{"fake-mcp", "doc"}, `fake-mcp: unknown server "doc" (did you mean "docs"?)`},
	} {
		if r := runCLI(t, context.Background(), tc.args...); r.code != exitUsage || r.err == nil || r.err.Error() != tc.want {
			t.Errorf("%v: code %d, %v\nwant %s", tc.args, r.code, r.err, tc.want)
		}
	}
}

// TestAskShowsAToolErrorWholeWithJSONValues: ask prints a call's error
// whole (it was cut at 120 bytes, "w..."), and the values in it as JSON:
// the string "3" as "3", not 3.
func TestAskShowsAToolErrorWholeWithJSONValues(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "m"}},
		Rules: []fakeollama.Rule{
			{Round: 1, Reply: fakeollama.Reply{ToolCalls: []fakeollama.ToolCall{
				{Name: "search", Arguments: fakeollama.Args{{Key: "query", Value: "dog"}, {Key: "top_k", Value: "3"}}},
			}}},
			{Reply: fakeollama.Reply{Content: "Dogs are welcome."}},
		},
	})
	r := runCLI(t, context.Background(), "ask", "--servers", serversFile(t, "docs"), "--model", "m", "--ollama", url, "Can I bring my dog?")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	want := `-> search({"query":"dog","top_k":"3"})  [invalid_args: invalid arguments for tool search: validating root: validating /properties/top_k: type: "3" has type "string", want "integer"]` + "\nDogs are welcome.\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
}
