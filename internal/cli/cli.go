// Package cli is what every toolgrade command shares about its flags: the
// usage -h prints, and parsing that turns a mistake into one line saying
// what is wrong and what to type instead (did-you-mean for a misspelled
// flag), where the flag package would print its own message and every flag.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// Help is what a command's -h says besides its flags.
type Help struct {
	// Command is the command as typed after toolgrade: run, cases from.
	Command string
	// Args is the synopsis of its arguments: SUITE.yaml | --resume DIR.
	Args string
	// Summary says in one line what the command does.
	Summary string
	// More follows the flags: what the arguments may be, one line each.
	More string
}

// Write writes the usage of a command whose flags are fs: the synopsis,
// the summary, the flags (no section when it has none) and More.
func (h Help) Write(w io.Writer, fs *flag.FlagSet) {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	line := []string{"Usage: toolgrade " + h.Command}
	if n > 0 {
		line = append(line, "[flags]")
	}
	if h.Args != "" {
		line = append(line, h.Args)
	}
	fmt.Fprintln(w, strings.Join(line, " "))
	if h.Summary != "" {
		fmt.Fprintf(w, "\n%s\n", h.Summary)
	}
	if n > 0 {
		fmt.Fprintln(w, "\nFlags:")
		var b strings.Builder
		out := fs.Output()
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(out)
		io.WriteString(w, durationDefaults(fs, b.String()))
	}
	if h.More != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(h.More, "\n"))
	}
}

// durationDefaults rewrites the defaults the flag package prints for the
// duration flags of fs as a person writes them (5m, not 5m0s; 1h30m, not
// 1h30m0s), and drops a negative one, which marks a flag not given whose
// usage says its default in words ("(default: the script's)").
func durationDefaults(fs *flag.FlagSet, usage string) string {
	fs.VisitAll(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		if _, ok := g.Get().(time.Duration); !ok {
			return
		}
		def, err := time.ParseDuration(f.DefValue)
		if err != nil {
			return
		}
		old := " (default " + f.DefValue + ")"
		repl := " (default " + HumanDuration(def) + ")"
		if def < 0 {
			repl = ""
		}
		usage = strings.Replace(usage, old, repl, 1)
	})
	return usage
}

// HumanDuration writes d as a person would: 5m for 5m0s, 1h for 1h0m0s,
// 1m30s as it is, 0 for zero (termtext.Duration, which every message
// uses).
func HumanDuration(d time.Duration) string { return termtext.Duration(d) }

// Parse parses the flags of fs in args, before, between or after the
// positional arguments (`toolgrade run suite.yaml --repeat 3`), and returns
// the positional ones; "--" ends the flags. fs is named after the command
// as typed after toolgrade (run, cases from). -h and --help call fs.Usage
// and return flag.ErrHelp. Any other mistake is a *FlagError, and nothing
// is printed: neither the flag package's own message nor its list of every
// flag.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				usage()
				return nil, err
			}
			return nil, flagError(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
