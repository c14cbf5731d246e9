package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolgrade/toolgrade/internal/record"
	"github.com/toolgrade/toolgrade/internal/termtext"
)

// How a reply was read, when it was not the JSON object asked for.
const (
	ReadFence    = "code fence"
	ReadEmbedded = "embedded JSON"
	ReadWord     = "verdict word"
)

// NoVerdictError is a reply whose verdict cannot be read unambiguously.
type NoVerdictError struct {
	// Reply is the reply, shortened for the message.
	Reply string
}

func (e *NoVerdictError) Error() string {
	return fmt.Sprintf("the judge's reply has no clear verdict (want {\"verdict\": \"pass\"|\"fail\", ...}): %q", e.Reply)
}

var fence = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*(.*?)\\s*```")

// Read reads the judge's reply: the JSON object asked for; else, leniently,
// such an object in a code fence, or embedded in text (every object found
// must agree), or a reply whose first word is the verdict (pass, fail,
// passed, failed) and which never names the other. how says which ("" for
// the JSON itself). Anything else is a *NoVerdictError.
func Read(reply string) (verdict, reason, how string, err error) {
	s := strings.TrimSpace(reply)
	if v, r, ok := object([]byte(s)); ok {
		return v, r, "", nil
	}
	if m := fence.FindStringSubmatch(s); m != nil {
		if v, r, ok := object([]byte(m[1])); ok {
			return v, r, ReadFence, nil
		}
	}
	if v, r, ok := embedded(s); ok {
		return v, r, ReadEmbedded, nil
	}
	if v, r, ok := word(s); ok {
		return v, r, ReadWord, nil
	}
	return "", "", "", &NoVerdictError{Reply: termtext.Excerpt(s, 200)}
}

// object reads b as one {verdict, reason} object with a verdict of pass or
// fail (any case).
func object(b []byte) (verdict, reason string, ok bool) {
	var o struct {
		Verdict any `json:"verdict"`
		Reason  any `json:"reason"`
	}
	if json.Unmarshal(b, &o) != nil {
		return "", "", false
	}
	v, _ := o.Verdict.(string)
	v = strings.ToLower(strings.TrimSpace(v))
	if v != record.VerdictPass && v != record.VerdictFail {
		return "", "", false
	}
	r, _ := o.Reason.(string)
	return v, r, true
}

// embedded finds the {verdict, reason} objects in text; ok when there is at
// least one and they all agree.
func embedded(s string) (verdict, reason string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		var raw json.RawMessage
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		if dec.Decode(&raw) != nil {
			continue
		}
		v, r, good := object(bytes.TrimSpace(raw))
		if !good {
			continue
		}
		if verdict != "" && v != verdict {
			return "", "", false
		}
		if verdict == "" {
			verdict, reason = v, r
		}
		i += int(dec.InputOffset()) - 1
	}
	return verdict, reason, verdict != ""
}

var words = regexp.MustCompile(`(?i)\b(pass|passed|passes|fail|failed|fails)\b`)

// word reads a reply that opens with its verdict (PASS, **Fail**:, ...)
// and never names the other one; the rest is the reason.
func word(s string) (verdict, reason string, ok bool) {
	all := words.FindAllStringIndex(s, -1)
	if len(all) == 0 {
		return "", "", false
	}
	lead := strings.TrimLeft(s[:all[0][0]], " \t\n*#_`>\"'-")
	if lead != "" {
		return "", "", false
	}
	verdict = kind(s[all[0][0]:all[0][1]])
	for _, m := range all[1:] {
		if kind(s[m[0]:m[1]]) != verdict {
			return "", "", false
		}
	}
	reason = strings.TrimSpace(strings.TrimLeft(s[all[0][1]:], " \t\n*_`\"'.:;,-—"))
	return verdict, reason, true
}

func kind(w string) string {
	if strings.HasPrefix(strings.ToLower(w), "pass") {
		return record.VerdictPass
	}
	return record.VerdictFail
}
