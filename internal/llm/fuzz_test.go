package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	fakeollama "github.com/toolgrade/toolgrade/fakes/ollama"
)

// bodyTransport answers every request with one status and body, so a fuzz
// input reaches Chat's decoding through net/http's client without a socket.
type bodyTransport struct {
	status int
	body   []byte
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: b.status,
		Status:     fmt.Sprintf("%d %s", b.status, http.StatusText(b.status)),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/x-ndjson"}},
		Body:    io.NopCloser(bytes.NewReader(b.body)),
		Request: r,
	}, nil
}

// chatAll runs one chat over c and gathers its chunks.
func chatAll(c interface {
	Chat(context.Context, *api.ChatRequest, api.ChatResponseFunc) error
}) ([]api.ChatResponse, error) {
	var out []api.ChatResponse
	req := &api.ChatRequest{Model: "scripted-good", Messages: []api.Message{{Role: "user", Content: "hi"}}}
	err := c.Chat(context.Background(), req, func(r api.ChatResponse) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// ndjsonLines is how many lines a reader of body sees, as bufio.ScanLines
// splits it: a last line without its newline counts, an empty tail does not.
func ndjsonLines(body []byte) int {
	n := bytes.Count(body, []byte("\n"))
	if len(body) > 0 && body[len(body)-1] != '\n' {
		n++
	}
	return n
}

// FuzzStreamChat feeds any body to the /api/chat stream reader NewChatter
// picks, seeded with the streams captured from a real Ollama. Under an
// error status it always fails with that api.StatusError and delivers
// nothing; under 200 it delivers the same chunks and fails on the same
// inputs as Ollama's own client, and when it succeeds every line was one
// chunk. Whether a done line ended the stream is the caller's to check (the
// bridge loop's errNoDone, MeasureTools), as with Ollama's client, so it is
// not asserted here.
func FuzzStreamChat(f *testing.F) {
	caps, err := fakeollama.ReadCaptures()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range caps {
		if len(c.ResponseLines) == 0 {
			continue
		}
		status := c.HTTPStatus
		if status < 400 {
			status = 500
		}
		f.Add([]byte(strings.Join(c.ResponseLines, "\n")+"\n"), uint16(status))
	}
	for _, s := range []string{"", "\n", "null\n", "{}\n{\"done\":true}\n{}", "{\"error\":\"\"}\n", "{\"error\":5}\n", "[1]\n", "{\"done\":\"yes\"}\n", " {}\r\n"} {
		f.Add([]byte(s), uint16(401))
	}
	base := &url.URL{Scheme: "http", Host: "127.0.0.1:11434"}
	f.Fuzz(func(t *testing.T, body []byte, errStatus uint16) {
		errCode := 400 + int(errStatus)%200
		for _, status := range []int{http.StatusOK, errCode} {
			hc := &http.Client{Transport: bodyTransport{status: status, body: body}}
			c := NewChatter(base, hc, api.NewClient(base, hc))
			if _, lean := c.(*StreamChatter); !lean {
				t.Skip("OLLAMA_AUTH is set: NewChatter picks Ollama's own client")
			}
			got, err := chatAll(c)
			if status != http.StatusOK {
				var se api.StatusError
				if !errors.As(err, &se) || se.StatusCode != status || len(got) != 0 {
					t.Fatalf("HTTP %d: %d chunks and error %v, want only an api.StatusError %d", status, len(got), err, status)
				}
				continue
			}
			want, wantErr := chatAll(api.NewClient(base, hc))
			if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("StreamChatter: %d chunks, error %v; Ollama's client: %d chunks, error %v", len(got), err, len(want), wantErr)
			}
			if err == nil && len(got) != ndjsonLines(body) {
				t.Fatalf("no error, yet %d chunks from %d lines", len(got), ndjsonLines(body))
			}
		}
	})
}
