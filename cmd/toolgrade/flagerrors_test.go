package main

import (
	"context"
	"strings"
	"testing"
)

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
		"Usage: toolgrade fake-mcp [flags] NAME\n",
		"\n  docs    ", "search, list_documents, get_document\n",
		"\n  faulty  ", "fail, hang, huge, crash (exits 3), slow, echo\n",
		"\n  notes   ", "add_note, list_notes, read_note, delete_note\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("fake-mcp -h lacks %q:\n%s", want, r.stderr)
		}
	}
}
