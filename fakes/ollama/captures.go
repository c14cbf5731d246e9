package fakeollama

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/api"
)

// CapturesFile is the file of responses captured from a real Ollama v0.17.4,
// in the project's shared/ollama folder (its README says what they show).
const CapturesFile = "captures-v0.17.4.jsonl"

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
	// ResponseLines is the body exactly as received, one NDJSON line each.
	ResponseLines []string `json:"response_lines"`
}

// SharedDir finds the project's shared/ollama folder, which sits beside the
// checkout (../shared) for developers and CI alike, searching up from dir.
func SharedDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "ollama")
		if _, err := os.Stat(filepath.Join(p, CapturesFile)); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("shared/ollama/%s not found above %s: the captures of a real Ollama are needed", CapturesFile, abs)
		}
	}
}

// ReadCaptures reads the captures file in the shared/ollama folder above dir.
func ReadCaptures(dir string) ([]Capture, error) {
	shared, err := SharedDir(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(shared, CapturesFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Capture
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for line := 1; sc.Scan(); line++ {
		var c Capture
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}
