package tgtest_test

import (
	"context"
	"fmt"
	"strings"
)

// printer is a tgtest.T that prints what `go test -v` would report of each
// subtest (its verdict, then its messages indented), so the examples can show
// it; test code passes its *testing.T instead.
type printer struct {
	name     string
	failed   bool
	skipped  bool
	messages []string
	cleanups *[]func()
}

func newPrinter() *printer { return &printer{cleanups: new([]func())} }

func (p *printer) Helper()                   {}
func (p *printer) Context() context.Context  { return context.Background() }
func (p *printer) Cleanup(f func())          { *p.cleanups = append(*p.cleanups, f) }
func (p *printer) Logf(f string, a ...any)   { p.say(f, a...) }
func (p *printer) Errorf(f string, a ...any) { p.failed = true; p.say(f, a...) }
func (p *printer) Fatalf(f string, a ...any) { p.failed = true; p.say(f, a...) }
func (p *printer) Skipf(f string, a ...any)  { p.skipped = true; p.say(f, a...) }
func (p *printer) say(f string, a ...any) {
	p.messages = append(p.messages, fmt.Sprintf(f, a...))
}

func (p *printer) Run(name string, f func(*printer)) bool {
	c := &printer{name: strings.TrimPrefix(p.name+"/"+name, "/"), cleanups: p.cleanups}
	f(c)
	verdict := "PASS"
	switch {
	case c.failed:
		verdict = "FAIL"
		p.failed = true
	case c.skipped:
		verdict = "SKIP"
	}
	fmt.Printf("--- %s: %s\n", verdict, c.name)
	for _, m := range c.messages {
		fmt.Println("    " + strings.ReplaceAll(m, "\n", "\n    "))
	}
	return !c.failed
}

// done prints the messages of the top level and runs the cleanups, last
// first, as testing does when a test ends.
func (p *printer) done() {
	for _, m := range p.messages {
		fmt.Println(m)
	}
	for i := len(*p.cleanups) - 1; i >= 0; i-- {
		(*p.cleanups)[i]()
	}
}
