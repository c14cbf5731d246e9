package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"

	"github.com/google/go-cmp/cmp"
	"github.com/ollama/ollama/api"
)

type capture = fakeollama.Capture

func loadCaptures(t *testing.T) []capture {
	t.Helper()
	out, err := fakeollama.ReadCaptures()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("only %d captures", len(out))
	}
	return out
}

// replay serves lines as the body of every request, as Ollama would.
func replay(t *testing.T, status int, lines []string) *api.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(status)
		for _, l := range lines {
			w.Write([]byte(l))
			w.Write([]byte("\n"))
		}
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return api.NewClient(u, srv.Client())
}

// decode runs a capture's body through the real client and the loop's
// accumulator.
func decode(t *testing.T, c capture) (*accumulator, error) {
	t.Helper()
	client := replay(t, c.HTTPStatus, c.ResponseLines)
	var acc accumulator
	err := client.Chat(context.Background(), &api.ChatRequest{Model: c.Model}, func(r api.ChatResponse) error {
		acc.add(r)
		return nil
	})
	return &acc, err
}

// callValues is a comparable form of tool calls: names and argument values,
// without ids (they change on every response) or key order.
func callValues(t *testing.T, acc *accumulator) []map[string]any {
	var out []map[string]any
	for _, c := range acc.resp.ToolCalls {
		var args map[string]any
		if err := json.Unmarshal(c.Arguments, &args); err != nil {
			t.Fatalf("arguments %s: %v", c.Arguments, err)
		}
		out = append(out, map[string]any{"name": c.Name, "index": c.Index, "args": args})
	}
	return out
}

