package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/mcpclient/refservers"
)

// mainEnv makes the test binary behave as the toolgrade binary, so servers
// files can start `toolgrade fake-mcp docs` over real stdio.
const mainEnv = "TOOLGRADE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(hostileEnv) == "1" {
		serveHostileMCP()
		return
	}
	if os.Getenv(mainEnv) == "1" {
		main()
		return
	}
	// Tests run in CI too: no run of theirs may append to the job's own
	// step summary. The tests of it set their own with t.Setenv.
	os.Unsetenv("GITHUB_STEP_SUMMARY")
	// testscript.Main puts a copy of this binary on PATH as `toolgrade`
	// (asToolgrade when it runs), for TestScripts and for every servers
	// file that starts `toolgrade fake-mcp NAME` as a user's does.
	testscript.Main(m, map[string]func(){"toolgrade": asToolgrade})
}

// raceQuickExit is GORACE's option for a re-run of this test binary (a
// server started by a servers file, a child command): a binary built with
// -race sleeps a second before it exits (atexit_sleep_ms, so that other
// goroutines' race reports get out), and every server a test closes waits
// for its exit. Races a child finds are still reported as they happen.
func raceQuickExit() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// selfEnv is the "env" of a servers file entry that runs this test binary
// with the variable name set to 1 (mainEnv: as toolgrade), and under go test
// -cover the GOCOVERDIR its counters go to (a stdio server inherits only
// the safe list of variables).
func selfEnv(name string) map[string]string {
	env := map[string]string{name: "1", "GORACE": raceQuickExit()}
	if d := os.Getenv("GOCOVERDIR"); d != "" {
		env["GOCOVERDIR"] = d
	}
	return env
}

// result is what one in-process run of the CLI did.
type result struct {
	stdout, stderr string
	err            error
	code           int
}

func runCLI(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(ctx, args, strings.NewReader(""), &out, &errb)
	return result{out.String(), errb.String(), err, exitCode(err, ctx.Err() != nil)}
}

// fakeOllama serves the demo script on a loopback port.
func fakeOllama(t *testing.T, s *fakeollama.Script) (*fakeollama.Server, string) {
	t.Helper()
	srv, base := rig.Ollama(t, s, nil)
	return srv, base.String()
}

// serversFile writes an mcpServers file; "docs" and "faulty" run this test
// binary as `toolgrade fake-mcp NAME`, "fs" the real filesystem server over
// a folder holding service.conf.
func serversFile(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]any{}
	for _, n := range names {
		switch n {
		case "docs", "faulty":
			entries[n] = map[string]any{"command": self, "args": []string{"fake-mcp", n}, "env": selfEnv(mainEnv)}
		case "fs":
			files := filepath.Join(dir, "files")
			os.MkdirAll(files, 0o755)
			os.WriteFile(filepath.Join(files, "service.conf"), []byte("db_host=10.0.0.5\ndb_port=5432\n"), 0o644)
			entries[n] = map[string]any{"command": "node", "args": []string{filesystemServer(t), files}}
		case "broken":
			entries[n] = map[string]any{"command": filepath.Join(dir, "no-such-server")}
		default:
			t.Fatalf("no server %q", n)
		}
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": entries}, "", "  ")
	p := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// filesystemServer is the pinned @modelcontextprotocol/server-filesystem.
func filesystemServer(t *testing.T) string {
	t.Helper()
	return refservers.Script(t, "../..", refservers.Filesystem)
}

func TestAskReadsServiceConfThroughTheRealFilesystemServer(t *testing.T) {
	t.Parallel()
	_, url := fakeOllama(t, nil)
	r := runCLI(t, context.Background(), "ask", "--servers", serversFile(t, "fs"), "--model", "scripted-good", "--ollama", url, "--json",
		"Read service.conf in the allowed directory and report the database port.")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	var tr struct {
		Answer string
		Rounds []struct {
			Executions []struct {
				Server, Tool, Result string
				IsError              bool `json:"is_error"`
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.stdout)
	}
	ex := tr.Rounds[0].Executions
	if len(ex) != 1 || ex[0].Server != "fs" || ex[0].Tool != "read_text_file" || ex[0].IsError || !strings.Contains(ex[0].Result, "db_port=5432") {
		t.Fatalf("execution %+v", ex)
	}
	if !strings.Contains(tr.Answer, "5432") {
		t.Errorf("answer %q", tr.Answer)
	}
}

func TestAskCancelledMidRoundLeavesNoProcesses(t *testing.T) {
	hour := time.Hour
	_, url := fakeOllama(t, &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "scripted-good"}},
		Rules:  []fakeollama.Rule{{Latency: &hour, Reply: fakeollama.Reply{Content: "late"}}},
	})
	cfg := serversFile(t, "docs", "fs")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result)
	go func() {
		done <- runCLI(t, ctx, "ask", "--servers", cfg, "--model", "scripted-good", "--ollama", url, "Hi.")
	}()
	// Wait until the servers are up (children exist), then cancel mid-round.
	deadline := time.Now().Add(20 * time.Second)
	for len(children(t)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(children(t)) < 2 {
		t.Fatalf("servers did not start: children %v", children(t))
	}
	time.Sleep(200 * time.Millisecond)
	cancel()
	r := <-done
	if r.err == nil {
		t.Fatal("no error after cancellation")
	}
	deadline = time.Now().Add(10 * time.Second)
	for len(children(t)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if c := children(t); len(c) > 0 {
		t.Errorf("child processes left: %v", c)
	}
}

// children lists the live child processes of this test process (Linux).
func children(t *testing.T) []int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	me := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so cut after ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(me) {
			out = append(out, pid)
		}
	}
	return out
}

func TestToolsListsTheCatalog(t *testing.T) {
	t.Parallel()
	cfg := serversFile(t, "docs", "fs")
	r := runCLI(t, context.Background(), "tools", "--servers", cfg)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	for _, w := range []string{"search", "get_document", "read_text_file", "query*: string", "bytes of tool JSON", "tokens",
		"warning: search: properties.query.minLength, properties.top_k.default", "dropped by Ollama's tool format"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("tools output lacks %q:\n%s", w, r.stdout)
		}
	}
	first := runCLI(t, context.Background(), "tools", "--servers", cfg, "--json")
	for range 3 {
		again := runCLI(t, context.Background(), "tools", "--servers", cfg, "--json")
		if again.stdout != first.stdout || first.stdout == "" {
			t.Fatalf("tool JSON differs between runs:\n%s\n%s", first.stdout, again.stdout)
		}
	}
}
