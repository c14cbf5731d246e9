package toolbox

import (
	"strings"
	"testing"

	"github.com/toolgrade/toolgrade/internal/record"
)

// A resume refuses a run whose case catalog changed, naming the case.
func TestSameCatalogsCoversCases(t *testing.T) {
	old := &record.Run{Catalogs: []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{
		{Cases: []string{"a", "b"}, Hash: "aaaa"}, {Cases: []string{"c"}, Hash: "cccc"},
	}}}}
	same := []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{
		{Cases: []string{"a", "b"}, Hash: "aaaa"}, {Cases: []string{"c"}, Hash: "cccc"},
	}}}
	if err := SameCatalogs("d", old, same); err != nil {
		t.Errorf("unchanged: %v", err)
	}
	changed := []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{
		{Cases: []string{"a"}, Hash: "aaaa"}, {Cases: []string{"b"}, Hash: "bbbb"}, {Cases: []string{"c"}, Hash: "cccc"},
	}}}
	if err := SameCatalogs("d", old, changed); err == nil || !strings.Contains(err.Error(), "the tools of case b in variant base changed") {
		t.Errorf("changed: %v", err)
	}
	dropped := []record.RunCatalog{{Variant: "", Hash: "h0", Cases: []record.RunCaseCatalog{{Cases: []string{"a", "b"}, Hash: "aaaa"}}}}
	if err := SameCatalogs("d", old, dropped); err == nil || !strings.Contains(err.Error(), "case c in variant base had its own tools") {
		t.Errorf("dropped: %v", err)
	}
}
