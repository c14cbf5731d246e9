package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docPages are the Markdown pages of the repository, relative to its root:
// README.md and every page under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		out = append(out, filepath.ToSlash(strings.TrimPrefix(p, "../../")))
	}
	return out
}

// mdLine is one line of a Markdown page outside its fenced code blocks.
type mdLine struct {
	n    int // 1-based
	text string
}

// proseLines are the lines of a page that are not inside a fenced code
// block, where a heading or a link means what it says.
func proseLines(text string) []mdLine {
	var out []mdLine
	fenced := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, mdLine{i + 1, l})
		}
	}
	return out
}

var headingLine = regexp.MustCompile(`^#{1,6} +(.+?) *#*$`)

// headingAnchors are the anchors GitHub gives a page's headings: lower case,
// spaces as hyphens, punctuation (backquotes included) dropped, and a
// repeated heading numbered -1, -2, ...
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		m := headingLine.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '_', r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

var (
	inlineCode = regexp.MustCompile("`[^`]*`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// TestDocLinksResolve: every relative link of README.md and of the pages
// under docs/ reaches a file of the repository, and a link with #anchor a
// heading of the page it names, so moving a section cannot leave a link
// behind.
func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	anchors := map[string]map[string]bool{} // page → its heading anchors
	read := func(page string) (string, error) {
		b, err := os.ReadFile(filepath.Join("../..", page))
		return string(b), err
	}
	links := 0
	for _, page := range docPages(t) {
		text, err := read(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range proseLines(text) {
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(l.text, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
				}
				if strings.HasPrefix(dest, "../") {
					t.Errorf("%s:%d: %s leaves the repository", page, l.n, target)
					continue
				}
				destText, err := read(dest)
				if err != nil && !isDir(filepath.Join("../..", dest)) {
					t.Errorf("%s:%d: %s: no such file %s", page, l.n, target, dest)
					continue
				}
				if anchor == "" {
					continue
				}
				if anchors[dest] == nil {
					anchors[dest] = headingAnchors(destText)
				}
				if !anchors[dest][anchor] {
					t.Errorf("%s:%d: %s: %s has no heading with the anchor #%s", page, l.n, target, dest, anchor)
				}
			}
		}
	}
	if links == 0 {
		t.Fatal("no relative link found in README.md or docs/: the link reader is broken")
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]string{
		"Testing an MCP server with `go test`":   "testing-an-mcp-server-with-go-test",
		"Tool-count sweeps and option variants":  "tool-count-sweeps-and-option-variants",
		"One question, one bridge loop":          "one-question-one-bridge-loop",
		"pass@k and pass^k":                      "passk-and-passk",
		"Serving the tools to any Ollama client": "serving-the-tools-to-any-ollama-client",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
	got := headingAnchors("# A\n```\n# not a heading\n```\n## A\n### B #\n")
	if want := map[string]bool{"a": true, "a-1": true, "b": true}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("anchors %v, want %v", got, want)
	}
}
