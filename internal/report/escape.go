package report

import "github.com/toolgrade/toolgrade/internal/termtext"

// Printable returns s made safe to print to a terminal (termtext.Printable),
// for the commands that print what models and servers wrote.
func Printable(s string) string { return termtext.Printable(s) }
