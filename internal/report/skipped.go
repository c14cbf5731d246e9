package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/summary"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// skippedServerText says what a server that failed to connect cost the
// run, in every report alike: why it was skipped, that the model never saw
// its tools, and which cases could not run without it (their trials are
// infrastructure errors, not the model's mistakes). The text is the
// server's and the run's: escape it for the report's medium.
func skippedServerText(sk record.RunSkippedServer) string {
	why := sk.Error
	if why == "" {
		why = "why was not recorded"
	}
	s := fmt.Sprintf("server %s failed to connect and was skipped (%s): the model was never offered its tools", sk.Name, why)
	if len(sk.Cases) > 0 {
		s += fmt.Sprintf("; %s not run (infrastructure errors): %s", termtext.Count(len(sk.Cases), "case"), strings.Join(sk.Cases, ", "))
	}
	return s
}

// writeSkippedTerminal writes a warning line per skipped server, under the
// model table whose rates it qualifies.
func writeSkippedTerminal(w io.Writer, s *summary.Summary) {
	for _, sk := range s.SkippedServers {
		fmt.Fprintf(w, "warning: %s\n", indent(termtext.Printable(skippedServerText(sk)), "  "))
	}
}

// mdSkipped writes the skipped servers as a GitHub warning, before the
// tables whose rates it qualifies.
func mdSkipped(b *strings.Builder, s *summary.Summary) {
	if len(s.SkippedServers) == 0 {
		return
	}
	b.WriteString("> [!WARNING]\n")
	for i, sk := range s.SkippedServers {
		if i > 0 {
			b.WriteString(">\n")
		}
		fmt.Fprintf(b, "> %s\n", mdDetail(skippedServerText(sk)))
	}
	b.WriteString("\n")
}
