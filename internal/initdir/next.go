package initdir

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Next is what init prints once the files are written: what they are and
// the commands to run next.
func Next(serversPath, suitePath, model string, withSecrets []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrote %s and %s\n", serversPath, suitePath)
	if len(withSecrets) > 0 {
		fmt.Fprintf(&b, "note: %s copies the env or headers of %s, which may hold credentials: keep it out of version control\n",
			serversPath, strings.Join(withSecrets, ", "))
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
