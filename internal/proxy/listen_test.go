package proxy

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestAllowed: the origins are OLLAMA_ORIGINS' then the flag's; the hosts
// the flag's, then the listen address's, Ollama's and this machine's.
func TestAllowed(t *testing.T) {
	getenv := func(k string) string {
		if k == "OLLAMA_ORIGINS" {
			return "http://a.test"
		}
		return ""
	}
	hostname := func() (string, error) { return "box", nil }
	origins, hosts, err := Allowed("127.0.0.1:11500", "http://gpu.lan:11434", []string{"http://b.test"}, []string{"me.test"}, getenv, hostname)
	if err != nil || !reflect.DeepEqual(origins, []string{"http://a.test", "http://b.test"}) ||
		!reflect.DeepEqual(hosts, []string{"me.test", "127.0.0.1", "gpu.lan", "box"}) {
		t.Errorf("origins %q hosts %q err %v", origins, hosts, err)
	}
	_, hosts, _ = Allowed("localhost:0", "http://x:1", nil, nil, getenv, func() (string, error) { return "", errors.New("none") })
	if !reflect.DeepEqual(hosts, []string{"localhost", "x"}) {
		t.Errorf("without a hostname: %q", hosts)
	}
	if _, _, err := Allowed("localhost:0", "", []string{"ftp://*.*"}, nil, getenv, hostname); err == nil || !strings.HasPrefix(err.Error(), "serve: --cors-origin: ") {
		t.Errorf("bad origin: %v", err)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "[::1]:80": true, "localhost:1": true, "0.0.0.0:1": false, "example.com:1": false, "nope": false} {
		if err := LoopbackOnly(addr); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
}
