package runs

import "fmt"

// UsageError is work refused for what the user gave it: flags, arguments or
// files. toolgrade exits 2 on it.
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

// InfraError is Ollama or an MCP server preventing the work. toolgrade exits
// 3 on it.
type InfraError struct{ Err error }

func (e *InfraError) Error() string { return e.Err.Error() }
func (e *InfraError) Unwrap() error { return e.Err }

// AsInfra marks err as infrastructure preventing the work; nil stays nil.
func AsInfra(err error) error {
	if err == nil {
		return nil
	}
	return &InfraError{err}
}
