package main

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestVersionCommandAndFlagPrintTheBuild: version, --version and -version
// print the version run.json records, then what a bug report needs: Go,
// and the Ollama api and MCP go-sdk modules the build has; the README and
// the commands page say so.
func TestVersionCommandAndFlagPrintTheBuild(t *testing.T) {
	t.Parallel()
	if version() == "" {
		t.Fatal("empty version")
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		r := runCLI(t, context.Background(), args...)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.err != nil || len(lines) != 4 || lines[0] != "toolgrade "+version() ||
			lines[1] != "  go          "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH ||
			!strings.HasPrefix(lines[2], "  ollama api  github.com/ollama/ollama v") ||
			!strings.HasPrefix(lines[3], "  mcp sdk     github.com/modelcontextprotocol/go-sdk v") {
			t.Errorf("%v: err %v, stdout:\n%s", args, r.err, r.stdout)
		}
	}
	if r := runCLI(t, context.Background(), "version", "extra"); r.code != exitUsage {
		t.Errorf("version extra: code %d", r.code)
	}
	for _, doc := range []string{"README.md", commandsDoc} {
		b, err := os.ReadFile("../../" + doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"toolgrade version", "ollama api", "mcp sdk"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s does not say what `toolgrade version` prints: it lacks %q", doc, want)
			}
		}
	}
}

func TestVersionHonoursLdflags(t *testing.T) {
	t.Parallel()
	old := harnessVersion
	t.Cleanup(func() { harnessVersion = old })
	// What -ldflags "-X main.harnessVersion=v3.1.4" does before main runs.
	harnessVersion = "v3.1.4"
	if r := runCLI(t, context.Background(), "--version"); !strings.HasPrefix(r.stdout, "toolgrade v3.1.4\n") {
		t.Errorf("stdout %q", r.stdout)
	}
}
