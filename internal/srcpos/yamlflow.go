package srcpos

// flowScan follows the flow collections ({...} and [...]) of YAML text well
// enough to close the ones still open at a cut: locating a syntax error cuts
// the text short, and a cut inside a flow collection would otherwise fail for
// the cut alone. It knows quoted scalars and comments, and treats a bracket
// or quote outside a flow as syntax only where a node may start (so "it's" and
// "a[0]" in plain text are text).
type flowScan struct {
	open   []int // offsets of the brackets still open, innermost last
	quote  byte  // the quote of the scalar being read, or 0
	escape bool  // the previous byte was a backslash in a "..." scalar
	// nodeStart is whether a node may start at the next non-blank byte:
	// after a line's indentation, "- ", "? ", ": ", or a flow indicator.
	nodeStart bool
	comment   bool
	prev      byte
}

// openFlows returns the offsets of the flow brackets of data open at its
// end, outermost first.
func openFlows(data []byte) []int {
	s := flowScan{nodeStart: true, prev: '\n'}
	for i := range data {
		s.step(data, i)
	}
	return s.open
}

// closers is the text that closes the flow collections open at the end of
// data, or "" when none is.
func closers(data []byte) string {
	open := openFlows(data)
	if len(open) == 0 {
		return ""
	}
	b := []byte{'\n'}
	for i := len(open) - 1; i >= 0; i-- {
		if data[open[i]] == '{' {
			b = append(b, '}')
		} else {
			b = append(b, ']')
		}
	}
	return string(b)
}

func (s *flowScan) step(data []byte, i int) {
	c := data[i]
	defer func() { s.prev = c }()
	switch {
	case s.quote != 0:
		s.inQuote(c)
		return
	case c == '\n':
		s.comment, s.nodeStart = false, true
		return
	case s.comment:
		return
	case c == '#' && (s.prev == ' ' || s.prev == '\t' || s.prev == '\n'):
		s.comment = true
		return
	case c == ' ' || c == '\t':
		if s.prev == ':' || s.prev == '-' || s.prev == '?' {
			s.nodeStart = true
		}
		return
	}
	inFlow := len(s.open) > 0
	switch {
	case (c == '"' || c == '\'') && s.nodeStart:
		s.quote = c
	case (c == '{' || c == '[') && (s.nodeStart || inFlow):
		s.open = append(s.open, i)
		s.nodeStart = true
		return
	case (c == '}' || c == ']') && inFlow:
		s.open = s.open[:len(s.open)-1]
	case c == ',' && inFlow:
		s.nodeStart = true
		return
	}
	// "-", "?" and ":" start a node only when a blank follows, which the
	// next byte tells.
	s.nodeStart = false
}

func (s *flowScan) inQuote(c byte) {
	switch {
	case s.escape:
		s.escape = false
	case s.quote == '"' && c == '\\':
		s.escape = true
	case c == s.quote:
		// A doubled '' inside a '...' scalar reads as a close and a reopen,
		// which comes to the same.
		s.quote = 0
	}
}
