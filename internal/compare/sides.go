package compare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/store"
)

// Sides is what a command names to compare: two run directories, or two
// models or two variants of one run (A the base, B the current side).
type Sides struct {
	Mode string
	A, B string
}

// ParseSides reads a command's choice: dirs run directories given, and the
// --models or --variants list ("a,b"), at most one of them. Its errors are
// the caller's input.
func ParseSides(dirs int, models, variants string) (Sides, error) {
	if models == "" && variants == "" {
		if dirs != 2 {
			return Sides{}, errors.New("give two run directories (BASE CURRENT), or one with --models a,b or --variants a,b")
		}
		return Sides{Mode: ModeRuns}, nil
	}
	s, flagName, list := Sides{Mode: ModeModels}, "--models", models
	switch {
	case models != "" && variants != "":
		return Sides{}, errors.New("give --models or --variants, not both")
	case dirs != 1:
		return Sides{}, errors.New("with --models or --variants, give one run directory")
	case variants != "":
		s.Mode, flagName, list = ModeVariants, "--variants", variants
	}
	a, b, ok := strings.Cut(list, ",")
	if !ok || a == "" || b == "" || strings.Contains(b, ",") || a == b {
		return Sides{}, fmt.Errorf("%s %q: want two different names, a,b", flagName, list)
	}
	s.A, s.B = a, b
	return s, nil
}

// Compare compares the sides in rds, the run directories ParseSides was
// told of, opened in order. A model or variant the run lacks is an error of
// Models or Variants.
func (s Sides) Compare(rds []*store.Reader, opts *Options) (*Comparison, []*record.SyntaxError, error) {
	switch s.Mode {
	case ModeModels:
		return Models(rds[0], s.A, s.B, opts)
	case ModeVariants:
		return Variants(rds[0], s.A, s.B, opts)
	}
	return Runs(rds[0], rds[1], opts)
}
