package fakeollama

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"
)

// CapturesDir holds what was captured from a real Ollama v0.17.4: the
// responses (CapturesFile), the tool lists the chat requests offered
// (tools.json, fs-tools.json) and a README that says what they show.
const CapturesDir = "testdata/ollama-v0.17.4"

// CapturesFile is the file of responses captured from a real Ollama v0.17.4,
// one JSON Capture a line, in CapturesDir.
const CapturesFile = "captures-v0.17.4.jsonl"

// captures is CapturesFile, embedded so that the tests of every package can
// replay the real server's responses from any checkout.
//
//go:embed testdata/ollama-v0.17.4/captures-v0.17.4.jsonl
var captures []byte

// Capture is one exchange recorded from the real Ollama server.
type Capture struct {
	// Name says what was asked; chat exchanges also have Model, Round (1 for
	// the first request), Stream and Question.
	Name     string `json:"name"`
	Model    string `json:"model"`
	Round    int    `json:"round"`
	Stream   *bool  `json:"stream"`
	Question string `json:"question"`
	// RequestMessages are the messages sent in round 2 and later.
	RequestMessages []api.Message `json:"request_messages"`
	HTTPStatus      int           `json:"http_status"`
	// Headers are the response headers that matter to a client, where the
	// capture kept them (the origin and host rows).
	Headers map[string]string `json:"headers"`
	// ResponseLines is the body exactly as received, one NDJSON line each.
	ResponseLines []string `json:"response_lines"`
}

// ReadCaptures returns the exchanges captured from a real Ollama v0.17.4,
// in file order.
func ReadCaptures() ([]Capture, error) {
	var out []Capture
	sc := bufio.NewScanner(bytes.NewReader(captures))
	sc.Buffer(nil, 4<<20)
	for line := 1; sc.Scan(); line++ {
		var c Capture
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s/%s:%d: %v", CapturesDir, CapturesFile, line, err)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}
