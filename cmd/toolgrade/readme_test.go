package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeMaxLines is where the README stops being a front door: the
// reference belongs on the pages under docs/.
const readmeMaxLines = 250

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeSection is the text under a "## " heading of the README, up to the
// next one.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	text := readme(t)
	_, after, ok := strings.Cut(text, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", "## "+heading)
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section
}

// glossaryWords are the words the reports use that the README's glossary
// must explain.
var glossaryWords = []string{
	"case", "trial", "repeat", "bridge loop", "round", "round limit", "catalog", "toolbox",
	"variant", "decoy", "sweep", "schema hint", "hidden constraint", "outcome", "tool selection",
	"argument validity", "argument accuracy", "irrelevance", "pass", "pass@k and pass^k",
	"Wilson interval", "McNemar test", "SPRT, stop early", "infra error", "truncated prompt",
	"trial key", "shard", "gate", "baseline", "regression", "unit of evidence", "failed call", "copy", "schedule",
	"simulated user",
}

// TestReadmeIsAFrontDoor: the README stays short, shows the two set-up
// commands, explains the words of the reports, and links every page under
// docs/, where the reference lives.
func TestReadmeIsAFrontDoor(t *testing.T) {
	t.Parallel()
	text := readme(t)
	if n := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1; n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move reference text to a page under docs/", n, readmeMaxLines)
	}
	for _, cmd := range []string{"make demo", "make test"} {
		if !strings.Contains(text, cmd) {
			t.Errorf("README.md does not show %q", cmd)
		}
	}
	var words []string
	for _, l := range strings.Split(readmeSection(t, "Glossary"), "\n") {
		if cells := splitRow(l); strings.HasPrefix(l, "|") && len(cells) == 2 && cells[1] != "" {
			words = append(words, cells[0])
		}
	}
	for _, w := range glossaryWords {
		if !slices.Contains(words, w) {
			t.Errorf("README.md: the glossary has no row for %q", w)
		}
	}
	for _, page := range docPages(t) {
		if page != "README.md" && !strings.Contains(text, "]("+page) {
			t.Errorf("README.md does not link %s", page)
		}
	}
}

// firstSuite is what the README's five-minute section shows: the files it
// asks the reader to save and the commands it asks them to run.
type firstSuite struct {
	files    map[string]string // name → content
	commands []string          // shell lines, in order, comments cut
	tables   []string          // the text blocks: output shown
}

var savedAs = regexp.MustCompile("`([A-Za-z0-9._-]+\\.(?:json|yaml))`:$")

// readFirstSuite reads the section's fenced blocks: a json or yaml block
// is a file, named by the line before it ("... as `first.yaml`:"); a sh
// block holds commands; a text block is output.
func readFirstSuite(t *testing.T, section string) firstSuite {
	t.Helper()
	fs := firstSuite{files: map[string]string{}}
	lines := strings.Split(section, "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		body := strings.Join(lines[i+1:end], "\n") + "\n"
		switch lang {
		case "json", "yaml":
			prev := ""
			for j := i - 1; j >= 0 && prev == ""; j-- {
				prev = strings.TrimSpace(lines[j])
			}
			m := savedAs.FindStringSubmatch(prev)
			if m == nil {
				t.Fatalf("README.md: the %s block after %q does not say which file it is (\"... as `NAME`:\")", lang, prev)
			}
			fs.files[m[1]] = body
		case "sh":
			for _, l := range lines[i+1 : end] {
				if c, _, _ := strings.Cut(l, " #"); strings.TrimSpace(c) != "" {
					fs.commands = append(fs.commands, strings.TrimSpace(c))
				}
			}
		case "text":
			fs.tables = append(fs.tables, body)
		}
		i = end
	}
	return fs
}

// TestReadmeFirstSuiteRuns runs "Your first suite in five minutes" as a
// reader would, against the fake Ollama the section starts: it saves the
// files shown, runs every toolgrade command shown but the fake itself (a
// --gate line must fail as scripted-weak does, exit 4), finds the files
// the section opens, and checks the table pasted there against the real
// one, but for the timings.
func TestReadmeFirstSuiteRuns(t *testing.T) {
	fs := readFirstSuite(t, readmeSection(t, "Your first suite in five minutes"))
	_, url := fakeOllama(t, nil)
	t.Setenv("OLLAMA_HOST", url)
	dir := t.TempDir()
	for name, body := range fs.files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The servers file starts `toolgrade fake-mcp docs`: this test binary
	// plays toolgrade, found on PATH as the reader's build is.
	toolgradeOnPath(t)
	t.Chdir(dir)

	var ran []string
	var runOut string
	for _, l := range fs.commands {
		if opened, ok := strings.CutPrefix(l, "open "); ok {
			if _, err := os.Stat(strings.TrimSpace(opened)); err != nil {
				t.Errorf("README.md opens %s, which the commands before did not write: %v", opened, err)
			}
			continue
		}
		if !strings.HasPrefix(l, "toolgrade ") || strings.HasPrefix(l, "toolgrade fake-ollama") {
			continue
		}
		args := shellFields(t, l, nil)
		r := runCLI(t, context.Background(), args[1:]...)
		ran = append(ran, args[1])
		switch {
		case slices.Contains(args, "--gate"):
			if r.code != exitGate {
				t.Errorf("%s: exit %d (%v), want the gate's 4\n%s", l, r.code, r.err, r.stderr)
			}
		case r.err != nil:
			t.Fatalf("%s: %v\n%s", l, r.err, r.stderr)
		}
		if args[1] == "run" {
			runOut = r.stdout
		}
	}
	for _, want := range []string{"tools", "run", "show", "report", "init"} {
		if !slices.Contains(ran, want) {
			t.Errorf("README.md's first suite no longer runs toolgrade %s (ran %v)", want, ran)
		}
	}
	if len(fs.tables) == 0 {
		t.Fatal("README.md's first suite shows no output")
	}
	checkPastedTable(t, fs.tables[0], runOut)
}

// checkPastedTable compares the model rows of the table pasted in the
// README with those run printed, up to the timing columns (p50, p95,
// tok/s), which vary from run to run.
func checkPastedTable(t *testing.T, pasted, real string) {
	t.Helper()
	rows := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			cells := strings.Split(l, "│")
			if len(cells) > 9 && strings.HasPrefix(strings.TrimSpace(cells[1]), "scripted-") {
				out = append(out, strings.Join(cells[:9], "│"))
			}
		}
		return out
	}
	want, got := rows(real), rows(pasted)
	if len(want) == 0 {
		t.Fatalf("run printed no model rows:\n%s", real)
	}
	if !slices.Equal(got, want) {
		t.Errorf("README.md's first-suite table is not what run prints now; paste the new one:\n%s", real)
	}
}
