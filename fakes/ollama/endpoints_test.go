package fakeollama

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

func TestPull(t *testing.T) {
	h := demoHarness(t, nil)
	var statuses []string
	err := h.client.Pull(context.Background(), &api.PullRequest{Model: "scripted-good"}, func(p api.ProgressResponse) error {
		if strings.HasPrefix(p.Status, "pulling ") && p.Status != "pulling manifest" {
			if !strings.HasPrefix(p.Digest, "sha256:") || p.Status != "pulling "+p.Digest[7:19] || p.Total == 0 || p.Completed == 0 {
				t.Errorf("progress %+v", p)
			}
			if len(statuses) > 0 && statuses[len(statuses)-1] == p.Status {
				return nil
			}
		}
		statuses = append(statuses, p.Status)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(statuses) != 6 || statuses[0] != "pulling manifest" || !slices.Equal(statuses[3:], []string{"verifying sha256 digest", "writing manifest", "success"}) {
		t.Errorf("statuses %q", statuses)
	}

	statuses = nil
	err = h.client.Pull(context.Background(), &api.PullRequest{Model: "no-such-model"}, func(p api.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		return nil
	})
	if err == nil || err.Error() != pullMissing || !slices.Equal(statuses, []string{"pulling manifest"}) {
		t.Errorf("unknown model: err %v, statuses %q", err, statuses)
	}

	err = h.client.Pull(context.Background(), &api.PullRequest{Model: "no-such-model", Stream: ptr(false)}, func(api.ProgressResponse) error { return nil })
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != pullMissing {
		t.Errorf("unknown model without streaming: %v", err)
	}
	statuses = nil
	err = h.client.Pull(context.Background(), &api.PullRequest{Model: "scripted-good", Stream: ptr(false)}, func(p api.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		return nil
	})
	if err != nil || !slices.Equal(statuses, []string{"success"}) {
		t.Errorf("without streaming: %v %q", err, statuses)
	}
}

func TestShowListVersionThroughClient(t *testing.T) {
	s := &Script{Models: []Model{
		{Name: "big:70b", Family: "qwen2", ParameterSize: "70.6B", Quantization: "Q4_K_M", NumCtx: 32768, Capabilities: []string{"completion", "tools", "thinking"}},
		{Name: "small"},
	}}
	clock := &testClock{t: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)}
	h := newHarness(t, s, &Options{Clock: clock.now})
	ctx := context.Background()

	show, err := h.client.Show(ctx, &api.ShowRequest{Model: "big:70b"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(show.Capabilities, []model.Capability{"completion", "tools", "thinking"}) ||
		show.Details.Family != "qwen2" || show.Details.ParameterSize != "70.6B" || show.Details.QuantizationLevel != "Q4_K_M" ||
		show.Parameters != "num_ctx                        32768" || show.ModelInfo["general.architecture"] != "qwen2" ||
		show.ModelInfo["general.parameter_count"] != float64(70_600_000_000) || !show.ModifiedAt.Equal(clock.now()) {
		t.Errorf("show %+v", show)
	}
	show, err = h.client.Show(ctx, &api.ShowRequest{Name: "small"})
	if err != nil || !slices.Equal(show.Capabilities, []model.Capability{"completion", "tools"}) || show.Details.Family != "llama" ||
		show.Details.ParameterSize != "8B" || show.Parameters != "num_ctx                        8192" {
		t.Errorf("show defaults %+v, %v", show, err)
	}

	list, err := h.client.List(ctx)
	if err != nil || len(list.Models) != 2 || list.Models[0].Name != "big:70b" || list.Models[1].Name != "small:latest" ||
		list.Models[1].Model != "small:latest" || list.Models[0].Digest == list.Models[1].Digest || list.Models[0].Size <= list.Models[1].Size {
		t.Errorf("list %+v, %v", list, err)
	}

	if v, err := h.client.Version(ctx); err != nil || v != DefaultVersion {
		t.Errorf("version %q, %v", v, err)
	}
	if err := h.client.Heartbeat(ctx); err != nil {
		t.Errorf("heartbeat: %v", err)
	}
	status, ct, body := h.get(t, "/")
	if status != 200 || body != "Ollama is running" || !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("GET /: %d %q %q", status, ct, body)
	}

	ps, err := h.client.ListRunning(ctx)
	if err != nil || len(ps.Models) != 0 {
		t.Fatalf("ps before any chat %+v, %v", ps, err)
	}
	h.chat(t, &api.ChatRequest{Model: "small", Messages: user("q")})
	clock.add(time.Minute)
	h.chat(t, &api.ChatRequest{Model: "big:70b", Messages: user("q"), KeepAlive: &api.Duration{Duration: time.Hour}})
	ps, err = h.client.ListRunning(ctx)
	if err != nil || len(ps.Models) != 2 || ps.Models[0].Name != "big:70b" || !ps.Models[0].ExpiresAt.Equal(clock.now().Add(time.Hour)) ||
		ps.Models[1].Name != "small:latest" || ps.Models[1].ContextLength != 8192 {
		t.Errorf("ps %+v, %v", ps, err)
	}
	clock.add(10 * time.Minute) // small's keep-alive has run out
	if ps, _ = h.client.ListRunning(ctx); len(ps.Models) != 1 {
		t.Errorf("ps after small expired: %+v", ps)
	}
	ex := h.chat(t, &api.ChatRequest{Model: "small", Messages: user("q")})
	if last := ex.resps[len(ex.resps)-1]; last.LoadDuration != coldLoad {
		t.Errorf("reload after expiry: load_duration %v", last.LoadDuration)
	}
}

func TestRoutes(t *testing.T) {
	h := demoHarness(t, nil)
	if status, ct, body := h.get(t, "/api/nothing"); status != 404 || body != "404 page not found" || !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("unknown path: %d %q %q", status, ct, body)
	}
	if status, _, body := h.get(t, "/api/chat"); status != 405 || body != "405 method not allowed" {
		t.Errorf("GET /api/chat: %d %q", status, body)
	}
	if status, body := h.post(t, "/api/show", `{}`); status != 400 || body != `{"error":"model is required"}` {
		t.Errorf("show without model: %d %s", status, body)
	}
	if status, body := h.post(t, "/api/show", `{"model":"x"}`); status != 404 || body != `{"error":"model 'x' not found"}` {
		t.Errorf("show unknown: %d %s", status, body)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 4 || reqs[1].Method != "GET" || reqs[1].Path != "/api/chat" || reqs[1].Chat != nil || string(reqs[3].Body) != `{"model":"x"}` {
		t.Errorf("requests %+v", reqs)
	}
}

func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript("testdata/captures.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(s, &Options{Latency: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	base := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := api.NewClient(base, &http.Client{Transport: tr})
	if err := client.Heartbeat(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A chat waiting out its hour of latency must not hold up the stop.
	chatted := make(chan error, 1)
	go func() {
		chatted <- client.Chat(context.Background(), &api.ChatRequest{Model: "scripted-good", Messages: user("q")}, func(api.ChatResponse) error { return nil })
	}()
	for len(srv.Requests()) < 2 {
		select {
		case err := <-chatted:
			t.Fatalf("chat ended early: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop")
	}
	select {
	case <-chatted:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting chat was not released")
	}
	if err := client.Heartbeat(context.Background()); err == nil {
		t.Error("the server still answers after Serve returned")
	}
}

// testClock is a clock a test moves by hand; the server reads it from its
// handler goroutines.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestClientQuirks pins what api.Client v0.17.4 does with error answers,
// which callers of the fake (and of a real Ollama) must know.
func TestClientQuirks(t *testing.T) {
	h := demoHarness(t, nil)
	ctx := context.Background()

	// Non-streaming calls (do + checkError) DO return HTTP errors, as a
	// StatusError without Status, so Error() is the bare message.
	_, err := h.client.Show(ctx, &api.ShowRequest{Model: "nope"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.Status != "" || err.Error() != "model 'nope' not found" {
		t.Errorf("Show: %#v", err)
	}
	// Chat and Pull (stream) return the first line of an error answer as a
	// StatusError with Status, whether or not stream is false.
	err = h.client.Chat(ctx, &api.ChatRequest{Model: "nope", Stream: ptr(false)}, func(api.ChatResponse) error { return nil })
	if !errors.As(err, &se) || se.StatusCode != 404 || err.Error() != "404 Not Found: model 'nope' not found" {
		t.Errorf("Chat: %#v", err)
	}

	// But an error status with an empty body reads as success with no
	// response at all.
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer empty.Close()
	base, _ := url.Parse(empty.URL)
	c := api.NewClient(base, empty.Client())
	called := false
	err = c.Chat(ctx, &api.ChatRequest{Model: "m"}, func(api.ChatResponse) error { called = true; return nil })
	if err != nil || called {
		t.Errorf("Chat on an empty 502: err %v, called %v", err, called)
	}
	if _, err := c.Show(ctx, &api.ShowRequest{Model: "m"}); !errors.As(err, &se) || se.StatusCode != 502 {
		t.Errorf("Show on an empty 502: %#v", err)
	}
}

// TestPsListsTheLoadedMemory: as the captured Ollama does, /api/ps lists a
// loaded model as larger than its file (the KV cache of its context and
// buffers), more for a larger model and a longer context, with size_vram 0
// on a CPU and the whole size with gpu: true.
func TestPsListsTheLoadedMemory(t *testing.T) {
	s := &Script{Models: []Model{
		{Name: "small", ParameterSize: "1.7B"},
		{Name: "big", ParameterSize: "8.2B", GPU: true},
		{Name: "long", ParameterSize: "1.7B", NumCtx: 32768},
	}}
	h := newHarness(t, s, nil)
	ctx := context.Background()
	for _, m := range []string{"small", "big", "long"} {
		h.chat(t, &api.ChatRequest{Model: m, Messages: user("q")})
	}
	tags, err := h.client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := h.client.ListRunning(ctx)
	if err != nil || len(ps.Models) != 3 {
		t.Fatalf("ps %+v, %v", ps, err)
	}
	file, loaded, vram := map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, m := range tags.Models {
		file[m.Name] = m.Size
	}
	for _, m := range ps.Models {
		loaded[m.Name], vram[m.Name] = m.Size, m.SizeVRAM
	}
	for name, f := range file {
		if loaded[name] <= f {
			t.Errorf("%s: loaded %d, not more than its file %d", name, loaded[name], f)
		}
	}
	if !(loaded["big:latest"] > loaded["small:latest"] && loaded["long:latest"] > loaded["small:latest"]) {
		t.Errorf("loaded sizes %v: want big and long above small", loaded)
	}
	if vram["small:latest"] != 0 || vram["big:latest"] != loaded["big:latest"] {
		t.Errorf("size_vram %v (loaded %v): want 0 on the CPU, all with gpu", vram, loaded)
	}
}

// TestPsListsWeightsOnceAtTheirLoadedContext: as Ollama's scheduler keeps
// one runner per weights file, two names for the same weights (same_weights)
// share one digest and one loaded copy, listed under the name that loaded
// it; the context listed is the num_ctx the model was loaded with, and a
// request with another loads it again; with max_loaded 2 a third model
// unloads the one used longest ago.
func TestPsListsWeightsOnceAtTheirLoadedContext(t *testing.T) {
	s := &Script{MaxLoaded: 2, Models: []Model{
		{Name: "qwen3:8b"}, {Name: "my-qwen", SameWeights: "qwen3:8b"}, {Name: "other"}, {Name: "third"},
	}}
	h := newHarness(t, s, nil)
	ctx := context.Background()
	ps := func() map[string]api.ProcessModelResponse {
		t.Helper()
		got, err := h.client.ListRunning(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]api.ProcessModelResponse{}
		for _, m := range got.Models {
			out[m.Name] = m
		}
		return out
	}
	load := func(m string, numCtx int) {
		h.chat(t, &api.ChatRequest{Model: m, Messages: []api.Message{}, Options: map[string]any{"num_ctx": numCtx}})
	}
	load("qwen3:8b", 4096)
	load("my-qwen", 4096)
	got := ps()
	if len(got) != 1 || got["qwen3:8b"].ContextLength != 4096 {
		t.Fatalf("ps after loading both names %+v, want qwen3:8b alone at 4096", got)
	}
	tags, err := h.client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	digests := map[string]string{}
	for _, m := range tags.Models {
		digests[m.Name] = m.Digest
	}
	if digests["qwen3:8b"] == "" || digests["qwen3:8b"] != digests["my-qwen:latest"] || digests["other:latest"] == digests["qwen3:8b"] {
		t.Errorf("digests %v: the two names of one weights share one, the other model has its own", digests)
	}
	small := ps()["qwen3:8b"].Size
	ex := h.chat(t, &api.ChatRequest{Model: "my-qwen", Messages: user("q"), Options: map[string]any{"num_ctx": 16384}})
	if len(ex.lines) == 0 {
		t.Fatal("no answer")
	}
	got = ps()
	if m, ok := got["my-qwen:latest"]; !ok || m.ContextLength != 16384 || m.Size <= small {
		t.Errorf("ps after a request at num_ctx 16384 %+v: the weights reloaded by my-qwen, larger", got)
	}
	load("other", 4096)
	load("third", 4096)
	got = ps()
	if _, ok := got["my-qwen:latest"]; ok || len(got) != 2 {
		t.Errorf("ps %+v: with max_loaded 2, loading a third unloads the weights used longest ago", got)
	}
}
