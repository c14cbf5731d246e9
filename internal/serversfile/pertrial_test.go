package serversfile

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

func TestPerTrialErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`{"mcpServers": {"fs": {"command": "x", "perTrial": true, "args": ["${trialdir}"]}}}`,
			`servers.json:1:67: mcpServers.fs.args[0]: unknown placeholder ${trialdir} (did you mean ${trialDir}?)`},
		{`{"mcpServers": {"fs": {"command": "x", "perTrial": true, "env": {"ROOT": "${trial_dir}/a"}}}}`,
			`servers.json:1:74: mcpServers.fs.env.ROOT: unknown placeholder ${trial_dir} (did you mean ${trialDir}?)`},
		{`{"mcpServers": {"fs": {"command": "x", "perTrial": true, "cwd": "${home}"}}}`,
			`servers.json:1:65: mcpServers.fs.cwd: unknown placeholder ${home}: the placeholders are ${trialDir} (a per-trial server's directory) and ${env:NAME}`},
		{`{"mcpServers": {"fs": {"command": "x", "args": ["${trialDir}"]}}}`,
			`servers.json:1:40: mcpServers.fs.args: uses ${trialDir}, which only a per-trial server has: add "perTrial": true`},
		{`{"mcpServers": {"fs": {"command": "x", "trialTemplate": "tmpl"}}}`,
			`servers.json:1:40: mcpServers.fs.trialTemplate: only applies with "perTrial": true`},
		{`{"mcpServers": {"fs": {"command": "x", "perTrial": true, "trialTemplate": "nowhere"}}}`,
			`servers.json:1:58: mcpServers.fs.trialTemplate: ` + filepath.Join(mustAbs(t, "testdata"), "nowhere") + ` is not a folder: give the folder copied into each trial directory, relative to this file`},
		{`{"mcpServers": {"fs": {"command": "x", "perTrial": "yes"}}}`,
			`servers.json:1:52: mcpServers.fs.perTrial: must be true or false, not the string "yes"`},
		{`{"mcpServers": {"r": {"url": "http://127.0.0.1:1/mcp", "perTrial": true}}}`,
			`servers.json:1:56: mcpServers.r.perTrial: only applies to stdio servers ("command")`},
	} {
		_, err := Parse(context.Background(), []byte(c.src), "testdata/servers.json")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if want := "testdata/" + c.want; got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, want)
		}
	}
}

func TestPerTrialServer(t *testing.T) {
	src := `{"mcpServers": {"fs": {"command": "x", "perTrial": true, "trialTemplate": "tmpl",
	  "args": ["serve", "${trialDir}", "${trialDir}/notes"], "env": {"ROOT": "${trialDir}"}}}}`
	cfg, err := Parse(context.Background(), []byte(src), "testdata/servers.json")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers[0]
	if !s.PerTrial || s.TrialTemplate != filepath.Join(mustAbs(t, "testdata"), "tmpl") || s.Cwd != TrialDirPlaceholder {
		t.Errorf("server %+v", s)
	}
	run := s.ForTrial("/tmp/t1")
	if !slices.Equal(run.Args, []string{"serve", "/tmp/t1", "/tmp/t1/notes"}) || run.Env["ROOT"] != "/tmp/t1" || run.Cwd != "/tmp/t1" {
		t.Errorf("for a trial: %+v", run)
	}
	if s.Args[1] != TrialDirPlaceholder {
		t.Errorf("ForTrial changed the server itself: %q", s.Args)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
