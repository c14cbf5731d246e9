package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestViewListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	r := runCLI(t, context.Background(), "view", "--listen", "0.0.0.0:8700", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.err.Error(), "view listens on loopback only") {
		t.Errorf("code %d, err %v", r.code, r.err)
	}
}

// TestViewCommand: `toolgrade view DIR` serves the folder's runs (a folder
// that is no run among them, with its error) until its context ends.
func TestViewCommand(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "junk"), 0o755); err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() { done <- runCLI(t, ctx, "view", "--listen", "127.0.0.1:0", "--addr-file", addrFile, root) }()
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
	}
	var got []struct{ ID, Error string }
	if addr != "" {
		if res, err := http.Get("http://" + addr + "/api/runs"); err != nil {
			t.Error(err)
		} else {
			json.NewDecoder(res.Body).Decode(&got)
			res.Body.Close()
		}
	}
	cancel()
	r := <-done
	if addr == "" {
		t.Fatalf("view did not start: %v\n%s", r.err, r.stderr)
	}
	if len(got) != 1 || got[0].ID != "0/junk" || !strings.Contains(got[0].Error, "no run.json") {
		t.Errorf("/api/runs: %+v", got)
	}
	if !strings.Contains(r.stderr, "toolgrade view: http://"+addr+"/") {
		t.Errorf("stderr %q: want the address", r.stderr)
	}
}
