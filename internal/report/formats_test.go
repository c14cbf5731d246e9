package report

import (
	"errors"
	"slices"
	"testing"

	"github.com/toolgrade/toolgrade/internal/cli"
	"github.com/toolgrade/toolgrade/internal/record"
)

// TestFormatsRegistry: each name and alias is one format's, every kind has
// a format, and the files a run leaves are the record's names for them.
func TestFormatsRegistry(t *testing.T) {
	seen := map[string]string{}
	for _, f := range Formats() {
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if other, dup := seen[n]; dup {
				t.Errorf("%q names both %s and %s", n, other, f.Name)
			}
			seen[n] = f.Name
		}
	}
	for k := KindRun; k <= KindPlan; k++ {
		if len(Names(k)) == 0 {
			t.Errorf("%s is written in no format", k.noun())
		}
	}
	for name, file := range map[string]string{"markdown": record.MarkdownFile, "html": record.HTMLFile, "terminal": ""} {
		if f, err := Find(name, KindRun); err != nil || f.File != file {
			t.Errorf("%s: file %q (%v), want %q", name, f.File, err, file)
		}
	}
	if got := Names(KindComparison); !slices.Equal(got, []string{"terminal", "json", "html"}) {
		t.Errorf("a comparison is written as %v", got)
	}
}

// TestFindSaysWhatAKindIsWrittenAs: aliases find their format; an unknown
// name, or one whose format cannot write the kind, is a usage error listing
// the formats that can, with a did-you-mean for a typo.
func TestFindSaysWhatAKindIsWrittenAs(t *testing.T) {
	for name, want := range map[string]string{"md": "markdown", "text": "terminal", "json": "json"} {
		if f, err := Find(name, KindChoice); err != nil || f.Name != want {
			t.Errorf("Find(%q) = %v, %v; want %s", name, f, err, want)
		}
	}
	for _, tc := range []struct {
		name string
		kind Kind
		want string
	}{
		{"pdf", KindRun, `--format "pdf": want one of terminal, json, markdown, junit, html`},
		{"markdwn", KindChoice, `--format "markdwn": want one of terminal, json, markdown, html (did you mean "markdown"?)`},
		{"junit", KindComparison, "--format junit: a comparison is written as terminal, json or html"},
		{"html", KindSweep, "--format html: a sweep's comparison is written as terminal, json or markdown"},
	} {
		f, err := Find(tc.name, tc.kind)
		var ue *cli.UsageError
		if f != nil || !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("Find(%q, %s) = %v, %v; want the usage error %q", tc.name, tc.kind.noun(), f, err, tc.want)
		}
	}
}
