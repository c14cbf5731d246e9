package confusable_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/confusable"
	"github.com/toolgrade/toolgrade/internal/mcpclient"
	"github.com/toolgrade/toolgrade/internal/mcpclient/refservers"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// The docs fake's three tools name each other in their descriptions but do
// different things: no pair reaches the threshold, and the closest is the
// two that are about whole documents.
func TestDocsCatalogHasNoConfusablePair(t *testing.T) {
	docs := confusable.FromOllama(rig.Catalog(t, nil, "docs").OllamaTools())
	if got := confusable.Rank(docs, confusable.DefaultThreshold); len(got) != 0 {
		t.Errorf("pairs at %v: %+v", confusable.DefaultThreshold, got)
	}
	all := confusable.Rank(docs, 0)
	if len(all) != 3 {
		t.Fatalf("want all 3 pairs at threshold 0, got %+v", all)
	}
	top := all[0]
	if top.A != "get_document" || top.B != "list_documents" || !contains(top.Words, "document") || top.Score <= all[1].Score {
		t.Errorf("top pair %+v", top)
	}
}

// The filesystem server's list_directory and list_directory_with_sizes, and
// its deprecated read_file beside read_text_file, are the pairs a model
// confuses; every other pair shares little more than a path parameter and
// the "allowed directories" boilerplate, and stays below the threshold.
func TestFilesystemCatalogRanksItsAliases(t *testing.T) {
	script := refservers.Script(t, "../..", refservers.Filesystem)
	dir := t.TempDir()
	cfg := &serversfile.Config{Path: filepath.Join(dir, "servers.json"), Dir: dir,
		Servers: []serversfile.Server{{Name: "fs", Command: "node", Args: []string{script, dir}}}}
	cat, err := mcpclient.Connect(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	got := confusable.Rank(confusable.FromOllama(cat.OllamaTools()), confusable.DefaultThreshold)
	if len(got) != 2 {
		t.Fatalf("want 2 pairs, got %+v", got)
	}
	if got[0].A != "list_directory" || got[0].B != "list_directory_with_sizes" || got[1].A != "read_file" || got[1].B != "read_text_file" {
		t.Errorf("pairs %+v", got)
	}
	if !contains(got[1].Params, "path: string") || !contains(got[1].Words, "read") {
		t.Errorf("what read_file and read_text_file share: %+v", got[1])
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
