package main

import (
	"flag"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

var update = flag.Bool("update", false, "rewrite the expected files of testdata/script/*.txtar to what the commands printed")

// TestScripts runs the command scenarios in testdata/script: each .txtar
// archive is a script of commands, then the files it starts with and the
// output it expects, compared exactly (cmp stdout want.txt); go test
// -run TestScripts -update rewrites the expected files from what the
// commands printed. The scripts run `toolgrade` as a process: this test
// binary, which testscript.Main puts on PATH under that name (see
// TestMain), so a servers file starts `toolgrade fake-mcp docs` as a
// user's does.
//
// Each script starts with:
//
//	OLLAMA_HOST  a fake Ollama serving the demo script (fakes/ollama/demo.yaml)
//	CASES        the repository's cases/ (cases/docs.yaml, cases/servers/docs.json)
//	CLOSED       a loopback address nothing listens on
//	recorded/    a recorded run: the demo's two scripted models over the docs suite
//	base/, current/  the recorded pair of runs internal/compare's tests use
//
// and has, beside testscript's own commands:
//
//	ollama FILE           serve the fake Ollama script FILE and point OLLAMA_HOST at it
//	exits CODE PROG ARGS  run PROG as exec does; it must exit with CODE
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup:               setupScript,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"ollama": scriptOllama,
			"exits":  scriptExits,
		},
	})
}

// setupScript gives a script its fake Ollama, the cases and a recorded run.
func setupScript(env *testscript.Env) error {
	demo, err := fakeollama.DemoScript()
	if err != nil {
		return err
	}
	env.Setenv("OLLAMA_HOST", serveOllama(env.Defer, demo))
	cases, err := filepath.Abs("../../cases")
	if err != nil {
		return err
	}
	env.Setenv("CASES", cases)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	env.Setenv("CLOSED", ln.Addr().String())
	ln.Close()
	if err := copyRecordedRun(filepath.Join(env.WorkDir, "recorded")); err != nil {
		return err
	}
	for _, run := range []string{"base", "current"} {
		if err := copyRun(filepath.Join(compareRuns, run), filepath.Join(env.WorkDir, run)); err != nil {
			return err
		}
	}
	return nil
}

// serveOllama serves s on a loopback port until the script ends, and
// returns its host:port.
func serveOllama(deferFn func(func()), s *fakeollama.Script) string {
	srv := httptest.NewServer(fakeollama.New(s, &fakeollama.Options{Latency: -1}))
	deferFn(srv.Close)
	return srv.Listener.Addr().String()
}

// scriptOllama is the script command `ollama FILE`.
func scriptOllama(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ollama FILE")
	}
	s, err := fakeollama.LoadScript(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Setenv("OLLAMA_HOST", serveOllama(ts.Defer, s))
}

// scriptExits is the script command `exits CODE PROG ARGS...`: testscript's
// exec tells success from failure only, and toolgrade's exit codes are
// documented (docs/commands.md).
func scriptExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// asToolgrade is the `toolgrade` on PATH: main, in a process that exits at
// once (see raceQuickExit). A stdio server inherits only the safe list of
// variables, GORACE not among them, so a copy started by a servers file
// first executes itself again with it.
func asToolgrade() {
	if !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		// Where execve fails (Windows has none), main runs as it is,
		// only slower to exit.
		if exe, err := os.Executable(); err == nil {
			_ = syscall.Exec(exe, os.Args, append(os.Environ(), "GORACE="+raceQuickExit()))
		}
	}
	main()
}
