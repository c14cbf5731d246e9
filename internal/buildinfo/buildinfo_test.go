package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	devel := func(settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/toolgrade/toolgrade", Version: "(devel)"}, Settings: settings}
	}
	for _, tc := range []struct {
		name   string
		ldflag string
		info   *debug.BuildInfo
		want   string
	}{
		{"go install @v1.2.3", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"pseudo-version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201195434-900c09b1a2b3+dirty"}},
			"v0.0.0-20261201195434-900c09b1a2b3+dirty"},
		{"devel with vcs", "", devel(
			debug.BuildSetting{Key: "-race", Value: "true"},
			debug.BuildSetting{Key: "vcs", Value: "git"},
			debug.BuildSetting{Key: "vcs.revision", Value: "900c09b1a2b3c4d5e6f708192a3b4c5d6e7f8091"},
			debug.BuildSetting{Key: "vcs.time", Value: "2026-12-01T19:54:34Z"},
			debug.BuildSetting{Key: "vcs.modified", Value: "true"},
		), "(devel) vcs.revision=900c09b1a2b3c4d5e6f708192a3b4c5d6e7f8091 vcs.modified=true"},
		{"devel without vcs", "", devel(), "(devel)"},
		{"no build info", "", nil, "unknown (built without module information)"},
		{"ldflags win", "v9.8.7", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v9.8.7"},
	} {
		if got := Version(tc.ldflag, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestReport(t *testing.T) {
	info := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Version: "v1.2.3"},
		Deps: []*debug.Module{
			{Path: "github.com/google/jsonschema-go", Version: "v0.4.3"},
			{Path: "github.com/modelcontextprotocol/go-sdk", Version: "v1.8.0", Replace: &debug.Module{Path: "../go-sdk"}},
			{Path: "github.com/ollama/ollama", Version: "v0.17.4"},
		},
	}
	want := "toolgrade v1.2.3\n" +
		"  go          go1.26.8 " + runtime.GOOS + "/" + runtime.GOARCH + "\n" +
		"  ollama api  github.com/ollama/ollama v0.17.4\n" +
		"  mcp sdk     github.com/modelcontextprotocol/go-sdk v1.8.0 => ../go-sdk\n"
	if got := Report("", info); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	want = "toolgrade unknown (built without module information)\n" +
		"  go          " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n" +
		"  ollama api  github.com/ollama/ollama (not recorded in this build)\n" +
		"  mcp sdk     github.com/modelcontextprotocol/go-sdk (not recorded in this build)\n"
	if got := Report("", nil); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
