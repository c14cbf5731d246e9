package cli

import "fmt"

// UsageError is work refused for what the user gave it: flags, arguments or
// files. It is the one kind of usage error every package returns, so a
// command maps it to one exit status (toolgrade exits 2 on it) however deep
// the refusal was made.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, a ...any) error {
	return &UsageError{fmt.Errorf(format, a...)}
}

// AsUsage marks err as the user's input being wrong; nil stays nil.
func AsUsage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{err}
}
