package runs

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
