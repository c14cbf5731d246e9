package tgtest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/toolgrade/toolgrade/internal/suite"
)

// Case is one question and what a passing trial does with it: it mirrors
// the tool:/no_tool: forms of a suite file's case.
type Case struct {
	// ID names the case's subtest and its trials in a run directory, as
	// t.Run would rewrite it (spaces become underscores); empty: the
	// question, rewritten so. IDs must differ.
	ID string
	// Ask is the user's question.
	Ask string
	// Tool is the tool the model's first call must name (plain, server.tool
	// or server__tool); later calls are free. Empty with NoTool.
	Tool string
	// Args match the first call's arguments. Keys not named are free; nil:
	// any arguments.
	Args Args
	// NoTool says the model must call no tool at all.
	NoTool bool
	// Answer, unless it is the zero Matcher, must match the final answer's
	// text: Contains, Regex or OneOf.
	Answer Matcher
}

// Args are the expectations on the expected call's arguments, by argument
// name, such as Args{"city": Contains("paris"), "days": Equals(3)}.
type Args map[string]Matcher

// Suite is a set of cases ready to run with RunSuite: built from Go cases
// (NewSuite) or read from a suite file (LoadSuite, ParseSuite). RunSuite
// does not change it, so one Suite may run against several servers.
type Suite struct {
	s *suite.Suite
}

// NewSuite builds the suite Run runs from Go cases. Its error names every
// case (by position and ID) that is not well formed.
func NewSuite(cases []Case) (*Suite, error) {
	if len(cases) == 0 {
		return nil, fmt.Errorf("no cases")
	}
	s := &suite.Suite{Name: "tgtest", Path: "tgtest"}
	seen := map[string]bool{}
	var errs []error
	for i, c := range cases {
		sc, err := c.build(seen)
		if err != nil {
			where := fmt.Sprintf("case %d", i+1)
			if sc.ID != "" {
				where += " (" + sc.ID + ")"
			}
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		s.Cases = append(s.Cases, sc)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Suite{s: s}, nil
}

// LoadSuite reads a suite file, as `toolgrade run` does: its models,
// defaults and cases apply, and its servers are not started (RunSuite's
// server stands for them). Its error lists every problem with its line.
func LoadSuite(path string) (*Suite, error) {
	s, err := suite.Load(path, 0)
	if err != nil {
		return nil, err
	}
	return &Suite{s: s}, nil
}

// ParseSuite is LoadSuite for a suite already in memory; name is the file
// name its messages give, and relative paths in it resolve against name's
// folder.
func ParseSuite(data []byte, name string) (*Suite, error) {
	s, err := suite.Parse(data, name)
	if err != nil {
		return nil, err
	}
	return &Suite{s: s}, nil
}

// build returns c as a suite case, with its ID (once known) even when c is
// not well formed; seen holds the IDs of the cases before it.
func (c Case) build(seen map[string]bool) (suite.Case, error) {
	id := c.ID
	if id == "" {
		id = c.Ask
	}
	sc := suite.Case{ID: subtestName(id), Messages: []suite.Message{{Role: "user", Content: c.Ask}}}
	switch {
	case c.Ask == "":
		return sc, fmt.Errorf("Ask is empty")
	case seen[sc.ID] && c.ID == "":
		return sc, fmt.Errorf("the question is asked twice: give the cases IDs")
	case seen[sc.ID]:
		return sc, fmt.Errorf("the id is used twice")
	case c.NoTool == (c.Tool != ""):
		return sc, fmt.Errorf("give exactly one of Tool and NoTool")
	case c.NoTool && len(c.Args) > 0:
		return sc, fmt.Errorf("Args need a Tool")
	}
	seen[sc.ID] = true
	if !c.Answer.isZero() {
		a, err := c.Answer.answer()
		if err != nil {
			return sc, fmt.Errorf("Answer: %w", err)
		}
		sc.Expect.Answer = a
	}
	if c.NoTool {
		sc.Expect.NoTool = true
		return sc, nil
	}
	args, err := c.Args.build()
	if err != nil {
		return sc, err
	}
	sc.Expect.FirstOnly = true
	sc.Expect.Calls = []suite.ExpectedCall{{Tool: c.Tool, Args: args}}
	return sc, nil
}

// build returns the matchers in the order of their keys, so a failure's
// detail lists the arguments the same way on every run.
func (a Args) build() (suite.ArgMatchers, error) {
	var out suite.ArgMatchers
	for _, key := range slices.Sorted(maps.Keys(a)) {
		m := a[key]
		switch {
		case key == "":
			return nil, fmt.Errorf("Args: an argument name is empty")
		case m.err != nil:
			return nil, fmt.Errorf("Args[%q]: %w", key, m.err)
		case m.isZero():
			return nil, fmt.Errorf("Args[%q]: the zero Matcher expects nothing: use Any, or leave the key out", key)
		}
		am := m.m
		am.Key = key
		out = append(out, am)
	}
	return out, nil
}

// subtestName rewrites s as t.Run rewrites a subtest's name (testing's
// rewrite): each space becomes an underscore and each unprintable rune its
// Go escape, so a case's ID is the name `go test -run` shows and matches.
func subtestName(s string) string {
	var b []byte
	for _, r := range s {
		switch {
		case isSpace(r):
			b = append(b, '_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b = append(b, q[1:len(q)-1]...)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(b)
}

// isSpace is testing's: the spaces t.Run turns into underscores, which are
// not quite Unicode's.
func isSpace(r rune) bool {
	if r < 0x2000 {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680:
			return true
		}
		return false
	}
	if r <= 0x200a {
		return true
	}
	switch r {
	case 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return false
}
