package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
)

// TestStreamChatterIsAsTheOfficialClient: the same chunks, the same errors
// and the same headers as *api.Client, for answers, thinking, tool calls
// and every error kind.
func TestStreamChatterIsAsTheOfficialClient(t *testing.T) {
	script, err := fakeollama.DemoScript()
	if err != nil {
		t.Fatal(err)
	}
	script.Rules = append([]fakeollama.Rule{{User: &fakeollama.Matcher{Contains: "break mid-stream"}, Fault: fakeollama.FaultErrorMidStream,
		Reply: fakeollama.Reply{Content: "one two three", Chunks: 3}}}, script.Rules...)
	fake := fakeollama.New(script, &fakeollama.Options{Seed: 1})
	var mu sync.Mutex
	agents := map[string]int{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.Header.Get("User-Agent")+" "+r.Header.Get("Accept")]++
		mu.Unlock()
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	base, _ := url.Parse(up.URL)
	official := api.NewClient(base, http.DefaultClient)
	lean := &StreamChatter{Base: base}
	tools := rig.Catalog(t, nil, "docs").OllamaTools()
	user := func(s string) []api.Message { return []api.Message{{Role: "user", Content: s}} }
	no := false
	for _, req := range []*api.ChatRequest{
		{Model: "scripted-good", Messages: user("Can I bring my dog?"), Tools: tools},
		{Model: "scripted-think", Messages: user("Can I bring my dog?"), Tools: tools},
		{Model: "scripted-good", Stream: &no, Messages: user("Check the hours and the menu."), Tools: tools},
		{Model: "nope", Messages: user("hi"), Tools: tools},
		{Model: "scripted-notools", Messages: user("hi"), Tools: tools},
		{Model: "scripted-good", Think: &api.ThinkValue{Value: true}, Messages: user("hi")},
		{Model: "scripted-think", Messages: user("break mid-stream"), Tools: tools},
	} {
		run := func(c interface {
			Chat(context.Context, *api.ChatRequest, api.ChatResponseFunc) error
		}) ([]api.ChatResponse, error) {
			var out []api.ChatResponse
			err := c.Chat(context.Background(), req, func(r api.ChatResponse) error {
				out = append(out, r)
				return nil
			})
			return out, err
		}
		a, errA := run(official)
		b, errB := run(lean)
		// Call ids and times differ from one answer to the next: compare the rest.
		norm := func(rs []api.ChatResponse) {
			for i := range rs {
				rs[i].CreatedAt = rs[i].CreatedAt.Truncate(1 << 62)
				for j := range rs[i].Message.ToolCalls {
					rs[i].Message.ToolCalls[j].ID = ""
				}
				rs[i].Metrics = api.Metrics{}
			}
		}
		norm(a)
		norm(b)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(errA, errB) {
			t.Errorf("%s %q: official %+v %v; StreamChatter %+v %v", req.Model, req.Messages[0].Content, a, errA, b, errB)
		}
	}
	if len(agents) != 1 {
		t.Errorf("the two clients sent different headers: %v", agents)
	}
}

// TestNewChatterSignsWhereOllamasClientWould: requests Ollama's own client
// signs (OLLAMA_AUTH, or ollama.com) go through it; the others through the
// lean reader.
func TestNewChatterSignsWhereOllamasClientWould(t *testing.T) {
	client := api.NewClient(&url.URL{Scheme: "http", Host: "127.0.0.1:11434"}, http.DefaultClient)
	for _, tc := range []struct {
		host, auth string
		official   bool
	}{
		{"127.0.0.1:11434", "", false},
		{"ollama.com:443", "", true},
		{"127.0.0.1:11434", "1", true},
	} {
		t.Setenv("OLLAMA_AUTH", tc.auth)
		c := NewChatter(&url.URL{Scheme: "https", Host: tc.host}, http.DefaultClient, client)
		if _, isOfficial := c.(*api.Client); isOfficial != tc.official {
			t.Errorf("%s (OLLAMA_AUTH=%q): %T", tc.host, tc.auth, c)
		}
	}
}

// TestStreamChatterSaysTheStreamBrokeOff: a connection Ollama cuts
// mid-stream is an error that says whose stream it was, not a bare
// "unexpected EOF", since serve hands it to its clients as it is.
func TestStreamChatterSaysTheStreamBrokeOff(t *testing.T) {
	script := &fakeollama.Script{
		Models: []fakeollama.Model{{Name: "m"}},
		Rules:  []fakeollama.Rule{{Fault: fakeollama.FaultDrop, Reply: fakeollama.Reply{Content: "one two", Chunks: 2}}},
	}
	_, base := rig.Ollama(t, script, &fakeollama.Options{Latency: 0})
	var chunks int
	err := (&StreamChatter{Base: base}).Chat(context.Background(), &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hi"}}},
		func(api.ChatResponse) error { chunks++; return nil })
	if chunks != 1 || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(fmt.Sprint(err), "reading Ollama's stream: ") {
		t.Errorf("%d chunks, error %v", chunks, err)
	}
}
