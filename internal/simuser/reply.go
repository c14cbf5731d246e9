package simuser

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolgrade/toolgrade/internal/termtext"
)

// How a reply was read, when it was not the JSON object asked for.
const (
	ReadFence    = "code fence"
	ReadEmbedded = "embedded JSON"
	ReadStop     = "stop word"
	ReadText     = "plain text"
)

// NoMessageError is a reply from which no message can be read.
type NoMessageError struct {
	// Reply is the reply, shortened for the message.
	Reply string
}

func (e *NoMessageError) Error() string {
	return fmt.Sprintf(`the user model's reply has no message (want {"message": "...", "done": false}): %q`, e.Reply)
}

var (
	fence = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*(.*?)\\s*```")
	think = regexp.MustCompile(`(?s)<think>.*?</think>`)
)

// Read reads the user model's reply: the JSON object asked for; else,
// leniently, such an object in a code fence or embedded in text, or the
// text itself as the message (a <think> block left out, quotes around it
// taken off), with Stop anywhere ending the conversation. how says which
// ("" for the JSON itself). A reply that is a JSON object without a
// message or done: true, or that is empty, is a *NoMessageError.
func Read(reply string) (msg string, done bool, how string, err error) {
	s := strings.TrimSpace(think.ReplaceAllString(reply, ""))
	msg, done, how, ok := structured(s)
	if !ok {
		if json.Valid([]byte(s)) && strings.HasPrefix(s, "{") {
			return "", false, "", &NoMessageError{Reply: termtext.Excerpt(s, 200)}
		}
		msg, how = unquote(s), ReadText
	}
	if strings.Contains(msg, Stop) {
		for strings.Contains(msg, Stop) { // "###ST###STOP###OP###" holds a second
			msg = strings.ReplaceAll(msg, Stop, "")
		}
		msg, done = strings.TrimSpace(msg), true
		if how == ReadText {
			how = ReadStop
		}
	}
	if msg == "" && !done {
		return "", false, "", &NoMessageError{Reply: termtext.Excerpt(s, 200)}
	}
	return msg, done, how, nil
}

// unquote takes off the quotes a model may put around its whole line.
func unquote(s string) string {
	if n := len(s); n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n-1] == s[0] {
		return strings.TrimSpace(s[1 : n-1])
	}
	return s
}

// structured finds the object asked for: the whole reply, in a fence, or
// the first one embedded in text.
func structured(s string) (msg string, done bool, how string, ok bool) {
	if msg, done, ok = object(s); ok {
		return msg, done, "", true
	}
	if m := fence.FindStringSubmatch(s); m != nil {
		if msg, done, ok = object(m[1]); ok {
			return msg, done, ReadFence, true
		}
	}
	for i := strings.IndexByte(s, '{'); i >= 0 && i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		var raw json.RawMessage
		if json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw) != nil {
			continue
		}
		if msg, done, ok = object(string(raw)); ok {
			return msg, done, ReadEmbedded, true
		}
	}
	return "", false, "", false
}

// object reads s as one {message, done} object: a message (a string), or
// done true, or both; done may be written as a string.
func object(s string) (msg string, done bool, ok bool) {
	var o struct {
		Message any `json:"message"`
		Done    any `json:"done"`
	}
	if json.Unmarshal([]byte(s), &o) != nil {
		return "", false, false
	}
	msg, isText := o.Message.(string)
	switch d := o.Done.(type) {
	case bool:
		done = d
	case string:
		done = strings.EqualFold(strings.TrimSpace(d), "true")
	}
	msg = strings.TrimSpace(msg)
	return msg, done, (isText && msg != "") || done
}
