package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/toolgrade/toolgrade/internal/buildinfo"
	"github.com/toolgrade/toolgrade/internal/cli"
)

// harnessVersion, when set at build time with
// -ldflags "-X main.harnessVersion=v1.2.3", is the version toolgrade reports;
// empty (the default) leaves it to the build info.
var harnessVersion string

// version is toolgrade's version, as run.json records it and `toolgrade
// version` prints it first.
func version() string {
	info, _ := debug.ReadBuildInfo() // nil without module information
	return buildinfo.Version(harnessVersion, info)
}

func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	pos, err := parse(newFlags("version", "", stderr), args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("version: unexpected argument %q", pos[0])
	}
	info, _ := debug.ReadBuildInfo()
	_, err = fmt.Fprint(stdout, buildinfo.Report(harnessVersion, info))
	return err
}
