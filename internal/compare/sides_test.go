package compare

import (
	"strings"
	"testing"
)

func TestParseSides(t *testing.T) {
	for _, tt := range []struct {
		dirs             int
		models, variants string
		want             Sides
		msg              string
	}{
		{2, "", "", Sides{Mode: ModeRuns}, ""},
		{1, "m,n", "", Sides{Mode: ModeModels, A: "m", B: "n"}, ""},
		{1, "", "base,terse", Sides{Mode: ModeVariants, A: "base", B: "terse"}, ""},
		{1, "", "", Sides{}, "give two run directories (BASE CURRENT)"},
		{2, "m,n", "", Sides{}, "with --models or --variants, give one run directory"},
		{1, "m,n", "a,b", Sides{}, "not both"},
		{1, "m", "", Sides{}, `--models "m": want two different names, a,b`},
		{1, "", "a,a", Sides{}, `--variants "a,a": want two different names`},
		{1, "a,b,c", "", Sides{}, "want two different names"},
	} {
		got, err := ParseSides(tt.dirs, tt.models, tt.variants)
		if tt.msg == "" && (err != nil || got != tt.want) || tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg)) {
			t.Errorf("ParseSides(%d, %q, %q) = %+v, %v; want %+v, %q", tt.dirs, tt.models, tt.variants, got, err, tt.want, tt.msg)
		}
	}
}
