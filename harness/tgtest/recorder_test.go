package tgtest_test

import (
	"context"
	"fmt"
	"testing"
)

// recorder is a tgtest.T that records what would be reported instead of
// reporting it, so tests can assert on failures and skips.
type recorder struct {
	t        *testing.T
	name     string
	errors   []string
	fatals   []string
	skips    []string
	logs     []string
	children []*recorder
}

func newRecorder(t *testing.T) *recorder { return &recorder{t: t, name: t.Name()} }

func (r *recorder) Helper()                   {}
func (r *recorder) Context() context.Context  { return r.t.Context() }
func (r *recorder) Cleanup(f func())          { r.t.Cleanup(f) }
func (r *recorder) Logf(f string, a ...any)   { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.fatals = append(r.fatals, fmt.Sprintf(f, a...)) }
func (r *recorder) Skipf(f string, a ...any)  { r.skips = append(r.skips, fmt.Sprintf(f, a...)) }
func (r *recorder) failed() bool              { return len(r.errors)+len(r.fatals) > 0 }
func (r *recorder) Run(name string, f func(*recorder)) bool {
	c := &recorder{t: r.t, name: r.name + "/" + name}
	r.children = append(r.children, c)
	f(c)
	return !c.anyFailed()
}

func (r *recorder) anyFailed() bool {
	if r.failed() {
		return true
	}
	for _, c := range r.children {
		if c.anyFailed() {
			return true
		}
	}
	return false
}

// find returns the subtest at path below r (names joined by "/"), failing
// the test when there is none.
func (r *recorder) find(path string) *recorder {
	r.t.Helper()
	var all []string
	var walk func(*recorder) *recorder
	walk = func(n *recorder) *recorder {
		all = append(all, n.name)
		if n.name == r.name+"/"+path {
			return n
		}
		for _, c := range n.children {
			if f := walk(c); f != nil {
				return f
			}
		}
		return nil
	}
	if n := walk(r); n != nil {
		return n
	}
	r.t.Fatalf("no subtest %s; have %v", path, all)
	return nil
}