// TestCapturedStreamsAgreeWithNonStreamed decodes every captured chat
// exchange that was recorded both streamed and not, and checks that the
// accumulated stream carries exactly what the single response did.
func TestCapturedStreamsAgreeWithNonStreamed(t *testing.T) {
	caps := loadCaptures(t)
	type key struct {
		model, question string
		round           int
	}
	pairs := map[key][2]*capture{}
	for i := range caps {
		c := &caps[i]
		if c.Stream == nil || c.Question == "" || c.HTTPStatus != 200 {
			continue
		}
		k := key{c.Model, c.Question, c.Round}
		p := pairs[k]
		if *c.Stream {
			p[1] = c
		} else {
			p[0] = c
		}
		pairs[k] = p
	}
	checked := 0
	idPattern := regexp.MustCompile(`^call_[a-z0-9]{8}$`)
	for k, p := range pairs {
		if p[0] == nil || p[1] == nil {
			continue
		}
		checked++
		single, err := decode(t, *p[0])
		if err != nil {
			t.Fatalf("%v stream=false: %v", k, err)
		}
		streamed, err := decode(t, *p[1])
		if err != nil {
			t.Fatalf("%v stream=true: %v", k, err)
		}
		if !streamed.done || !single.done {
			t.Errorf("%v: no done line decoded", k)
		}
		if streamed.resp.Content != single.resp.Content || streamed.resp.Thinking != single.resp.Thinking {
			t.Errorf("%v: streamed content %q thinking %q, single %q %q", k,
				streamed.resp.Content, streamed.resp.Thinking, single.resp.Content, single.resp.Thinking)
		}
		if d := cmp.Diff(callValues(t, single), callValues(t, streamed)); d != "" {
			t.Errorf("%v: tool calls differ (-single +streamed):\n%s", k, d)
		}
		if streamed.resp.DoneReason != "stop" || single.resp.DoneReason != "stop" {
			t.Errorf("%v: done_reason %q / %q, want stop", k, single.resp.DoneReason, streamed.resp.DoneReason)
		}
		if streamed.metrics.EvalCount == 0 || streamed.metrics.TotalDuration == 0 {
			t.Errorf("%v: metrics not decoded: %+v", k, streamed.metrics)
		}
		for _, tc := range streamed.resp.ToolCalls {
			if !idPattern.MatchString(tc.ID) {
				t.Errorf("%v: call id %q", k, tc.ID)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d streamed/non-streamed pairs checked", checked)
	}
}

// TestCapturedShapes checks the behaviours the captures' README lists, one by
// one, through the real client.
func TestCapturedShapes(t *testing.T) {
	caps := loadCaptures(t)
	find := func(model, question string, round int, stream bool) capture {
		for _, c := range caps {
			if c.Model == model && c.Question == question && c.Round == round && c.Stream != nil && *c.Stream == stream {
				return c
			}
		}
		t.Fatalf("no capture %s %q round %d stream=%v", model, question, round, stream)
		return capture{}
	}
	named := func(prefix string) capture {
		for _, c := range caps {
			if strings.HasPrefix(c.Name, prefix) {
				return c
			}
		}
		t.Fatalf("no capture named %q", prefix)
		return capture{}
	}

	t.Run("one call in its own chunk, done line without calls", func(t *testing.T) {
		acc, err := decode(t, find("scripted-good", "Can I bring my dog?", 1, true))
		if err != nil {
			t.Fatal(err)
		}
		want := []map[string]any{{"name": "search", "index": 0, "args": map[string]any{"query": "can I bring a dog", "top_k": 5.0}}}
		if d := cmp.Diff(want, callValues(t, acc)); d != "" {
			t.Error(d)
		}
		if acc.resp.Chunks != 2 || acc.resp.Content != "" {
			t.Errorf("chunks %d content %q", acc.resp.Chunks, acc.resp.Content)
		}
	})
	t.Run("two calls in separate chunks", func(t *testing.T) {
		acc, err := decode(t, find("scripted-good", "Check the hours and the menu.", 1, true))
		if err != nil {
			t.Fatal(err)
		}
		got := callValues(t, acc)
		if len(got) != 2 || got[0]["index"] != 0 || got[1]["index"] != 1 {
			t.Fatalf("calls %v", got)
		}
		if acc.resp.ToolCalls[0].ID == acc.resp.ToolCalls[1].ID {
			t.Errorf("both calls have id %s", acc.resp.ToolCalls[0].ID)
		}
	})
	t.Run("content accumulated over chunks", func(t *testing.T) {
		acc, err := decode(t, find("scripted-good", "Can I bring my dog?", 2, true))
		if err != nil {
			t.Fatal(err)
		}
		if acc.resp.Content != "Yes. Dogs are welcome on the terrace." {
			t.Errorf("content %q", acc.resp.Content)
		}
	})
	t.Run("thinking streamed before the call", func(t *testing.T) {
		acc, err := decode(t, find("scripted-think", "Can I bring my dog?", 1, true))
		if err != nil {
			t.Fatal(err)
		}
		if acc.resp.Thinking != "The user asks about dogs." || len(acc.resp.ToolCalls) != 1 || strings.Contains(acc.resp.Content, "think") {
			t.Errorf("thinking %q calls %d content %q", acc.resp.Thinking, len(acc.resp.ToolCalls), acc.resp.Content)
		}
	})
	t.Run("a tool that was not offered gives the empty answer", func(t *testing.T) {
		acc, err := decode(t, find("scripted-good", "Use the weather tool.", 1, true))
		if err != nil {
			t.Fatal(err)
		}
		if acc.resp.Content != "" || len(acc.resp.ToolCalls) != 0 || acc.resp.DoneReason != "stop" {
			t.Errorf("%+v", acc.resp)
		}
	})
	t.Run("cut answer ends with length", func(t *testing.T) {
		acc, err := decode(t, named("num_predict 2"))
		if err != nil {
			t.Fatal(err)
		}
		if acc.resp.DoneReason != "length" {
			t.Errorf("done_reason %q", acc.resp.DoneReason)
		}
	})
	t.Run("model without tools: 400 before anything streams", func(t *testing.T) {
		c := named("/api/chat WITH tools")
		c.Model = "scripted-notools"
		acc, err := decode(t, c)
		var se api.StatusError
		if !errorsAs(err, &se) || se.StatusCode != 400 || !strings.HasSuffix(se.ErrorMessage, "does not support tools") {
			t.Fatalf("err %v", err)
		}
		if acc.resp.Chunks != 0 {
			t.Errorf("%d chunks before the error", acc.resp.Chunks)
		}
		f := classify(context.Background(), err)
		if f.Kind != "ollama" || f.HTTPStatus != 400 || f.Message != se.ErrorMessage {
			t.Errorf("classified %+v", f)
		}
	})
	t.Run("think on a model without thinking", func(t *testing.T) {
		_, err := decode(t, named("think:true on a model without"))
		var se api.StatusError
		if !errorsAs(err, &se) || se.ErrorMessage != `"scripted-good" does not support thinking` {
			t.Fatalf("err %v", err)
		}
	})
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
