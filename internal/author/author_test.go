package author

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/toolgrade/toolgrade/fakes/rig"
	"github.com/toolgrade/toolgrade/internal/backoff"
	"github.com/toolgrade/toolgrade/internal/llm"
)

// cannedChat answers each request with the reply of the first key its user
// message contains, and keeps the requests.
type cannedChat struct {
	replies  map[string]string
	requests []*api.ChatRequest
}

func (c *cannedChat) Chat(_ context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	c.requests = append(c.requests, req)
	user := req.Messages[len(req.Messages)-1].Content
	for k, v := range c.replies {
		if strings.Contains(user, k) {
			return fn(api.ChatResponse{Message: api.Message{Content: v}, Done: true})
		}
	}
	return fn(api.ChatResponse{Message: api.Message{Content: `{"questions": []}`}, Done: true})
}

// The author is shown the tool, its schema and the other tools; asked with
// a JSON schema format, temperature 0 and the seed; a fenced reply is read,
// questions without text or with arguments that are not an object dropped.
func TestGenerateShowsTheCatalogAndChecksTheReplies(t *testing.T) {
	cat := rig.Catalog(t, nil, "docs")
	chat := &cannedChat{replies: map[string]string{
		"need the tool `search`": "```json\n" + `{"questions": [{"question": "Any vegan dishes?", "arguments": {"query": "vegan"}},` +
			`{"question": "  ", "arguments": {"query": "x"}}, {"question": "Dogs?", "arguments": ["dog"]}]}` + "\n```",
		"need the tool `list_documents`": `{"questions": [{"question": "What documents are there?", "arguments": null}]}`,
		"need the tool `get_document`":   `{"answers": []}`,
	}}
	var log bytes.Buffer
	s := &Spec{Model: &llm.Model{Name: "author:8b", Digest: "sha256:abc"}, Chat: chat, Tools: cat.Tools(), PerTool: 2, Seed: 7, Confusable: 0.9, Log: &log, LogName: "d.gen.jsonl"}
	res, err := Generate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 3 || res.Questions != 4 || res.Dropped != 2 || len(res.Cases) != 2 || len(res.Unread) != 1 || len(res.Pairs) != 0 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Unread[0], "the tool get_document: the reply has no questions list") {
		t.Errorf("unread %v", res.Unread)
	}
	var search *api.ChatRequest
	for _, r := range chat.requests {
		if strings.Contains(r.Messages[1].Content, "need the tool `search`") {
			search = r
		}
		if r.Options["temperature"] != 0 || r.Options["seed"] != 7 || r.Stream == nil || *r.Stream {
			t.Errorf("options %v, stream %v", r.Options, r.Stream)
		}
	}
	user := search.Messages[1].Content
	for _, w := range []string{"Write 2 different questions", `"query"`, "The other tools, which these questions must not need:", "- `get_document`: Return the full text", "- `list_documents`:"} {
		if !strings.Contains(user, w) {
			t.Errorf("the search prompt lacks %q:\n%s", w, user)
		}
	}
	var format map[string]any
	if err := json.Unmarshal(search.Format, &format); err != nil || !strings.Contains(string(search.Format), `"required":["question","arguments"]`) {
		t.Errorf("format %s: %v", search.Format, err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines", len(lines))
	}
	for _, l := range lines {
		var e Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Digest != "sha256:abc" || e.Seed != 7 {
			t.Errorf("log line %s: %v", l, err)
		}
	}
	if !strings.Contains(log.String(), `"dropped":"it has no question text"`) || !strings.Contains(log.String(), `its arguments are not a JSON object: \"[\\\"dog\\\"]\"`) {
		t.Errorf("log:\n%s", log.String())
	}
	// A tool that takes no arguments: null is read as {}.
	if c := res.Cases[0]; c.Expect.Calls[0].Tool != "list_documents" || string(c.Expect.Calls[0].Args) != "{}" {
		t.Errorf("case %+v", c.Expect)
	}
}

func TestReadReplySaysWhatCameBack(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"I cannot do that.", `the reply is not the JSON asked for (invalid character 'I' looking for beginning of value): "I cannot do that."`},
		{`{"questions": 3}`, "the reply is not the JSON asked for (json: cannot unmarshal number"},
		{`{}`, `the reply has no questions list: "{}"`},
	} {
		if _, err := readReply(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	if r, err := readReply("```\n{\"questions\": []}\n```"); err != nil || r.Questions == nil {
		t.Errorf("a fenced reply: %v", err)
	}
}

// downChat fails every request, as an Ollama that answers HTTP 500.
type downChat struct{ n int }

func (c *downChat) Chat(context.Context, *api.ChatRequest, api.ChatResponseFunc) error {
	c.n++
	return errors.New("llama runner process has terminated")
}

// TestFailedRequestBacksOff: a failed request is sent Attempts times, with
// a run's backoff between them (0.5 s, then 1 s), and then Generate gives
// up, saying how many attempts it made.
func TestFailedRequestBacksOff(t *testing.T) {
	chat := &downChat{}
	var waits []time.Duration
	s := &Spec{Model: &llm.Model{Name: "author:8b"}, Chat: chat, Tools: rig.Catalog(t, nil, "docs").Tools(), PerTool: 1, Log: io.Discard,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	_, err := Generate(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "(3 attempts)") || chat.n != Attempts || !slices.Equal(waits, []time.Duration{backoff.First, 2 * backoff.First}) {
		t.Errorf("err %v, %d requests, waits %v; want %d requests with waits of 0.5s and 1s", err, chat.n, waits, Attempts)
	}
}
