package main

import (
	"context"
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
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
		if got := versionOf(tc.ldflag, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestVersionCommandAndFlagPrintTheBuildVersion(t *testing.T) {
	want := "toolgrade " + version() + "\n"
	if version() == "" {
		t.Fatal("empty version")
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		r := runCLI(t, context.Background(), args...)
		if r.err != nil || r.stdout != want {
			t.Errorf("%v: err %v, stdout %q, want %q", args, r.err, r.stdout, want)
		}
	}
	if r := runCLI(t, context.Background(), "version", "extra"); r.code != exitUsage {
		t.Errorf("version extra: code %d", r.code)
	}
}

func TestVersionHonoursLdflags(t *testing.T) {
	old := harnessVersion
	t.Cleanup(func() { harnessVersion = old })
	// What -ldflags "-X main.harnessVersion=v3.1.4" does before main runs.
	harnessVersion = "v3.1.4"
	if r := runCLI(t, context.Background(), "--version"); r.stdout != "toolgrade v3.1.4\n" {
		t.Errorf("stdout %q", r.stdout)
	}
}
