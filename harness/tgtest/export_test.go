package tgtest

import "github.com/toolgrade/toolgrade/internal/suite"

// SuiteOf lets the external tests see the suite a Suite holds, to check
// that RunSuite leaves it unchanged.
func SuiteOf(s *Suite) *suite.Suite { return s.s }
