package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
	"github.com/toolgrade/toolgrade/fakes/rig"
)

// bigTools is n tools whose descriptions are each desc bytes long.
func bigTools(n, desc int) api.Tools {
	var ts api.Tools
	for i := range n {
		var tool api.Tool
		tool.Type = "function"
		tool.Function.Name = "tool_" + strings.Repeat("x", i+1)
		tool.Function.Description = strings.Repeat("d", desc)
		tool.Function.Parameters.Type = "object"
		ts = append(ts, tool)
	}
	return ts
}

// The measurement is two minimal requests, with the tools and without, and
// its count grows with the tools: the fake counts 4 bytes of the request's
// messages and tools a token, as a tokenizer would count them.
func TestMeasureToolsCountsTheToolsShare(t *testing.T) {
	srv, base := rig.Ollama(t, nil, &fakeollama.Options{})
	c := NewClient(base)
	ctx := context.Background()
	small, err := MeasureTools(ctx, c, MeasureRequest{Model: "scripted-good", Tools: bigTools(1, 40), NumCtx: 8192})
	if err != nil {
		t.Fatal(err)
	}
	tools := bigTools(3, 400)
	big, err := MeasureTools(ctx, c, MeasureRequest{Model: "scripted-good", Tools: tools, System: "Be brief.", NumCtx: 8192})
	if err != nil {
		t.Fatal(err)
	}
	toolJSON, _ := json.Marshal(tools)
	// The fake's prompt is {"messages":[...],"tools":[...]}: the tools' share
	// is their JSON plus the key, in 4-byte tokens.
	if want := len(toolJSON) / 4; big.Tools() < want || big.Tools() > want+3 {
		t.Errorf("tools' share %d (%+v), want about %d", big.Tools(), big, want)
	}
	if small.Tools() >= big.Tools() || small.Tools() <= 0 || big.WithoutTools <= small.WithoutTools {
		t.Errorf("small %+v, big %+v", small, big)
	}
	if !big.Fits() || big.NumCtx != 8192 {
		t.Errorf("%+v does not fit", big)
	}

	reqs := srv.Requests()
	var chats []*api.ChatRequest
	for _, r := range reqs {
		if r.Chat != nil {
			chats = append(chats, r.Chat)
		}
	}
	if len(chats) != 4 {
		t.Fatalf("%d chat requests, want 4", len(chats))
	}
	with, without := chats[2], chats[3]
	if len(with.Tools) != 3 || len(without.Tools) != 0 {
		t.Errorf("tools sent: %d, then %d", len(with.Tools), len(without.Tools))
	}
	for _, r := range []*api.ChatRequest{with, without} {
		if r.Stream == nil || *r.Stream || r.Options["num_predict"] != float64(1) || len(r.Messages) != 2 ||
			r.Messages[0].Content != "Be brief." || r.Messages[1].Role != "user" {
			t.Errorf("request %+v", r)
		}
	}
}

// A prompt cut at num_ctx does not fit; -o num_ctx overrides the model's.
func TestMeasureToolsAtNumCtx(t *testing.T) {
	_, base := rig.Ollama(t, nil, &fakeollama.Options{})
	size, err := MeasureTools(context.Background(), NewClient(base), MeasureRequest{
		Model: "scripted-good", Tools: bigTools(4, 400), NumCtx: 8192, Options: map[string]any{"num_ctx": int64(256)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if size.NumCtx != 256 || size.WithTools != 256 || size.Fits() {
		t.Errorf("%+v: want cut at num_ctx 256, not fitting", size)
	}
}

func TestMeasureToolsUnknownModel(t *testing.T) {
	_, base := rig.Ollama(t, nil, &fakeollama.Options{})
	_, err := MeasureTools(context.Background(), NewClient(base), MeasureRequest{Model: "no-such-model", Tools: bigTools(1, 4)})
	if err == nil || !strings.Contains(err.Error(), `measuring the prompt of "no-such-model" with 1 tool:`) {
		t.Errorf("%v", err)
	}
}

// A model whose /api/show gives no num_ctx: the context it was loaded with
// comes from /api/ps.
func TestMeasureToolsReadsTheLoadedContext(t *testing.T) {
	_, base := rig.Ollama(t, nil, &fakeollama.Options{})
	c := NewClient(base)
	size, err := MeasureTools(context.Background(), c, MeasureRequest{Model: "scripted-good", Tools: bigTools(1, 4), Running: c})
	if err != nil || size.NumCtx != 8192 {
		t.Errorf("%+v, %v: want num_ctx 8192 from /api/ps", size, err)
	}
	size, err = MeasureTools(context.Background(), c, MeasureRequest{Model: "scripted-good", Tools: bigTools(1, 4)})
	if err != nil || size.NumCtx != 0 || !size.Fits() {
		t.Errorf("%+v, %v: want num_ctx unknown, fitting", size, err)
	}
}
