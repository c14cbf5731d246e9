package cli

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/srcpos"
)

// FlagError is a mistake in a command's flags, said in one line: what is
// wrong, what to type instead when that can be guessed, and where the
// command's flags are listed.
type FlagError struct {
	// Command is the command as typed after toolgrade (run, cases from).
	Command string
	// Flag is the flag's name without dashes; "" when no flag could be read.
	Flag string
	// Msg says what is wrong, after the command's name.
	Msg string
	// Err is the flag package's own error.
	Err error
}

func (e *FlagError) Error() string { return e.Command + ": " + e.Msg }

func (e *FlagError) Unwrap() error { return e.Err }

// The messages of (*flag.FlagSet).Parse, whose errors carry no structure:
// they have read the same since Go 1.0; any other message is passed on as
// it is.
var (
	unknownRE   = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	needsArgRE  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	badValueRE  = regexp.MustCompile(`^invalid value "((?:[^"\\]|\\.)*)" for flag -+([^:]*): (.*)$`)
	badBoolRE   = regexp.MustCompile(`^invalid boolean value "((?:[^"\\]|\\.)*)" for -+([^:]*): (.*)$`)
	badSyntaxRE = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError turns an error of fs.Parse into a *FlagError.
func flagError(fs *flag.FlagSet, err error) *FlagError {
	e := &FlagError{Command: fs.Name(), Err: err}
	usage := fmt.Sprintf("(toolgrade %s -h lists every flag)", fs.Name())
	msg := err.Error()
	if m := unknownRE.FindStringSubmatch(msg); m != nil {
		e.Flag = m[1]
		e.Msg = "unknown flag --" + m[1]
		if s := suggest(fs, m[1]); s != "" {
			e.Msg += ": did you mean --" + s + "?"
		}
		e.Msg += " " + usage
		return e
	}
	if m := needsArgRE.FindStringSubmatch(msg); m != nil {
		e.Flag = m[1]
		e.Msg = fmt.Sprintf("--%s needs a value: --%s %s %s", m[1], m[1], placeholder(fs.Lookup(m[1])), usage)
		return e
	}
	if m := badBoolRE.FindStringSubmatch(msg); m != nil {
		e.Flag = m[2]
		e.Msg = fmt.Sprintf("--%s=%s: give true or false (--%s alone is true)", m[2], unquote(m[1]), m[2])
		return e
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		e.Flag = m[2]
		e.Msg = fmt.Sprintf("--%s %q: %s", m[2], unquote(m[1]), valueProblem(fs.Lookup(m[2]), m[3]))
		return e
	}
	if m := badSyntaxRE.FindStringSubmatch(msg); m != nil {
		e.Msg = fmt.Sprintf("bad flag syntax %s: write -name, --name or --name=value %s", m[1], usage)
		return e
	}
	e.Msg = msg + " " + usage
	return e
}

// suggest is the flag of fs that name is likely a misspelling of: the
// nearest in edit distance, or the one flag name starts, or "".
func suggest(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := srcpos.Suggest(name, names); s != "" {
		return s
	}
	var prefixed []string
	for _, n := range names {
		if len(name) >= 3 && strings.HasPrefix(n, name) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// placeholder is what a flag's value is called in messages: the word its
// usage puts in backquotes, or a name for its type.
func placeholder(f *flag.Flag) string {
	if f == nil {
		return "VALUE"
	}
	name, _ := flag.UnquoteUsage(f)
	switch name {
	case "int", "uint":
		return "N"
	case "float":
		return "X"
	case "duration":
		return "D (such as 30s or 2m)"
	case "", "string", "value":
		return "VALUE"
	}
	return name
}

// valueProblem says what is wrong with a value the flag f refused with the
// message msg: for the flag package's own types, what kind of value it
// takes; for toolgrade's, the message its Set gave.
func valueProblem(f *flag.Flag, msg string) string {
	if f == nil {
		return msg
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return msg
	}
	rangeErr := msg == "value out of range"
	switch g.Get().(type) {
	case int, int64:
		if rangeErr {
			return "out of range"
		}
		return "want a whole number"
	case uint, uint64:
		if rangeErr {
			return "out of range"
		}
		return "want a whole number, 0 or more"
	case float64:
		if rangeErr {
			return "out of range"
		}
		return "want a number, such as 0.5"
	case time.Duration:
		return "want a duration with its unit, such as 500ms, 30s, 2m or 1h30m"
	}
	return msg
}

// unquote undoes the %q of the flag package's messages.
func unquote(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}
