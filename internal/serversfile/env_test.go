package serversfile

import (
	"context"
	"slices"
	"testing"
)

func TestInheritEnvErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`{"mcpServers": {"d": {"command": "x", "inheritEnv": "GITHUB_TOKEN"}}}`,
			`servers.json:1:53: mcpServers.d.inheritEnv: must be a list of strings, not the string "GITHUB_TOKEN"`},
		{`{"mcpServers": {"d": {"command": "x", "inheritEnv": ["OK", "NOT-A-NAME"]}}}`,
			`servers.json:1:60: mcpServers.d.inheritEnv: "NOT-A-NAME" is not a variable name: give names such as "GITHUB_TOKEN", or a prefix such as "AWS_*"`},
		{`{"mcpServers": {"d": {"url": "http://127.0.0.1:1/mcp", "inheritEnv": ["A"]}}}`,
			`servers.json:1:56: mcpServers.d.inheritEnv: only applies to stdio servers ("command")`},
	} {
		_, err := Parse(context.Background(), []byte(c.src), "servers.json")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
	cfg, err := Parse(context.Background(), []byte(`{"mcpServers": {"d": {"command": "x", "inheritEnv": ["AWS_*", "*", "GITHUB_TOKEN"]}}}`), "servers.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Servers[0].InheritEnv; !slices.Equal(got, []string{"AWS_*", "*", "GITHUB_TOKEN"}) {
		t.Errorf("InheritEnv = %q", got)
	}
}
