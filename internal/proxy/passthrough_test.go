package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/internal/proxy"
)

func TestGenerateStreamsThroughLineByLine(t *testing.T) {
	e := newEnv(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a deadlock guard only
	defer cancel()
	var got []api.GenerateResponse
	err := e.client.Generate(ctx, &api.GenerateRequest{Model: "scripted-good", Prompt: "hi"}, func(r api.GenerateResponse) error {
		if len(got) == 0 {
			close(e.gate) // the first line came before the second was sent
		}
		got = append(got, r)
		return nil
	})
	if err != nil || len(got) != 2 || got[0].Response != "Hello" || !got[1].Done || got[1].EvalCount != 2 {
		t.Fatalf("%v: %+v", err, got)
	}
}

func TestPullStreamsThrough(t *testing.T) {
	e := newEnv(t, nil)
	pull := func(c *api.Client) []api.ProgressResponse {
		var out []api.ProgressResponse
		err := c.Pull(context.Background(), &api.PullRequest{Model: "scripted-good"}, func(p api.ProgressResponse) error {
			out = append(out, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	via, direct := pull(e.client), pull(api.NewClient(e.upstream, http.DefaultClient))
	if len(via) < 3 || !reflect.DeepEqual(via, direct) {
		t.Errorf("through the proxy %+v; direct %+v", via, direct)
	}
}

func TestListShowAndOtherPathsPassThrough(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	direct := api.NewClient(e.upstream, http.DefaultClient)
	l1, err1 := e.client.List(ctx)
	l2, err2 := direct.List(ctx)
	if err1 != nil || err2 != nil || len(l1.Models) != 5 || !reflect.DeepEqual(l1, l2) {
		t.Errorf("list %v %v: %+v vs %+v", err1, err2, l1, l2)
	}
	s1, err1 := e.client.Show(ctx, &api.ShowRequest{Model: "scripted-think"})
	s2, err2 := direct.Show(ctx, &api.ShowRequest{Model: "scripted-think"})
	if err1 != nil || err2 != nil || !reflect.DeepEqual(s1, s2) || len(s1.Capabilities) != 3 {
		t.Errorf("show %v %v", err1, err2)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/version", ""},
		{"GET", "/", ""},
		{"POST", "/api/show", `{"model":"nope"}`},
		{"GET", "/no/such/path", ""},
		{"GET", "/api/chat", ""},
		{"POST", "/v1/chat/completions", `{"model":"scripted-good"}`},
		{"POST", "/api/chat", `{"model":"scripted-good","messages":[]}`},
	} {
		do := func(base string) (int, string, string) {
			req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b strings.Builder
			buf := make([]byte, 1<<16)
			for {
				n, err := resp.Body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			return resp.StatusCode, b.String(), resp.Header.Get("Content-Type")
		}
		gs, gb, gt := do(e.url.String())
		ds, db, dt := do(e.upstream.String())
		// created_at of a load answer is the fake's clock: compare the rest.
		if tc.path == "/api/chat" {
			gb, db = gb[:10], db[:10]
		}
		if gs != ds || gb != db || gt != dt {
			t.Errorf("%s %s: proxy %d %q %q; Ollama %d %q %q", tc.method, tc.path, gs, gb, gt, ds, db, dt)
		}
	}
}

func TestHealth(t *testing.T) {
	e := newEnv(t, nil)
	get := func(base string) (int, proxy.Health) {
		resp, err := http.Get(base + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h proxy.Health
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, h
	}
	// Without a HealthFunc: 200 and no details.
	if code, h := get(e.url.String()); code != 200 || h.Status != "ok" {
		t.Errorf("%d %+v", code, h)
	}
	srv, _ := proxy.New(proxy.Options{Upstream: e.upstream, Chat: e.client, Tools: e.tools, Health: func(ctx context.Context) proxy.Health {
		return proxy.Health{Status: "unavailable", Reason: "server docs has dropped"}
	}})
	rec := newRecorder()
	req, _ := http.NewRequest("GET", "/health", nil)
	srv.ServeHTTP(rec, req)
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"reason":"server docs has dropped"`) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

func TestCORS(t *testing.T) {
	e := newEnv(t, nil)
	pre := func(origin string) *http.Response {
		req, _ := http.NewRequest("OPTIONS", e.url.JoinPath("/api/chat").String(), nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := pre("http://app.example"); r.StatusCode != 204 || r.Header.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("allowed origin: %d %v", r.StatusCode, r.Header)
	}
	if r := pre("http://evil.example"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin: %d %v", r.StatusCode, r.Header)
	}
}

// TestAnAllowedOriginIsNotPassedOn: Ollama refuses origins it does not
// know, so the proxy answers for the ones it allows.
func TestAnAllowedOriginIsNotPassedOn(t *testing.T) {
	e := newEnv(t, nil)
	req, _ := http.NewRequest("GET", e.url.JoinPath("/api/tags").String(), nil)
	req.Header.Set("Origin", "http://app.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("%d %v", resp.StatusCode, resp.Header)
	}
	reqs := e.fake.Requests()
	if last := reqs[len(reqs)-1]; last.Path != "/api/tags" {
		t.Errorf("last request %s", last.Path)
	}
}
