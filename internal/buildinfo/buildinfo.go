// Package buildinfo says which toolgrade a binary is: its version, as
// run.json records it, and the report `toolgrade version` prints for a bug
// report: that version, the Go toolchain, and the versions of the two
// libraries whose behaviour toolgrade measures through (Ollama's api client
// and the MCP go-sdk).
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// The modules the report names, with their labels.
var libraries = []struct{ label, path string }{
	{"ollama api", "github.com/ollama/ollama"},
	{"mcp sdk", "github.com/modelcontextprotocol/go-sdk"},
}

// Version is the version of a build: ldflag when set (-ldflags "-X
// main.harnessVersion=v1.2.3"); else the module version of the build
// info, which `go install ...@vX` sets to vX; for a "(devel)" build, that,
// with the commit it was built from when the build recorded one.
func Version(ldflag string, info *debug.BuildInfo) string {
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

// Report is what `toolgrade version` prints: "toolgrade VERSION", then
// the Go version and platform, and the module version of each library
// (with its replacement, if the build replaced it), one a line.
func Report(ldflag string, info *debug.BuildInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "toolgrade %s\n", Version(ldflag, info))
	goVersion := runtime.Version()
	if info != nil && info.GoVersion != "" {
		goVersion = info.GoVersion
	}
	fmt.Fprintf(&b, "  %-11s %s %s/%s\n", "go", goVersion, runtime.GOOS, runtime.GOARCH)
	for _, l := range libraries {
		fmt.Fprintf(&b, "  %-11s %s\n", l.label, module(info, l.path))
	}
	return b.String()
}

// module is "path version" of the dependency path of the build, with
// " => replacement" when it was replaced.
func module(info *debug.BuildInfo, path string) string {
	if info != nil {
		for _, d := range info.Deps {
			if d.Path != path {
				continue
			}
			s := d.Path + " " + d.Version
			if r := d.Replace; r != nil {
				s += " => " + strings.TrimSpace(r.Path+" "+r.Version)
			}
			return s
		}
	}
	return path + " (not recorded in this build)"
}
