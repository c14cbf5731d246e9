package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostsFileErrorsSayWhere: a bad line of --ollama-hosts is reported at
// its file:line:col.
func TestHostsFileErrorsSayWhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(path, []byte("http://a:11434\n  http://b:11434#zero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadHostsFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":2:3: ") || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("err %v", err)
	}
	got, err := ParseHost("http://a:11434#4")
	if err != nil || got != (Host{URL: "http://a:11434", Parallel: 4}) {
		t.Errorf("ParseHost: %+v %v", got, err)
	}
}
