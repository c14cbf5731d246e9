package mcpclient

import (
	"runtime"
	"slices"
	"strings"

	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// SafeEnv lists the variables of toolgrade's environment every stdio
// server sees, as the official MCP SDKs (TypeScript's and Python's
// getDefaultEnvironment) start one: enough to find programs and a home,
// never a token. A CI job's GITHUB_TOKEN or an API key reaches a server only
// when its entry names it in "env" (as ${env:NAME}) or "inheritEnv".
func SafeEnv() []string {
	if runtime.GOOS == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
			"PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
}

// serverEnv is the environment a stdio server starts with: from environ
// (os.Environ in use), the safe list and the names s.InheritEnv gives (a
// trailing * matches a prefix), then s.Env over them, sorted by name so the
// same file starts the same process. A value that starts with "()" (a shell
// function exported by bash) is never inherited, as the SDKs skip it.
func serverEnv(s serversfile.Server, environ []string) []string {
	safe := SafeEnv()
	kept := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.HasPrefix(v, "()") {
			continue
		}
		if slices.Contains(safe, strings.ToUpper(k)) || inherits(s.InheritEnv, k) {
			kept[k] = v
		}
	}
	for k, v := range s.Env {
		kept[k] = v
	}
	out := make([]string, 0, len(kept))
	for k, v := range kept {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// inherits reports whether one of the names (a trailing * a prefix) names k.
func inherits(names []string, k string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if strings.HasPrefix(k, p) {
				return true
			}
		} else if n == k {
			return true
		}
	}
	return false
}
