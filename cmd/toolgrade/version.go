package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// harnessVersion, when set at build time with
// -ldflags "-X main.harnessVersion=v1.2.3", is the version toolgrade reports;
// empty (the default) leaves it to the build info.
var harnessVersion string

// version is toolgrade's version, as `toolgrade version` prints it and
// run.json records it.
func version() string {
	info, _ := debug.ReadBuildInfo() // nil without module information
	return versionOf(harnessVersion, info)
}

// versionOf is the version for a build: ldflag when set; else the module
// version of the build info, which `go install ...@vX` sets to vX; for a
// "(devel)" build, that, with the commit it was built from when the build
// recorded one.
func versionOf(ldflag string, info *debug.BuildInfo) string {
	switch {
	case ldflag != "":
		return ldflag
	case info == nil:
		return "unknown (built without module information)"
	case info.Main.Version != "" && info.Main.Version != "(devel)":
		return info.Main.Version
	}
	parts := []string{"(devel)"}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.modified":
			parts = append(parts, s.Key+"="+s.Value)
		}
	}
	return strings.Join(parts, " ")
}

func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	pos, err := parse(newFlags("version", "", stderr), args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("version: unexpected argument %q", pos[0])
	}
	_, err = fmt.Fprintln(stdout, "toolgrade", version())
	return err
}
