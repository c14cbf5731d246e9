package mcpclient

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// TestStdioServerSeesOnlySafeEnv: a stdio server started with secrets in
// toolgrade's environment sees the safe list, the names its entry inherits
// and its own env, and nothing else: no token, no key.
func TestStdioServerSeesOnlySafeEnv(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp-SECRET")
	t.Setenv("OPENAI_API_KEY", "sk-SECRET")
	t.Setenv("TOOLGRADE_PASS_ONE", "one")
	t.Setenv("TOOLGRADE_PASS_TWO", "two")
	t.Setenv("TOOLGRADE_NAMED", "named")
	t.Setenv("HOME", "/home/someone")
	t.Setenv("EXPORTED_FUNC", "() { echo pwned; }")
	s := childServer(t, "child")
	s.InheritEnv = []string{"TOOLGRADE_PASS_*", "TOOLGRADE_NAMED", "EXPORTED_FUNC"}
	c := mustConnect(t, nil, s)
	ex := c.Call(context.Background(), "environ", nil, "")
	if ex.IsError {
		t.Fatalf("environ: %+v", ex)
	}
	got := map[string]string{}
	for _, kv := range strings.Split(ex.Result, "\n") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := childRunEnv()
	maps.Copy(want, map[string]string{
		childEnv: "1", "FAKE_K": "from-config", "HOME": "/home/someone",
		"TOOLGRADE_PASS_ONE": "one", "TOOLGRADE_PASS_TWO": "two", "TOOLGRADE_NAMED": "named",
	})
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && !slices.Contains(SafeEnv(), k) {
			t.Errorf("the server sees %s=%q, which is neither safe, inherited nor configured", k, got[k])
		}
	}
	if strings.Contains(ex.Result, "SECRET") || strings.Contains(ex.Result, "pwned") {
		t.Errorf("a secret or an exported function reached the server:\n%s", ex.Result)
	}
}

func TestServerEnvOrderAndOverride(t *testing.T) {
	s := serversfile.Server{Env: map[string]string{"PATH": "/mine", "B": "2"}, InheritEnv: []string{"A"}}
	got := serverEnv(s, []string{"PATH=/usr/bin", "A=1", "SECRET=x", "USER=me", "BAD", "=x"})
	want := []string{"A=1", "B=2", "PATH=/mine", "USER=me"}
	if !slices.Equal(got, want) {
		t.Errorf("serverEnv = %q, want %q", got, want)
	}
}
