package srcpos_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/internal/serversfile"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// TestSameTypoEveryFormat: a typo of a key gets the same suggestion, in the
// same file:line:col form, from the servers file (JSON and YAML), the suite
// and the fake Ollama's script.
func TestSameTypoEveryFormat(t *testing.T) {
	parse := map[string]func(src, file string) error{
		"servers": func(src, file string) error {
			_, err := serversfile.Parse(context.Background(), []byte(src), file)
			return err
		},
		"suite":  func(src, file string) error { _, err := suite.Parse([]byte(src), file); return err },
		"script": func(src, file string) error { _, err := fakeollama.ParseScript([]byte(src), file); return err },
	}
	const suiteHead = "servers: s.json\ncases:\n  - id: a\n    ask: hi\n"
	for _, tt := range []struct {
		reader, file, src string
		pos, want         string
	}{
		{"servers", "s.json", `{"mcpServers": {"d": {"command": "x", "agrs": []}}}`, "s.json:1:39", "args"},
		{"servers", "s.yaml", "mcpServers:\n  d: {command: x, agrs: []}\n", "s.yaml:2:19", "args"},
		{"suite", "s.yaml", suiteHead + "    expect: {tool: t, agrs: {}}\n", "s.yaml:5:23", "args"},

		{"servers", "s.json", `{"mcpServers": {"d": {"command": "x", "evn": {}}}}`, "s.json:1:39", "env"},
		{"servers", "s.yaml", "mcpServers:\n  d: {command: x, evn: {}}\n", "s.yaml:2:19", "env"},

		{"suite", "s.yaml", suiteHead + "    expect: {no_tool: true, answer: {contians: x}}\n", "s.yaml:5:38", "contains"},
		{"script", "s.yaml", "models: [{name: m}]\nrules:\n  - user: {contians: x}\n", "s.yaml:3:12", "contains"},

		{"suite", "s.yaml", "nmae: x\n" + suiteHead + "    expect: {no_tool: true}\n", "s.yaml:1:1", "name"},
		{"script", "s.yaml", "models:\n  - nmae: m\n", "s.yaml:2:5", "name"},
	} {
		err := parse[tt.reader](tt.src, tt.file)
		if err == nil {
			t.Errorf("%s %q: no error", tt.reader, tt.src)
			continue
		}
		msg := err.Error()
		re := regexp.MustCompile(`^` + regexp.QuoteMeta(tt.pos) + `(: [^ ]+)?: unknown (field|key) "[a-z]+" \(did you mean "` + tt.want + `"\?\)`)
		if !re.MatchString(strings.Split(msg, "\n")[0]) {
			t.Errorf("%s %s: %s\nwant %s: ... (did you mean %q?)", tt.reader, tt.file, msg, tt.pos, tt.want)
		}
	}
}

// TestSameSyntaxErrorEveryFormat: a YAML mistake is located at its
// character, with its line and a caret, by every reader of YAML: the servers
// file, the suite and the fake Ollama's script.
func TestSameSyntaxErrorEveryFormat(t *testing.T) {
	for _, tt := range []struct{ reader, src string }{
		{"servers", "mcpServers:\n  d:\n    command: x\n\targs: []\n"},
		{"suite", "cases:\n  - id: a\n    ask: x\n\texpect: {no_tool: true}\n"},
		{"script", "models:\n  - name: m\n    capabilities: x\n\tdigest: y\n"},
	} {
		var err error
		switch tt.reader {
		case "servers":
			_, err = serversfile.Parse(context.Background(), []byte(tt.src), "f.yaml")
		case "suite":
			_, err = suite.Parse([]byte(tt.src), "f.yaml")
		case "script":
			_, err = fakeollama.ParseScript([]byte(tt.src), "f.yaml")
		}
		tab := strings.Split(tt.src, "\n")[3]
		want := "f.yaml:4:1: YAML: found a tab character that violates indentation; YAML indents with spaces, not tabs\n" +
			"    4 | " + tab + "\n" +
			"      | ^"
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", tt.reader, err, want)
		}
	}
}
