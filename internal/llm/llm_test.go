package llm

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
)

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		flag, env, want string
	}{
		{"", "", "http://127.0.0.1:11434"},
		{"", "10.1.2.3", "http://10.1.2.3:11434"},
		{"", "0.0.0.0:8080", "http://0.0.0.0:8080"},
		{"", "https://ollama.example", "https://ollama.example:443"},
		{"", "http://[::1]:9", "http://[::1]:9"},
		{"localhost:7777", "10.1.2.3", "http://localhost:7777"},
		{"https://gpu-box:443/ollama", "", "https://gpu-box:443/ollama"},
	} {
		t.Setenv("OLLAMA_HOST", tc.env)
		u, err := Endpoint(tc.flag)
		if err != nil || u.String() != tc.want {
			t.Errorf("Endpoint(%q) with OLLAMA_HOST=%q = %v, %v; want %s", tc.flag, tc.env, u, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://x", "http://", "http://a b"} {
		if _, err := Endpoint(bad); err == nil {
			t.Errorf("Endpoint(%q): no error", bad)
		}
	}
	// A password in OLLAMA_HOST is refused, masked: Ollama's client would
	// make it part of a host name and print it.
	t.Setenv("OLLAMA_HOST", "http://me:SECRET-PW@127.0.0.1:1")
	_, err := Endpoint("")
	if want := `OLLAMA_HOST "http://me:xxxxx@127.0.0.1:1" holds a user or password, which Ollama's client does not read from it: give the URL to --ollama, which sends them`; err == nil || err.Error() != want {
		t.Errorf("a password in OLLAMA_HOST: %v", err)
	}
	t.Setenv("OLLAMA_HOST", "x")
	if EndpointSource("") != "OLLAMA_HOST" || EndpointSource("y") != "--ollama" {
		t.Error("EndpointSource")
	}
}

func TestSameModel(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"qwen3", "qwen3:latest", true},
		{"qwen3:8b", "qwen3:8b", true},
		{"qwen3:8b", "qwen3:1.7b", false},
		{"hf.co/org/model", "hf.co/org/model:latest", true},
		{"registry:5000/m", "registry:5000/m:latest", true},
	} {
		if SameModel(tc.a, tc.b) != tc.same {
			t.Errorf("SameModel(%q, %q) != %v", tc.a, tc.b, tc.same)
		}
	}
}

// TestAModelNotPulledNamesThoseNearIt: a misspelt model is told the
// pulled models near its name, not to pull a model that does not exist;
// another tag of a pulled model is told the tags there are, and how to
// pull the one it named; a name near nothing is told to pull it.
func TestAModelNotPulledNamesThoseNearIt(t *testing.T) {
	base, o := fake(t)
	ctx := context.Background()
	for _, tc := range []struct {
		model, want string
		pull        bool
	}{
		{"scripted-goood", `model "scripted-goood" is not pulled on Ollama at ` + base.String() + `; did you mean "scripted-good"?`, false},
		{"Scripted-Weak", `did you mean "scripted-weak"?`, false},
		{"scripted-good:8b", `model "scripted-good:8b" is not pulled on Ollama at ` + base.String() + `; it has scripted-good:latest` +
			"\n  name that one, or run: ollama pull scripted-good:8b", true},
		{"llama3.1:70b", `model "llama3.1:70b" is not pulled on Ollama at ` + base.String() + "\n  run: ollama pull llama3.1:70b", true},
	} {
		_, err := o.Check(ctx, tc.model)
		var np *NotPulledError
		if !errors.As(err, &np) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "ollama pull") != tc.pull {
			t.Errorf("%s: %v\nwant %s", tc.model, err, tc.want)
		}
	}
}

func TestNearModels(t *testing.T) {
	pulled := []string{"llama3.1:latest", "qwen3:1.7b", "qwen3:8b", "hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M", "mistral:latest"}
	for _, tc := range []struct {
		model     string
		near      []string
		otherTags bool
	}{
		// Ollama reads a name without a tag as :latest.
		{"qwen3", []string{"qwen3:1.7b", "qwen3:8b"}, true},
		{"qwen3:8", []string{"qwen3:8b", "qwen3:1.7b"}, true},
		{"Qwen3:8B", []string{"qwen3:8b"}, false},
		{"lama3.1", []string{"llama3.1"}, false},
		{"llama3.1:latst", []string{"llama3.1:latest"}, true},
		{"mistrl", []string{"mistral"}, false},
		{"hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_S", []string{"hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M"}, true},
		{"gemma3:4b", nil, false},
		{"phi4", nil, false},
	} {
		near, other := nearModels(tc.model, pulled)
		if !slices.Equal(near, tc.near) || other != tc.otherTags {
			t.Errorf("nearModels(%q) = %q, %v; want %q, %v", tc.model, near, other, tc.near, tc.otherTags)
		}
	}
}

func fake(t *testing.T) (*url.URL, *Ollama) {
	t.Helper()
	_, base := rig.Ollama(t, nil, &fakeollama.Options{})
	return base, &Ollama{Client: NewClient(base), Base: base}
}

func TestCheckModel(t *testing.T) {
	base, o := fake(t)
	ctx := context.Background()
	m, err := o.Check(ctx, "scripted-good")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Supports("tools") || m.Supports("thinking") || len(m.Digest) != 64 || m.NumCtx != 8192 || m.ParameterSize != "8.2B" || m.Family != "qwen3" {
		t.Errorf("model %+v", m)
	}
	if _, err := o.Check(ctx, "scripted-good:latest"); err != nil {
		t.Errorf("with :latest: %v", err)
	}
	_, err = o.Check(ctx, "llama3.1:70b")
	if err == nil || !strings.Contains(err.Error(), "ollama pull llama3.1:70b") || !strings.Contains(err.Error(), base.String()) {
		t.Errorf("not pulled: %v", err)
	}
	_, err = o.Check(ctx, "scripted-notools")
	if err == nil || !strings.Contains(err.Error(), `"scripted-notools" does not support tools (its capabilities: completion)`) {
		t.Errorf("no tools: %v", err)
	}
	v, err := Ping(ctx, o.Client, base, "--ollama")
	if err != nil || v != "0.17.4" {
		t.Errorf("Ping: %q %v", v, err)
	}
	if load, err := o.Warmup(ctx, "scripted-good", nil, nil); err != nil || load <= 0 {
		t.Errorf("Warmup: %v %v", load, err)
	}
}

func TestPingUnreachable(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	base, _ := url.Parse("http://" + ln.Addr().String())
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Ping(ctx, NewClient(base), base, "OLLAMA_HOST")
	var u *Unreachable
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "cannot reach Ollama at "+base.String()+" (from OLLAMA_HOST): ") ||
		!strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("%v", err)
	}
}

// TestMessagesRedactTheOllamaURL: OLLAMA_HOST may hold a password (and a
// proxy's key in the query); no message repeats them.
func TestMessagesRedactTheOllamaURL(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	base, _ := url.Parse("http://me:SECRET-PW@" + addr + "/?key=SECRET-Q")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Ping(ctx, NewClient(base), base, "OLLAMA_HOST")
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "http://me:xxxxx@"+addr+"/?key=xxxxx") {
		t.Errorf("Ping: %v", err)
	}
	_, err = CheckModel(ctx, NewClient(base), base, "m")
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("CheckModel: %v", err)
	}
	if _, err := Endpoint("ftp://me:SECRET-PW@h"); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Endpoint: %v", err)
	}
}
