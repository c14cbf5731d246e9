package proxy_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/harness/proxy"
)

// TestChatterIsAsTheOfficialClient: the same chunks and the same errors as
// *api.Client, for answers, thinking, tool calls and every error kind.
func TestChatterIsAsTheOfficialClient(t *testing.T) {
	e := newEnv(t, nil)
	official := api.NewClient(e.upstream, http.DefaultClient)
	lean := &proxy.Chatter{Base: e.upstream}
	tools := e.tools.OllamaTools()
	for _, req := range []*api.ChatRequest{
		{Model: "scripted-good", Messages: userMsg("Can I bring my dog?"), Tools: tools},
		{Model: "scripted-think", Messages: userMsg("Can I bring my dog?"), Tools: tools},
		{Model: "scripted-good", Stream: boolPtr(false), Messages: userMsg("Check the hours and the menu."), Tools: tools},
		{Model: "nope", Messages: userMsg("hi"), Tools: tools},
		{Model: "scripted-notools", Messages: userMsg("hi"), Tools: tools},
		{Model: "scripted-good", Think: &api.ThinkValue{Value: true}, Messages: userMsg("hi")},
		{Model: "scripted-think", Messages: userMsg("break mid-stream"), Tools: tools},
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
			t.Errorf("%s %q: official %+v %v; proxy.Chatter %+v %v", req.Model, req.Messages[0].Content, a, errA, b, errB)
		}
	}
}
