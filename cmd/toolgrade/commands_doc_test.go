package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// commandsDoc is the page that documents every command and every flag; the
// README links to it.
const commandsDoc = "docs/commands.md"

// docRow is one row of the flags table of docs/commands.md.
type docRow struct {
	line     int
	flag     string // as written: --servers or -o
	commands []string
}

// docFlags reads the table under "### Flags" in docs/commands.md:
// | flag | commands | what it does |. It returns the rows by flag name and
// the page's "## Commands" section, whose table shows every command.
func docFlags(t *testing.T) (map[string]docRow, string) {
	t.Helper()
	b, err := os.ReadFile("../../" + commandsDoc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start := slices.Index(lines, "### Flags")
	if start < 0 {
		t.Fatalf(`%s has no "### Flags" section`, commandsDoc)
	}
	cmds := slices.Index(lines, "## Commands")
	if cmds < 0 || cmds > start {
		t.Fatalf(`%s has no "## Commands" section before its flags`, commandsDoc)
	}
	text := strings.Join(lines[cmds:start], "\n")
	flagCell := regexp.MustCompile("^`(--?[a-z][a-z0-9-]*)")
	rows := map[string]docRow{}
	inTable := false
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := splitRow(l)
		if len(cells) != 3 {
			t.Fatalf("%s:%d: a flags row has %d cells, want 3 (| flag | commands | what it does |)", commandsDoc, i+1, len(cells))
		}
		if cells[0] == "flag" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		m := flagCell.FindStringSubmatch(cells[0])
		if m == nil {
			t.Fatalf("%s:%d: %q does not start with a flag in backquotes", commandsDoc, i+1, cells[0])
		}
		if prev, dup := rows[flagName(m[1])]; dup {
			t.Errorf("%s:%d: %s is documented again (first at line %d)", commandsDoc, i+1, m[1], prev.line)
		}
		r := docRow{line: i + 1, flag: m[1]}
		for _, c := range strings.Split(cells[1], ",") {
			r.commands = append(r.commands, strings.Trim(strings.TrimSpace(c), "`"))
		}
		rows[flagName(m[1])] = r
	}
	if len(rows) == 0 {
		t.Fatalf(`%s: the "### Flags" section has no table`, commandsDoc)
	}
	return rows, text
}

// splitRow splits a Markdown table row into its trimmed cells; `\|` is a
// pipe inside a cell.
func splitRow(l string) []string {
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func flagName(written string) string { return strings.TrimLeft(written, "-") }

// realFlag is one flag as a command's -h lists it.
type realFlag struct {
	name, arg, usage string
}

// commandFlags runs `toolgrade NAME -h` in-process and reads the flags its
// usage lists.
func commandFlags(t *testing.T, name string) []realFlag {
	t.Helper()
	r := runCLI(t, context.Background(), name, "-h")
	if r.code != exitOK || !strings.Contains(r.stderr, "Usage: toolgrade "+name) {
		t.Fatalf("%s -h: code %d, err %v\n%s", name, r.code, r.err, r.stderr)
	}
	var out []realFlag
	for _, l := range strings.Split(r.stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "  -"):
			f := strings.Fields(l)
			rf := realFlag{name: strings.TrimPrefix(f[0], "-")}
			if len(f) > 1 {
				rf.arg = f[1]
			}
			out = append(out, rf)
		case strings.HasPrefix(l, "    \t") && len(out) > 0:
			out[len(out)-1].usage = strings.TrimSpace(l)
		}
	}
	return out
}

// TestDocsDocumentEveryFlag keeps the commands page and the real commands
// in step: its command table shows every command, every flag of every
// command is in its flags table with that command, and the table lists no
// flag a command does not have.
func TestDocsDocumentEveryFlag(t *testing.T) {
	t.Parallel()
	rows, cmdTable := docFlags(t)
	names := map[string]bool{}
	missing := map[string][]string{} // undocumented flag → the commands that have it
	usage := map[string]realFlag{}
	for _, c := range commands() {
		names[c.name] = true
		if !strings.Contains(cmdTable, "`toolgrade "+c.name) {
			t.Errorf("%s: the command table does not show `toolgrade %s`: add a row for it under ## Commands", commandsDoc, c.name)
		}
		have := map[string]bool{}
		for _, f := range commandFlags(t, c.name) {
			have[f.name] = true
			row, ok := rows[f.name]
			switch {
			case !ok:
				missing[f.name] = append(missing[f.name], c.name)
				usage[f.name] = f
			case !slices.Contains(row.commands, c.name):
				t.Errorf("%s:%d: %s has %s, but the row of %s does not list it: add %s to that row's commands",
					commandsDoc, row.line, c.name, dashed(f.name), row.flag, c.name)
			}
		}
		for name, row := range rows {
			if slices.Contains(row.commands, c.name) && !have[name] {
				t.Errorf("%s:%d: the row of %s lists %s, which has no such flag: take %s out of that row, or give %s the flag",
					commandsDoc, row.line, row.flag, c.name, c.name, c.name)
			}
		}
	}
	for _, row := range rows {
		for _, c := range row.commands {
			if !names[c] {
				t.Errorf("%s:%d: the row of %s names %q, which is not a command", commandsDoc, row.line, row.flag, c)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		f := usage[name]
		flag := dashed(name)
		if f.arg != "" {
			flag += " " + f.arg
		}
		t.Errorf("%s: %s (of %s) is not documented: add this row to the table under ### Flags:\n| `%s` | %s | %s |",
			commandsDoc, dashed(name), strings.Join(missing[name], ", "), flag, strings.Join(missing[name], ", "), f.usage)
	}
}

func TestSplitRow(t *testing.T) {
	t.Parallel()
	got := fmt.Sprint(splitRow("| `--think true\\|false` | ask, run | Ollama's `think` |"))
	if want := "[`--think true|false` ask, run Ollama's `think`]"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}
