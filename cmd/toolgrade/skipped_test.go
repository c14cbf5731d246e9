package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// TestSkippedServerInEveryReport: a server of the suite that fails to
// connect is skipped; the run goes on with the others, the cases that expect
// its tools are not run but recorded as infrastructure errors that say why
// (not as the model's mistakes), and every report names the server, why it
// was skipped and those cases: the terminal, report.md and the step summary,
// the HTML page's data, the JUnit properties, and run.json.
func TestSkippedServerInEveryReport(t *testing.T) {
	_, url := fakeOllama(t, nil)
	cfg := serversFile(t, "docs", "broken")
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.yaml")
	body := "name: skip\nservers: " + cfg + "\nmodels: [scripted-good]\ncases:\n" +
		"  - id: dog\n    ask: Can I bring my dog?\n    expect: {tool: search}\n" +
		"  - id: conf\n    ask: Read service.conf and report the database port.\n    expect: {tool: read_text_file}\n" +
		"  - id: conf-dotted\n    ask: Read service.conf and report the database port.\n    expect: {tool: broken.read_text_file}\n"
	if err := os.WriteFile(suitePath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	step := filepath.Join(dir, "step_summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", step)
	out, junit := filepath.Join(dir, "run"), filepath.Join(dir, "junit.xml")
	r := runCLI(t, context.Background(), "run", suitePath, "--out", out, "--ollama", url, "--junit", junit)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	const why = "no-such-server"
	line := "server broken failed to connect and was skipped ("
	cases := "the model was never offered its tools; 2 cases not run (infrastructure errors): conf, conf-dotted"
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, text := range map[string]string{
		"terminal": r.stdout, "report.md": read(filepath.Join(out, record.MarkdownFile)), "step summary": read(step),
		"report.html": read(filepath.Join(out, "report.html")), "junit.xml": read(junit),
	} {
		if !strings.Contains(text, line) || !strings.Contains(text, why) || !strings.Contains(text, cases) {
			t.Errorf("%s does not say which server was skipped, why and which cases it cost:\n%s", name, text)
		}
	}
	if !strings.Contains(read(junit), `<property name="server.broken.skipped"`) {
		t.Errorf("junit.xml has no property for the skipped server:\n%s", read(junit))
	}
	// Each such case fails for that reason, next to it, as an infrastructure error.
	for _, c := range []string{"conf #0: server_skipped: expects read_text_file, which no connected server offers: server \"broken\" failed to connect and was skipped (fork/exec ",
		"conf-dotted #0: server_skipped: expects broken.read_text_file,"} {
		if !strings.Contains(r.stdout, c) {
			t.Errorf("the terminal report lacks %q:\n%s", c, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "wrong_tool") || strings.Contains(r.stdout, "no_call") {
		t.Errorf("a skipped server's case counts as the model's mistake:\n%s", r.stdout)
	}
	// They were never tried, so the summary's warning does not say "after retries".
	if !strings.Contains(r.stdout, "2 trials not run: their cases expect a tool of a server that failed to connect") || strings.Contains(r.stdout, "after retries") {
		t.Errorf("the warnings do not say the trials were not run:\n%s", r.stdout)
	}
	var run record.Run
	if err := json.Unmarshal([]byte(read(filepath.Join(out, record.RunFile))), &run); err != nil {
		t.Fatal(err)
	}
	if len(run.SkippedServers) != 1 || run.SkippedServers[0].Name != "broken" || !strings.Contains(run.SkippedServers[0].Error, why) ||
		strings.Join(run.SkippedServers[0].Cases, ",") != "conf,conf-dotted" {
		t.Errorf("run.json's skipped servers: %+v", run.SkippedServers)
	}
}
