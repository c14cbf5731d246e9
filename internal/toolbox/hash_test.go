package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/serversfile"
)

// A server's hash covers its own tools under their own names: it does not
// change when another server's tools rename it; the catalog's does.
func TestHashes(t *testing.T) {
	c1 := mustConnect(t, nil, fakeServer("a", fakeTool{name: "search"}))
	c2 := mustConnect(t, nil, fakeServer("a", fakeTool{name: "search"}), fakeServer("b", fakeTool{name: "search"}))
	h1, h2 := RunServers(c1), RunServers(c2)
	if h1[0].Hash != h2[0].Hash {
		t.Error("the hash of a changed when another server renamed its tools")
	}
	if CatalogHash(c1) == CatalogHash(c2) {
		t.Error("CatalogHash did not change with the tool list")
	}
	if h1[0].Hash != h2[1].Hash {
		t.Errorf("identical servers hash differently: %s vs %s", h1[0].Hash, h2[1].Hash)
	}
	if got := CatalogHash(c1); len(got) != 64 {
		t.Errorf("CatalogHash = %q", got)
	}
}

// The catalog hash is the hash of the tools JSON as sent, and a base
// variant without a system prompt records the same.
func TestCatalogHashIsTheToolsJSON(t *testing.T) {
	c := mustConnect(t, nil, fakeServer("a", fakeTool{name: "search"}, fakeTool{name: "fetch"}))
	data, err := json.Marshal(c.OllamaTools())
	if err != nil {
		t.Fatal(err)
	}
	if CatalogHash(c) != Hash(data, "") {
		t.Error("CatalogHash is not the Hash of the tools JSON")
	}
	rc, err := VariantCatalog("", nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Hash != CatalogHash(c) || string(rc.Tools) != string(data) {
		t.Errorf("the base's recorded catalog %s differs from the catalog's %s", rc.Hash, CatalogHash(c))
	}
	if Hash(data, "be brief") == Hash(data, "") {
		t.Error("a system prompt does not change the hash")
	}
	empty := mustConnect(t, nil)
	if CatalogHash(empty) != Hash([]byte("[]"), "") {
		t.Error("no tools: not the hash of []")
	}
}

// RunServers lists each connected server once, in catalog order, with its
// hash and the names the model sees of its tools (a clash prefixed); a
// server that failed is not listed.
func TestRunServers(t *testing.T) {
	c := mustConnect(t, nil,
		fakeServer("a", fakeTool{name: "search"}, fakeTool{name: "fetch"}),
		fakeServer("b", fakeTool{name: "search"}))
	got := RunServers(c)
	want := []record.RunServer{
		{Name: "a", Hash: got[0].Hash, Tools: []string{"fetch", "a__search"}},
		{Name: "b", Hash: got[1].Hash, Tools: []string{"b__search"}},
	}
	if !reflect.DeepEqual(got, want) || got[0].Hash == "" || got[0].Hash == got[1].Hash {
		t.Errorf("RunServers = %+v, want %+v", got, want)
	}
	if RunServers(mustConnect(t, nil)) != nil {
		t.Error("no servers: want nil")
	}
	down := serversfile.Server{Name: "down", Dial: func(context.Context) (mcp.Transport, error) {
		return nil, errors.New("no route to down")
	}}
	withDown := mustConnect(t, nil, fakeServer("good", fakeTool{name: "search"}), down)
	if rs := RunServers(withDown); len(rs) != 1 || rs[0].Name != "good" {
		t.Errorf("RunServers with a failed server = %+v", rs)
	}
}
