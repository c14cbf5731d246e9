package initdir

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Next is what init prints once the files are written: what they are and
// the commands to run next.
func Next(serversPath, suitePath, model string, sv *Servers) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrote %s and %s\n", serversPath, suitePath)
	if len(sv.WithSecrets) > 0 {
		fmt.Fprintf(&b, "note: %s copies the env or headers of %s, which may hold credentials: keep it out of version control\n",
			serversPath, strings.Join(sv.WithSecrets, ", "))
	}
	if len(sv.Pinned) > 0 {
		fmt.Fprintf(&b, "note: %s keeps the folder %s ran in, as cwd, so relative paths still resolve\n",
			serversPath, strings.Join(sv.Pinned, ", "))
	}
	if len(sv.Moved) > 0 {
		fmt.Fprintf(&b, "note: in %s, %s now run in its folder, not the source's: set their cwd if their paths are relative\n",
			serversPath, strings.Join(sv.Moved, ", "))
	}
	b.WriteString("next:\n")
	fmt.Fprintf(&b, "  toolgrade tools --servers %s    # the tools as a model sees them, and the pairs it may confuse\n", serversPath)
	if model == "" {
		fmt.Fprintf(&b, "  edit %s    # uncomment a case and write its question: it does not run before\n", suitePath)
		fmt.Fprintf(&b, "  toolgrade cases generate --servers %s --model MODEL -o %s    # or have a local model draft cases\n",
			serversPath, filepath.Join(filepath.Dir(suitePath), "drafted.yaml"))
		model = "MODEL"
	} else {
		fmt.Fprintf(&b, "  edit %s    # review each drafted case, then delete its review: true\n", suitePath)
	}
	fmt.Fprintf(&b, "  toolgrade run %s --models %s\n", suitePath, model)
	return b.String()
}
