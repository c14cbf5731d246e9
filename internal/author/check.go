package author

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolgrade/toolgrade/internal/toolschema"
)

// reply is the JSON an author is asked for.
type reply struct {
	Questions []struct {
		Question  any             `json:"question"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"questions"`
}

// readReply reads a reply's questions; the error says what came back
// instead of the JSON asked for. A reply fenced as a Markdown code block is
// read inside the fence: models add one even under a format.
func readReply(text string) (*reply, error) {
	body := strings.TrimSpace(text)
	if strings.HasPrefix(body, "```") {
		body = strings.TrimPrefix(strings.TrimPrefix(body, "```json"), "```")
		body = strings.TrimSpace(strings.TrimSuffix(body, "```"))
	}
	var r reply
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("the reply is not the JSON asked for (%v): %s", err, quote(text, 200))
	}
	if r.Questions == nil {
		return nil, fmt.Errorf("the reply has no questions list: %s", quote(text, 200))
	}
	return &r, nil
}

// check is one question of a reply made a Drafted: the tool it needs and
// its arguments checked against that tool's schema; Dropped says why it
// cannot be a case.
func check(a ask, q int, r *reply, tools map[string]*toolschema.Tool) Drafted {
	item := r.Questions[q]
	d := Drafted{Tool: item.Tool, Arguments: item.Arguments}
	text, _ := item.Question.(string)
	d.Question = strings.TrimSpace(text)
	if d.Question == "" {
		d.Dropped = "it has no question text"
		return d
	}
	switch a.kind {
	case KindNoTool:
		d.Tool, d.Arguments = "", nil
		return d
	case KindTool:
		d.Tool = a.tools[0]
	}
	t := tools[d.Tool]
	switch {
	case d.Tool == "":
		d.Dropped = "it names no tool"
		return d
	case t == nil:
		d.Dropped = fmt.Sprintf("it names the tool %s, which no server has", strconv.Quote(d.Tool))
		return d
	}
	args := bytes.TrimSpace(d.Arguments)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if args[0] != '{' {
		d.Dropped = fmt.Sprintf("its arguments are not a JSON object: %s", quote(string(args), 80))
		return d
	}
	d.Arguments = args
	if err := t.ValidateArgs(args); err != nil {
		d.Dropped = fmt.Sprintf("its arguments do not validate against %s's input schema: %v", d.Tool, err)
	}
	return d
}

// quote is text as a one-line Go string, cut after max runes.
func quote(text string, max int) string {
	if r := []rune(text); len(r) > max {
		text = string(r[:max]) + "…"
	}
	return strconv.Quote(text)
}
