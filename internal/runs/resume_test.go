package runs

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/shard"
	"github.com/toolgrade/toolgrade/internal/suite"
)

// TestResumeKeepsTheCatalogs: a resume is refused when a variant's catalog
// or the tools of a case that brings its own changed, or a case no longer
// brings them; a variant new to the run is not compared.
func TestResumeKeepsTheCatalogs(t *testing.T) {
	old := &record.Run{Catalogs: []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{
		{Cases: []string{"a", "b"}, Hash: "aaaa"}, {Cases: []string{"c"}, Hash: "cccc"},
	}}, {Variant: "terse", Hash: "h1"}}}
	for _, tc := range []struct {
		name string
		now  []record.RunCatalog
		want string
	}{
		{"unchanged", []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{
			{Cases: []string{"a", "b"}, Hash: "aaaa"}, {Cases: []string{"c"}, Hash: "cccc"},
		}}, {Variant: "new", Hash: "h9"}}, ""},
		{"variant", []record.RunCatalog{{Variant: "terse", Hash: "h2"}},
			"--resume: the catalog of variant terse changed since the run in d began (hash h1, now h2)"},
		{"case", []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{
			{Cases: []string{"a"}, Hash: "aaaa"}, {Cases: []string{"b"}, Hash: "bbbb"}, {Cases: []string{"c"}, Hash: "cccc"},
		}}}, "--resume: the tools of case b in variant base changed since the run in d began (hash aaaa, now bbbb)"},
		{"dropped", []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{{Cases: []string{"a", "b"}, Hash: "aaaa"}}}},
			"--resume: case c in variant base had its own tools when the run in d began and has none now"},
	} {
		err := sameCatalogs("d", old, tc.now)
		var ue *UsageError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestResumeKeepsItsVariants: a resumed run runs the variants it recorded,
// the base alone when it predates variants, and is refused when the suite
// no longer defines one.
func TestResumeKeepsItsVariants(t *testing.T) {
	s := &suite.Suite{Path: "s.yaml", Variants: []suite.Variant{{Name: "terse"}}}
	got, err := resumedVariants(s, &record.Run{})
	if err != nil || !reflect.DeepEqual(got, []string{""}) {
		t.Errorf("before variants: %q %v", got, err)
	}
	got, err = resumedVariants(s, &record.Run{Catalogs: []record.RunCatalog{{Variant: ""}, {Variant: "terse"}}})
	if err != nil || !reflect.DeepEqual(got, []string{"", "terse"}) {
		t.Errorf("recorded: %q %v", got, err)
	}
	_, err = resumedVariants(s, &record.Run{Catalogs: []record.RunCatalog{{Variant: "gone"}}})
	if err == nil || err.Error() != "--resume: the run has variant gone, which s.yaml no longer defines" {
		t.Errorf("gone: %v", err)
	}
}

// TestResumeKeepsItsExecutionAndShard: --no-execute may repeat a resumed
// run's setting, not change it; the shard likewise, and a resume without a
// shard flag keeps the run's.
func TestResumeKeepsItsExecutionAndShard(t *testing.T) {
	old := &record.Run{NoExecute: true, Shard: &record.RunShard{I: 1, N: 3, By: shard.ByTrial}}
	if err := (&Spec{NoExecute: ptr(true)}).checkNoExecute(old); err != nil {
		t.Errorf("repeated --no-execute: %v", err)
	}
	if err := (&Spec{NoExecute: ptr(false)}).checkNoExecute(old); err == nil {
		t.Error("--no-execute=false resumes a run without execution")
	}
	getenv := func(string) string { return "" }
	kept, err := (&Shard{}).resolve(old, getenv)
	if err != nil || kept != (shard.Spec{I: 1, N: 3, By: shard.ByTrial}) {
		t.Errorf("kept: %v %v", kept, err)
	}
	if _, err := (&Shard{Spec: "1/3"}).resolve(old, getenv); err != nil {
		t.Errorf("repeated: %v", err)
	}
	_, err = (&Shard{Spec: "0/3"}).resolve(old, getenv)
	if err == nil || err.Error() != "--resume: the run holds shard 1/3 by trial; --shard cannot change it" {
		t.Errorf("changed: %v", err)
	}
	_, err = (&Shard{Spec: "0/2"}).resolve(&record.Run{}, getenv)
	if err == nil || err.Error() != "--resume: the run holds shard all (no shard); --shard cannot change it" {
		t.Errorf("added: %v", err)
	}
}
